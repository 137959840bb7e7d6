import { migrationSet, type Migration } from './migration.js';

/** The http room's tables Versions from 500, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const httpMigrations: Migration[] = migrationSet('http', 500, {
  'signed requests already accepted (replay guard), kept across restarts': (d) => `
      CREATE TABLE http_replays (
        key TEXT PRIMARY KEY,
        expires_at ${d.bigint} NOT NULL
      );
      CREATE INDEX http_replays_expiry ON http_replays (expires_at);
    `,
});
