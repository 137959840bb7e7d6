import type { CommandDefinition } from '../src/core/types.js';

export const nodeCommands: CommandDefinition<any>[] = [];
