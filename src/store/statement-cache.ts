import type Database from 'better-sqlite3';
import type { Db } from './database.js';

export type Statement = Database.Statement<unknown[]>;

/**
 * Prepares each SQL text once per database and reuses the statement: preparing costs more
 * than running a small statement, and the webhook and outbox paths run the same few
 * statements thousands of times a minute. Keyed by text, so dynamic SQL is cached per shape.
 */
export function statementCache(db: Db): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare<unknown[]>(sql);
      cache.set(sql, st);
    }
    return st;
  };
}
