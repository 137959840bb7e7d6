import type { Migration } from './migration.js';

/** The store's own tables (600–699), shared by every room. Append new migrations; never edit one that has shipped. */
export const storeMigrations: Migration[] = [
  {
    version: 600,
    name: 'store: leases (who does what, until when) and change counters, for several replicas on one database',
    sql: (d) => `
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
  },
];
