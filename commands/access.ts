import type { CommandDefinition } from '../src/core/types.js';

export const accessCommands: CommandDefinition<any>[] = [];
