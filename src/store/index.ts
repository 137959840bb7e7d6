export { openDatabase, migrate, type Db } from './database.js';
export type { Migration } from './migrations/index.js';
