import type { Migration } from './index.js';

/** The reports room's tables. Append new migrations; never edit one that has shipped. */
export const reportsMigrations: Migration[] = [];
