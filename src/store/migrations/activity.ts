import type { Migration } from './migration.js';

/** The activity room's tables. Append new migrations; never edit one that has shipped. */
export const activityMigrations: Migration[] = [
  {
    version: 400,
    name: 'activity: the last state polled of each node',
    sql: (d) => `
      CREATE TABLE activity_states (
        node_id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        polled_at ${d.bigint} NOT NULL
      );
    `,
  },
];
