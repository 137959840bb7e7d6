/**
 * Signed requests already accepted (http_replays), so that a request replayed to a restarted bot
 * is still refused. Rows expire with the signature window and are pruned after it.
 */
import type { Db } from './database.js';

export interface ReplayStore {
  /** Remembers `key` until `until`; false when it is already remembered past `now` (a replay). */
  remember(key: string, until: number, now: number): boolean;
  /** Forgets keys expired before `now`; returns how many. */
  prune(now: number): number;
}

export function createReplayStore(db: Db): ReplayStore {
  const rememberQ = db.prepare(
    `INSERT INTO http_replays (key, expires_at) VALUES (?, ?)
     ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE http_replays.expires_at <= ?`,
  );
  const pruneQ = db.prepare('DELETE FROM http_replays WHERE expires_at <= ?');
  return {
    remember: (key, until, now) => rememberQ.run(key, until, now).changes > 0,
    prune: (now) => pruneQ.run(now).changes,
  };
}
