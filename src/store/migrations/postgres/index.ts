/**
 * Every PostgreSQL migration, with the versions of the SQLite list (../index.ts) so the
 * schema version means the same on both engines.
 */
import type { Migration } from '../index.js';
import { pgCoreMigrations } from './core.js';
import { pgNotifyMigrations } from './notify.js';
import { pgActivityMigrations, pgHttpMigrations, pgReportsMigrations, pgStoreMigrations } from './others.js';

export const postgresMigrations: Migration[] = [
  ...pgCoreMigrations,
  ...pgNotifyMigrations,
  ...pgReportsMigrations,
  ...pgActivityMigrations,
  ...pgHttpMigrations,
  ...pgStoreMigrations,
];
