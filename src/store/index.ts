/**
 * The store room: the SQLite database (one file, WAL, migrations in order) and each room's
 * repository. Other rooms import from here only.
 */
export {
  openDatabase,
  openPostgres,
  openStoreDatabase,
  schemaStatus,
  describeUrl,
  DatabaseUnavailableError,
  type Db,
  type AnyDb,
} from './database.js';
export { createLeases, createGenerations, type Leases, type Generations } from './leases.js';
export type { Migration } from './migrations/index.js';
export { groupCommit, type GroupCommit, type GroupCommitOptions } from './group-commit.js';
export * from './core-audit-records.js';
export * from './core-buttons.js';
export * from './core-confirmations.js';
export * from './core-dialogs.js';
export * from './core-role-grants.js';
export * from './notify-store.js';
export * from './notify-pages.js';
export * from './reports-schedules.js';
export * from './reports-snapshots.js';
export * from './reports-digest.js';
export * from './activity-states.js';
export * from './http-replays.js';
export * from './core-policy.js';
export * from './core-approvals.js';
export { createLeader, type Leader, type LeaderOptions } from './leader.js';
export * from './core-node-certs.js';
