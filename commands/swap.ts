import type { CommandDefinition } from '../src/core/types.js';

export const swapCommands: CommandDefinition<any>[] = [];
