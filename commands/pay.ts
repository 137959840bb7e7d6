import type { CommandDefinition } from '../src/core/types.js';

export const payCommands: CommandDefinition<any>[] = [];
