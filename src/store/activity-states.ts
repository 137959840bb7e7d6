/**
 * The activity room's table: the last state polled of each node (JSON: the snapshot and the
 * liquidity bands), so that a restart of the bot compares with what it saw before and never
 * announces history again.
 *
 * With `writeEveryMs`, the poller's writes are kept and written together, every that long, in
 * one transaction: the states of an interval's polls were one commit each, 67 a second at 2,000
 * nodes, and ~7% of the bot's CPU (docs/benchmarks.md, 2026-11-29). What is held is read back by
 * get() at once, one entry per node, the newest; a write that fails keeps it for the next. A crash
 * loses at most the last `writeEveryMs` of states, and that loses nothing: the poller queues what
 * changed before it keeps the new state (create-activity-poller.ts), so the next poll finds the
 * same change against the state stored and queues it again under the same keys, which the outbox
 * takes as duplicates. flush() writes what is held now (the poller's stop).
 */
import type { AnyDb } from './database.js';

export interface ActivityStateRepo {
  get(nodeId: string): Promise<unknown>;
  put(nodeId: string, state: unknown, polledAt: number): Promise<void>;
  /** Forgets nodes that no longer exist. */
  removeExcept(nodeIds: readonly string[]): Promise<number>;
  /** Writes the states held (with `writeEveryMs`) now; rejects when the database does. */
  flush(): Promise<void>;
}

export interface ActivityStateOptions {
  /** Hold the states put and write them together this often; without it each put() is its own commit. */
  writeEveryMs?: number;
  /** A held write failed (it is tried again at the next). */
  onWriteError?: (err: unknown, states: number) => void;
}

const UPSERT = `INSERT INTO activity_states (node_id, state, polled_at) VALUES (?, ?, ?)
  ON CONFLICT (node_id) DO UPDATE SET state = excluded.state, polled_at = excluded.polled_at`;

interface Held {
  json: string;
  polledAt: number;
}

export function createActivityStateRepo(db: AnyDb, o: ActivityStateOptions = {}): ActivityStateRepo {
  /** The states put and not yet written (newest per node), and the write under way: its states and its end. */
  let held = new Map<string, Held>();
  let writing: { batch: Map<string, Held>; done: Promise<void> } | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** After the write under way, if any (and any that starts while waiting), whatever its outcome. */
  const idle = async () => {
    while (writing) await writing.done.catch(() => undefined);
  };

  const schedule = () => {
    if (timer || o.writeEveryMs === undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush().catch((err: unknown) => o.onWriteError?.(err, held.size));
    }, o.writeEveryMs);
    timer.unref();
  };

  async function write(batch: Map<string, Held>): Promise<void> {
    const rows = [...batch].map(([nodeId, s]) => [nodeId, s.json, s.polledAt]);
    // SQLite: one transaction at once, no promise per row; else (PostgreSQL, or the connection held) one tx.
    if (db.txNow?.((q) => rows.forEach((r) => q.run(UPSERT, r)))) return;
    await db.tx(async () => {
      for (const r of rows) await db.run(UPSERT, r);
    });
  }

  /** One write at a time, of what is held when it starts. */
  async function flush(): Promise<void> {
    await idle();
    if (!held.size) return;
    const batch = held;
    held = new Map();
    writing = { batch, done: write(batch) };
    try {
      await writing.done;
    } catch (err) {
      // Kept for the next write, unless a newer state came meanwhile.
      for (const [nodeId, s] of batch) if (!held.has(nodeId)) held.set(nodeId, s);
      schedule();
      throw err;
    } finally {
      writing = undefined;
    }
  }

  return {
    get: async (nodeId) => {
      const kept = held.get(nodeId) ?? writing?.batch.get(nodeId);
      const state = kept ? kept.json : await db.value<string>('SELECT state FROM activity_states WHERE node_id = ?', [nodeId]);
      return state === undefined ? undefined : (JSON.parse(state) as unknown);
    },
    put: async (nodeId, state, polledAt) => {
      const json = JSON.stringify(state);
      if (o.writeEveryMs === undefined) {
        await db.run(UPSERT, [nodeId, json, polledAt]);
        return;
      }
      held.set(nodeId, { json, polledAt });
      schedule();
    },
    removeExcept: async (nodeIds) => {
      const keep = new Set(nodeIds);
      for (const nodeId of held.keys()) if (!keep.has(nodeId)) held.delete(nodeId);
      // A write under way may hold a node being forgotten: after it, so the row does not come back.
      await idle();
      let removed = 0;
      for (const nodeId of await db.column<string>('SELECT node_id FROM activity_states')) {
        if (!keep.has(nodeId)) removed += (await db.run('DELETE FROM activity_states WHERE node_id = ?', [nodeId])).changes;
      }
      return removed;
    },
    flush,
  };
}
