/**
 * Every migration, in version order, each written once for both engines (migration.ts), so a
 * schema version means the same on SQLite and PostgreSQL. Versions are grouped by room so rooms
 * never collide: 100–199 core (audit, roles, confirmations, buttons, dialogs), 200–299 notify
 * (events, watches, outbox, incidents, mutes), 300–399 reports (schedules, snapshots), 400–499
 * activity (the last state polled of each node), 500–599 http (replay guard), 600–699 store
 * (leases and change counters shared by replicas).
 */
import { coreMigrations } from './core.js';
import { notifyMigrations } from './notify.js';
import { reportsMigrations } from './reports.js';
import { activityMigrations } from './activity.js';
import { httpMigrations } from './http.js';
import { storeMigrations } from './store.js';
import type { Migration } from './migration.js';

export { migrationSql, type Migration } from './migration.js';

export const allMigrations: Migration[] = [
  ...coreMigrations,
  ...notifyMigrations,
  ...reportsMigrations,
  ...activityMigrations,
  ...httpMigrations,
  ...storeMigrations,
];
