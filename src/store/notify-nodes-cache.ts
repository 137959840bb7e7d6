/**
 * The per-node status rows (notify_nodes) kept in memory across the router's chunks, on SQLite:
 * a chunk then reads from the database only the rows of nodes it has not seen yet, where it read
 * every row of its nodes in each chunk (a statement of up to 50 keys: ~2-3 µs per event).
 *
 * Safe because on SQLite this process is the one writer (the router's transactions and
 * ingestEvent's take turns: BEGIN IMMEDIATE), every write to the rows goes through NotifyNodes,
 * and what is kept is only what a committed transaction wrote or read:
 *   - the rows are used and kept only inside a transaction opened by NotifyStore.routingTx
 *     (the router's chunks, ingestEvent: it knows when that transaction ends, and how);
 *     anywhere else they are read from the database, and a write there forgets them all;
 *   - a transaction (or a savepoint in one) that fails forgets them all: they are read again;
 *   - from the end of a tracked transaction's work until its COMMIT is known to have succeeded,
 *     the next transaction (which may start in between) does not use them.
 * PostgreSQL does not keep them: replicas share the database, and each reads the rows inside the
 * routing lock (NotifyStore.lockRouting) as before.
 */
import { perConnection } from './per-connection.js';
import type { AnyDb } from './database.js';

/** A node's row (notify_nodes: its columns are described in notify-nodes.ts). */
export interface NodeStatusState {
  node_id: string;
  last_id: number;
  last_status: string | null;
  newest_id: number | null;
  newest_status: string | null;
  newest_event_ts: string | null;
  /** The newest event's time in ms; NULL in rows seeded by the migration (parse newest_event_ts). */
  newest_ms: number | null;
}

/** Nodes kept at most (a row is ~200 bytes); past it, they are all forgotten and read again. */
const MAX_NODES = 20_000;

/** `into` merged with `s` as the database's write merges them (notify-nodes.ts, `merging`): the later id, the later event time (then id) win. */
export function mergedState(into: NodeStatusState | null, s: NodeStatusState): NodeStatusState {
  if (!into) return { ...s };
  const later = s.last_id > into.last_id;
  const newer =
    s.newest_ms !== null &&
    (into.newest_ms === null ||
      s.newest_ms > into.newest_ms ||
      (s.newest_ms === into.newest_ms && s.newest_id !== null && into.newest_id !== null && s.newest_id > into.newest_id));
  return {
    node_id: into.node_id,
    last_id: later ? s.last_id : into.last_id,
    last_status: later ? s.last_status : into.last_status,
    newest_id: newer ? s.newest_id : into.newest_id,
    newest_status: newer ? s.newest_status : into.newest_status,
    newest_event_ts: newer ? s.newest_event_ts : into.newest_event_ts,
    newest_ms: newer ? s.newest_ms : into.newest_ms,
  };
}

export class NodeRowsCache {
  /** By node: its row as committed (a copy), or null when it has none. */
  private readonly rows = new Map<string, NodeStatusState | null>();
  /** A tracked transaction's work is running (it holds the connection). */
  private active = false;
  /** Tracked transactions whose work ended and whose COMMIT is not known yet. */
  private unconfirmed = 0;

  constructor(private readonly db: AnyDb) {}

  /** The rows may be used and kept here: SQLite, inside a tracked transaction, none unconfirmed. */
  usable(): boolean {
    return this.active && this.unconfirmed === 0 && this.db.inTransaction;
  }

  /** Forgets every row (read them again from the database). */
  forget(): void {
    this.rows.clear();
  }

  /** Kept rows of these nodes (copies; null: known to have none), and the ids not known. */
  lookup(nodeIds: readonly string[]): { found: Map<string, NodeStatusState>; unknown: string[] } {
    const found = new Map<string, NodeStatusState>();
    const unknown: string[] = [];
    for (const id of nodeIds) {
      const row = this.rows.get(id);
      if (row === undefined) unknown.push(id);
      else if (row) found.set(id, { ...row });
    }
    return { found, unknown };
  }

  /** Rows read from the database in this transaction (`ids` those asked; absent: none stored). */
  learn(ids: readonly string[], read: ReadonlyMap<string, NodeStatusState>): void {
    if (this.rows.size + ids.length > MAX_NODES) this.rows.clear();
    for (const id of ids) {
      const row = read.get(id);
      this.rows.set(id, row ? { ...row } : null);
    }
  }

  /** Rows just written in this transaction: merged into the kept ones (a node not known is left unknown). */
  wrote(states: readonly NodeStatusState[]): void {
    for (const s of states) {
      const known = this.rows.get(s.node_id);
      if (known === undefined) continue;
      this.rows.set(s.node_id, mergedState(known, s));
    }
  }

  /** A savepoint in the caller's transaction (NotifyStore.tx): if it rolls back, what it wrote is gone. */
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.db.tx(fn);
    } catch (e) {
      this.forget();
      throw e;
    }
  }

  /** A routing transaction (NotifyStore.routingTx), whose end is known here: see the file's comment. */
  async tx<T>(fn: () => Promise<T>): Promise<T> {
    if (this.db.engine !== 'sqlite') return this.db.tx(fn);
    if (this.db.inTransaction) return this.savepoint(fn);
    let ended = false;
    try {
      return await this.db.tx(async () => {
        this.active = true;
        try {
          return await fn();
        } catch (e) {
          this.forget();
          throw e;
        } finally {
          this.active = false;
          this.unconfirmed++;
          ended = true;
        }
      });
    } catch (e) {
      // The work or its COMMIT failed: rolled back.
      this.forget();
      throw e;
    } finally {
      if (ended) this.unconfirmed--;
    }
  }
}

/** The one cache of this connection (every NotifyStore over it shares it, as they share its transactions). */
export const nodeRowsCacheOf = perConnection((db) => new NodeRowsCache(db));
