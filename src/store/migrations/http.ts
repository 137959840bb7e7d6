import type { Migration } from './migration.js';

/** The http room's tables (500–599). Append new migrations; never edit one that has shipped. */
export const httpMigrations: Migration[] = [
  {
    version: 500,
    name: 'http: signed requests already accepted (replay guard), kept across restarts',
    sql: (d) => `
      CREATE TABLE http_replays (
        key TEXT PRIMARY KEY,
        expires_at ${d.bigint} NOT NULL
      );
      CREATE INDEX http_replays_expiry ON http_replays (expires_at);
    `,
  },
];
