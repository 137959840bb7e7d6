/**
 * The store on both engines, for tests: SQLite in memory, and a fresh PostgreSQL database on
 * the run's server (test/global-setup.ts). `describe.each(ENGINES)` runs a suite on each.
 */
import { inject } from 'vitest';
import { openDatabase, openPostgres, type AnyDb } from '../../src/store/index.js';
import { createDatabase } from './postgres-server.js';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type EngineName = (typeof ENGINES)[number];

/** A URL of a new, empty PostgreSQL database on the test server. */
export async function newPostgresUrl(prefix = 't'): Promise<string> {
  return createDatabase(inject('postgresAdminUrl'), prefix);
}

/** A migrated, empty store on `engine`. Close it with `db.close()`. */
export async function openTestDb(engine: EngineName): Promise<AnyDb> {
  if (engine === 'sqlite') return openDatabase(':memory:');
  return openPostgres(await newPostgresUrl());
}
