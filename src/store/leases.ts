/**
 * Leases: one owner at a time for a named piece of work, until a time, on either engine. With
 * several replicas on one PostgreSQL database they decide who posts a channel's outbox, who
 * runs a schedule's tick, who polls a node and who holds the Discord gateway. A claim is one
 * statement (an upsert guarded by the lease's end), so two replicas never both win it.
 *
 * Change counters (`generations`) tell a replica that another one changed what it caches
 * (watches and mutes): each write bumps the counter; a reader compares it with what it loaded.
 */
import type { AnyDb as Db } from './database.js';

export interface Leases {
  /** Takes or renews `name` for `owner` until `until` (ms); true when `owner` holds it now. */
  claim(name: string, owner: string, until: number, now: number): Promise<boolean>;
  /** Gives it up (only the holder can). */
  release(name: string, owner: string): Promise<void>;
  /** Who holds it at `now`, if anyone. */
  holder(name: string, now: number): Promise<string | undefined>;
  /** Forgets leases that ended before `before` (a schedule's tick claims are one-off names). */
  prune(before: number): Promise<number>;
}

export function createLeases(db: Db): Leases {
  return {
    async claim(name, owner, until, now) {
      const r = await db.run(
        `INSERT INTO store_leases (name, owner, until) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE store_leases.until <= ? OR store_leases.owner = excluded.owner`,
        [name, owner, until, now],
      );
      return r.changes > 0;
    },
    async release(name, owner) {
      await db.run('DELETE FROM store_leases WHERE name = ? AND owner = ?', [name, owner]);
    },
    async holder(name, now) {
      return db.value<string>('SELECT owner FROM store_leases WHERE name = ? AND until > ?', [name, now]);
    },
    async prune(before) {
      return (await db.run('DELETE FROM store_leases WHERE until < ?', [before])).changes;
    },
  };
}

export interface Generations {
  /** Counts one change of `name` (call it in the transaction of the change). */
  bump(name: string): Promise<void>;
  /** The count now (0 if never changed). */
  current(name: string): Promise<number>;
}

export function createGenerations(db: Db): Generations {
  return {
    async bump(name) {
      await db.run(
        'INSERT INTO store_generations (name, gen) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET gen = store_generations.gen + 1',
        [name],
      );
    },
    async current(name) {
      return (await db.value<number>('SELECT gen FROM store_generations WHERE name = ?', [name])) ?? 0;
    },
  };
}
