import type { Migration } from './index.js';

/** The notify room's tables. Append new migrations; never edit one that has shipped. */
export const notifyMigrations: Migration[] = [];
