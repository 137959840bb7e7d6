import type { CommandDefinition } from '../src/core/types.js';

export const channelCommands: CommandDefinition<any>[] = [];
