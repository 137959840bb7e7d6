import type { Migration } from './migration.js';

/** The reports room's tables. Append new migrations; never edit one that has shipped. */
export const reportsMigrations: Migration[] = [
  {
    version: 300,
    name: 'reports: schedules and snapshots',
    sql: (d) => `
      CREATE TABLE report_schedules (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('balance', 'channels')),
        target TEXT NOT NULL,
        target_label TEXT NOT NULL,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT 'sat',
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX report_schedules_channel ON report_schedules (platform, channel_id);

      CREATE TABLE report_snapshots (
        id ${d.id},
        node_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('balance', 'channels')),
        taken_at TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX report_snapshots_node ON report_snapshots (node_id, kind, id);
    `,
  },
  {
    version: 301,
    name: 'reports: a snapshot belongs to a baseline (a schedule keeps its own)',
    sql: `
      ALTER TABLE report_snapshots ADD COLUMN scope TEXT NOT NULL DEFAULT '';
      CREATE INDEX report_snapshots_scope ON report_snapshots (node_id, kind, scope, id);
    `,
  },
  /** Issue 28: the daily digest is a report kind a channel may schedule, like the others. */
  {
    version: 302,
    name: 'reports: a schedule may post the daily digest',
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt with the same
    // columns, rows and ids (nothing refers to it). PostgreSQL swaps the constraint.
    sql: (d) =>
      d.engine === 'sqlite'
        ? `
      CREATE TABLE report_schedules_new (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('balance', 'channels', 'digest')),
        target TEXT NOT NULL,
        target_label TEXT NOT NULL,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT 'sat',
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      INSERT INTO report_schedules_new (id, platform, channel_id, kind, target, target_label, cron, timezone, unit, created_by, created_at)
        SELECT id, platform, channel_id, kind, target, target_label, cron, timezone, unit, created_by, created_at FROM report_schedules;
      DROP TABLE report_schedules;
      ALTER TABLE report_schedules_new RENAME TO report_schedules;
      CREATE INDEX report_schedules_channel ON report_schedules (platform, channel_id);
    `
        : `
      ALTER TABLE report_schedules DROP CONSTRAINT report_schedules_kind_check;
      ALTER TABLE report_schedules ADD CONSTRAINT report_schedules_kind_check CHECK (kind IN ('balance', 'channels', 'digest'));
    `,
  },
];
