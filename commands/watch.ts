import type { CommandDefinition } from '../src/core/types.js';

export const watchCommands: CommandDefinition<any>[] = [];
