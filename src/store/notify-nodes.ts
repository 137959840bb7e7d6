/**
 * The per-node status table (notify_nodes, one row per node): what the outbox rounds read of a
 * node's history, kept by the router instead of an index over every event (issue 29). Before,
 * the index (node_id, id) on notify_events answered "the node's previous status" and "its
 * recent statuses", and each webhook commit paid for it: every event of a burst landed on its
 * node's leaf page (a 9-event commit dirtied ~13 index pages of ~22). Now the commit writes the
 * event row alone, and the router writes one row per node it routed, in the transaction that
 * writes the outbox rows.
 *
 *   last_id, last_status   the node's last status event by id, as routed: the "previous status"
 *                          of the next one (stored on its outbox rows, prev_status);
 *   newest_*               its status event with the latest event time (ties: the later id):
 *                          a group of older events is superseded by it (plan-round.ts).
 *
 * Routers take turns (NotifyStore.lockRouting), each reading and merging the rows in its
 * transaction; `save` merges in SQL as well (the later id, the later time win), so a writer
 * that did not take turns cannot move a row back. On SQLite the table is WITHOUT ROWID: one
 * b-tree to write instead of the table and its key's index.
 */
import type { AnyDb } from './database.js';
import { rowChunks } from './row-chunks.js';
import { nodeRowsCacheOf, type NodeRowsCache, type NodeStatusState } from './notify-nodes-cache.js';

export type { NodeStatusState } from './notify-nodes-cache.js';

const COLUMNS = 'node_id, last_id, last_status, newest_id, newest_status, newest_event_ts, newest_ms';
/**
 * Nodes per statement: runs of 50 (an outbox round's 50 nodes: one read), then powers of two. A
 * router's chunk of 50 events touches ~32 nodes when they are 50: at most 3 statements to read
 * and 3 to write (any count below 50: at most 6), where runs of 50, 10 and 1 took 5 or more for
 * such counts (37 nodes: 10 + 10 + 10 + 7 × 1).
 */
const SIZES = [50, 32, 16, 8, 4, 2, 1];
const READ_CHUNKS = rowChunks(SIZES, '?');
const WRITE_CHUNKS = rowChunks(SIZES, '(?, ?, ?, ?, ?, ?, ?)');

/**
 * The rows merged with what is stored, in SQL. Routers take turns (NotifyStore.lockRouting) and
 * merge in code what they read, so this is a guard: a writer that did not take turns cannot
 * move a row back. (Measured on SQLite: writing the rows as given, INSERT OR REPLACE, was no
 * cheaper.)
 */
const merging = (values: string): string => {
  const later = 'excluded.last_id > notify_nodes.last_id';
  const newer = `(excluded.newest_ms IS NOT NULL AND (notify_nodes.newest_ms IS NULL OR excluded.newest_ms > notify_nodes.newest_ms
        OR (excluded.newest_ms = notify_nodes.newest_ms AND excluded.newest_id > notify_nodes.newest_id)))`;
  return `INSERT INTO notify_nodes (${COLUMNS}) VALUES ${values}
         ON CONFLICT (node_id) DO UPDATE SET
           last_id = CASE WHEN ${later} THEN excluded.last_id ELSE notify_nodes.last_id END,
           last_status = CASE WHEN ${later} THEN excluded.last_status ELSE notify_nodes.last_status END,
           newest_id = CASE WHEN ${newer} THEN excluded.newest_id ELSE notify_nodes.newest_id END,
           newest_status = CASE WHEN ${newer} THEN excluded.newest_status ELSE notify_nodes.newest_status END,
           newest_event_ts = CASE WHEN ${newer} THEN excluded.newest_event_ts ELSE notify_nodes.newest_event_ts END,
           newest_ms = CASE WHEN ${newer} THEN excluded.newest_ms ELSE notify_nodes.newest_ms END`;
};

export class NotifyNodes {
  /** The rows kept across transactions, on SQLite (notify-nodes-cache.ts). */
  readonly cache: NodeRowsCache;

  constructor(private readonly db: AnyDb) {
    this.cache = nodeRowsCacheOf(db);
  }

  /**
   * The rows of these nodes (those that have one; the caller may change them). On SQLite, in a
   * transaction of NotifyStore.routingTx, those kept from an earlier one are not read again.
   */
  async states(nodeIds: readonly string[]): Promise<Map<string, NodeStatusState>> {
    if (!this.cache.usable()) return this.read(nodeIds);
    const { found, unknown } = this.cache.lookup(nodeIds);
    if (!unknown.length) return found;
    const read = await this.read(unknown);
    this.cache.learn(unknown, read);
    for (const [id, row] of read) found.set(id, row);
    return found;
  }

  private async read(nodeIds: readonly string[]): Promise<Map<string, NodeStatusState>> {
    const out = new Map<string, NodeStatusState>();
    await READ_CHUNKS(nodeIds.length, async (list, start, n) => {
      const rows = await this.db.all<NodeStatusState>(
        `SELECT ${COLUMNS} FROM notify_nodes WHERE node_id IN (${list})`,
        nodeIds.slice(start, start + n),
      );
      // (PostgreSQL gives BIGINT columns as strings.)
      for (const r of rows)
        out.set(r.node_id, {
          ...r,
          last_id: Number(r.last_id),
          newest_id: r.newest_id === null ? null : Number(r.newest_id),
          newest_ms: r.newest_ms === null ? null : Number(r.newest_ms),
        });
    });
    return out;
  }

  /**
   * Writes these rows, read and merged by the caller in this transaction (routers take turns),
   * merged with what is stored too: the later last_id wins, and the later newest (time, then id).
   */
  async save(states: readonly NodeStatusState[]): Promise<void> {
    const kept = this.cache.usable();
    // Written outside a transaction whose end is known here: kept rows may be wrong from now on.
    if (!kept) this.cache.forget();
    await WRITE_CHUNKS(states.length, async (values, start, n) => {
      const params: unknown[] = [];
      for (let j = start; j < start + n; j++) {
        const s = states[j];
        params.push(s.node_id, s.last_id, s.last_status, s.newest_id, s.newest_status, s.newest_event_ts, s.newest_ms);
      }
      await this.db.run(merging(values), params);
    });
    if (kept) this.cache.wrote(states);
  }

  /**
   * The status of the node's last event before `beforeEventId`, read from the events table: for
   * what the table cannot answer (an event routed after a later one of its node, outbox rows
   * written before prev_status was). On SQLite this reads the events backwards from that id
   * (there is no per-node index any more): rare, and bounded by how far back the node's last
   * status event is.
   */
  async statusBefore(nodeId: string, beforeEventId: number): Promise<string | undefined> {
    return this.db.value<string>(
      'SELECT status FROM notify_events WHERE node_id = ? AND id < ? AND status IS NOT NULL ORDER BY id DESC LIMIT 1',
      [nodeId, beforeEventId],
    );
  }
}
