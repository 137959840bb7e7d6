import type { CommandDefinition } from '../src/core/types.js';

export const netCommands: CommandDefinition<any>[] = [];
