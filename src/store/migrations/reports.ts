import { migrationSet, type Dialect, type Migration } from './migration.js';

/** The schedules table, as 300 made it and as 302 rebuilds it on SQLite with one more kind. */
const scheduleTable = (d: Dialect, name: string, kinds: string) => `CREATE TABLE ${name} (
        id ${d.id},
        platform TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN (${kinds})),
        target TEXT NOT NULL,
        target_label TEXT NOT NULL,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT 'sat',
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`;

/** The reports room's tables. Versions from 300, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const reportsMigrations: Migration[] = migrationSet('reports', 300, {
  'schedules and snapshots': (d) => `
      ${scheduleTable(d, 'report_schedules', "'balance', 'channels'")};
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

  'a snapshot belongs to a baseline (a schedule keeps its own)': `
      ALTER TABLE report_snapshots ADD COLUMN scope TEXT NOT NULL DEFAULT '';
      CREATE INDEX report_snapshots_scope ON report_snapshots (node_id, kind, scope, id);
    `,

  /** Issue 28: the daily digest is a report kind a channel may schedule, like the others. */
  // SQLite cannot change a CHECK constraint in place: the table is rebuilt with the same
  // columns, rows and ids (nothing refers to it). PostgreSQL swaps the constraint.
  'a schedule may post the daily digest': (d) =>
    d.engine === 'sqlite'
      ? `
      ${scheduleTable(d, 'report_schedules_new', "'balance', 'channels', 'digest'")};
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
});
