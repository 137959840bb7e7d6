import type { CommandDefinition } from '../src/core/types.js';

export const invoiceCommands: CommandDefinition<any>[] = [];
