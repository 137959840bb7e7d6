import { migrationSet, type Migration } from './migration.js';

/** The store's own tables, shared by every room. Versions from 600, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const storeMigrations: Migration[] = migrationSet('store', 600, {
  'leases (who does what, until when) and change counters, for several replicas on one database': (d) => `
      CREATE TABLE store_leases (
        name TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        until ${d.bigint} NOT NULL
      );
      CREATE INDEX store_leases_until ON store_leases (until);
      CREATE TABLE store_generations (
        name TEXT PRIMARY KEY,
        gen ${d.bigint} NOT NULL
      );
    `,
});
