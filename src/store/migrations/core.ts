import type { Migration } from './index.js';

/** The core room's tables. Append new migrations; never edit one that has shipped. */
export const coreMigrations: Migration[] = [];
