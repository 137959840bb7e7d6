/**
 * The events stored but not yet routed (the webhook path stores them with route_pending = 1 and
 * answers 2xx; the router routes them after), taken oldest first by the router, one chunk per
 * transaction. How "not yet routed" is kept depends on the engine:
 *
 *   SQLite       a cursor (notify_route_cursor.routed_to): the events after it that carry the
 *                mark. Taking a chunk moves the cursor, in the router's transaction: one row
 *                written per chunk, where clearing the marks rewrote every event row and an
 *                index entry. Safe because SQLite has one writer at a time (every transaction
 *                is BEGIN IMMEDIATE) and ids only grow (AUTOINCREMENT): while the router holds
 *                the write lock, every event with an id below the largest is committed, and
 *                every later one gets a larger id. The mark itself stays, and says "came by the
 *                webhook; routed once the cursor has passed it".
 *   PostgreSQL   the mark per event, cleared as the chunk is taken (FOR UPDATE SKIP LOCKED):
 *                its ids come from a sequence and are not committed in id order (an event given
 *                a lower id can commit after a higher one was routed), so a cursor could pass
 *                an event not yet visible, and replicas of the previous version may share the
 *                database during an upgrade and clear marks themselves.
 */
import type { AnyDb } from './database.js';
import type { EventToRoute } from './notify-rows.js';

type Row = { id: number | string; node_id: string; status: string | null; event_ts: string | null; received_at: number | string };

const toEvent = (row: Row): EventToRoute => ({
  id: Number(row.id),
  node_id: row.node_id,
  status: row.status ?? null,
  event_ts: row.event_ts ?? null,
  received_at: Number(row.received_at),
});

export class NotifyRouteQueue {
  constructor(private readonly db: AnyDb) {}

  /**
   * Takes up to `limit` events stored but not yet routed, oldest first, and marks them routed,
   * inside the caller's transaction (the one that writes their outbox rows): if it rolls back,
   * they are still to route, and a later pass routes them. On PostgreSQL the events are locked
   * with SKIP LOCKED, so replicas routing at the same time each take different events.
   */
  async take(limit: number): Promise<EventToRoute[]> {
    // (Its own transaction only when called outside one: the router's holds it already.)
    if (this.db.engine === 'sqlite')
      return this.db.inTransaction ? this.takeAfterCursor(limit) : this.db.tx(() => this.takeAfterCursor(limit));
    const r = await this.db.run(
      `UPDATE notify_events SET route_pending = NULL
       WHERE id IN (SELECT id FROM notify_events WHERE route_pending IS NOT NULL ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
       RETURNING id, node_id, status, event_ts, received_at`,
      [limit],
    );
    // RETURNING gives no order: the oldest first, as they came.
    return (r.rows as unknown as Row[]).map(toEvent).sort((a, b) => a.id - b.id);
  }

  /** SQLite: the marked events after the cursor, and the cursor moved past them. */
  private async takeAfterCursor(limit: number): Promise<EventToRoute[]> {
    const after = await this.cursor();
    const rows = (
      await this.db.all<Row>(
        `SELECT id, node_id, status, event_ts, received_at FROM notify_events
         WHERE id > ? AND route_pending IS NOT NULL ORDER BY id LIMIT ?`,
        [after, limit],
      )
    ).map(toEvent);
    // A full chunk: up to its last event. Fewer: none is left, so past every event stored (the
    // events routed as they were stored, activity and the direct API, are not read again).
    const to =
      rows.length === limit ? rows[rows.length - 1].id : ((await this.db.value<number>('SELECT MAX(id) FROM notify_events')) ?? after);
    if (to > after) await this.db.run('UPDATE notify_route_cursor SET routed_to = ? WHERE id = 1', [to]);
    return rows;
  }

  private async cursor(): Promise<number> {
    return (await this.db.value<number>('SELECT routed_to FROM notify_route_cursor WHERE id = 1')) ?? 0;
  }

  /** How many events wait to be routed (the backlog's size, for metrics and drain). */
  async count(): Promise<number> {
    if (this.db.engine === 'sqlite') {
      const sql = `SELECT COUNT(*) FROM notify_events WHERE id > (SELECT routed_to FROM notify_route_cursor WHERE id = 1) AND route_pending IS NOT NULL`;
      return (await this.db.value<number>(sql)) ?? 0;
    }
    return Number((await this.db.value<number | string>('SELECT COUNT(*) FROM notify_events WHERE route_pending IS NOT NULL')) ?? 0);
  }

  /** The condition (SQL, on notify_events) of an event already routed, or never to route: pruning may take it. */
  routedCondition(): string {
    return this.db.engine === 'sqlite'
      ? '(route_pending IS NULL OR id <= (SELECT routed_to FROM notify_route_cursor WHERE id = 1))'
      : 'route_pending IS NULL';
  }
}
