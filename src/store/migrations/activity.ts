import { migrationSet, type Migration } from './migration.js';

/** The activity room's tables. Versions from 400, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const activityMigrations: Migration[] = migrationSet('activity', 400, {
  'the last state polled of each node': (d) => `
      CREATE TABLE activity_states (
        node_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        polled_at ${d.bigint} NOT NULL
      );
    `,
});
