/**
 * The store on both engines, for tests: SQLite in memory, and a fresh PostgreSQL database on
 * the run's server (test/global-setup.ts). `describe.each(ENGINES)` runs a suite on each.
 */
import { inject } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openPostgres, type AnyDb } from '../../src/store/index.js';
import { createDatabase } from './create-database.js';

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

/**
 * Two connections to one new database on `engine`: two replicas (SQLite: one temporary file
 * opened twice). `cleanups` receives what closes them and removes the file.
 */
export async function twoConnections(engine: EngineName, cleanups: Array<() => unknown>): Promise<[AnyDb, AnyDb]> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rln-two-'));
    const path = join(dir, 'bot.db');
    const a = openDatabase(path);
    const b = openDatabase(path);
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => a.close(),
      () => b.close(),
    );
    return [a, b];
  }
  const url = await newPostgresUrl();
  const a = await openPostgres(url);
  const b = await openPostgres(url);
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  return [a, b];
}

/**
 * `db` with the text of each statement its queries run noted in `seen`, in order (run, all,
 * arrays, get, value, column): for tests that count what a store asks of the database.
 */
export function notingStatements(db: AnyDb): { db: AnyDb; seen: string[] } {
  const seen: string[] = [];
  const noted = new Set<PropertyKey>(['run', 'all', 'arrays', 'get', 'value', 'column']);
  const proxy = new Proxy(db, {
    get(target, p) {
      const v = Reflect.get(target, p, target) as unknown;
      if (typeof v !== 'function') return v;
      const fn = (v as (...a: unknown[]) => unknown).bind(target);
      if (!noted.has(p)) return fn;
      return (sql: string, params?: unknown) => {
        seen.push(sql);
        return fn(sql, params);
      };
    },
  });
  return { db: proxy, seen };
}
