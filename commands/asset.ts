import type { CommandDefinition } from '../src/core/types.js';

export const assetCommands: CommandDefinition<any>[] = [];
