import type { CommandDefinition } from '../src/core/types.js';

export const walletCommands: CommandDefinition<any>[] = [];
