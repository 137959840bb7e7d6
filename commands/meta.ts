import type { CommandDefinition } from '../src/core/types.js';

export const metaCommands: CommandDefinition<any>[] = [];
