import type { CommandDefinition } from '../src/core/types.js';

export const peerCommands: CommandDefinition<any>[] = [];
