import type { CommandDefinition } from '../src/core/types.js';

export const reportCommands: CommandDefinition<any>[] = [];
