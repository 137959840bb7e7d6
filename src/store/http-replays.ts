/**
 * Signed requests already accepted (http_replays), so that a request replayed to a restarted bot
 * is still refused. Rows expire with the signature window and are pruned after it.
 */
import type { AnyDb } from './database.js';

export interface ReplayStore {
  /**
   * Remembers `key` until `until`; false when it is already remembered past `now` (a replay).
   * One INSERT … ON CONFLICT: of concurrent calls with one key, on one replica or several
   * sharing a database, exactly one is true (a key expired before `now` is taken anew).
   */
  remember(key: string, until: number, now: number): Promise<boolean>;
  /** Forgets keys expired before `now`; returns how many. */
  prune(now: number): Promise<number>;
}

export function createReplayStore(db: AnyDb): ReplayStore {
  return {
    remember: async (key, until, now) =>
      (
        await db.run(
          `INSERT INTO http_replays (key, expires_at) VALUES (?, ?)
           ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE http_replays.expires_at <= ?`,
          [key, until, now],
        )
      ).changes > 0,
    prune: async (now) => (await db.run('DELETE FROM http_replays WHERE expires_at <= ?', [now])).changes,
  };
}
