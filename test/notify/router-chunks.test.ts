/**
 * Issue 29: the router's chunks grow in a backlog. A chunk costs its transaction, the cursor and
 * one status row per node it touches whatever its size, so a pass that finds a backlog (more
 * full chunks than ROUTE_FULL_CHUNKS_BEFORE_GROWTH) routes the rest in larger ones, while a pass
 * that keeps up routes ROUTE_CHUNK at a time, as before; the backlog lasts over passes that each
 * bring more than the small chunks hold (a storm's). What must not change: every event
 * routed once, in id order, with the status its node had before it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createEventRouter, ROUTE_BACKLOG_GROWTH, ROUTE_CHUNK, ROUTE_FULL_CHUNKS_BEFORE_GROWTH } from '../../src/notify/route-pending.js';
import { NotifyStore, openDatabase, type AnyDb, type EventRow } from '../../src/store/index.js';
import { newWatch } from '../support/watch-row.js';

const STATUSES = ['RUNNING', 'FAILED', 'PAUSED', 'STOPPED'];
const NODES = 50;

const open: AnyDb[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** A store whose router's takes are recorded: how many events each asked for, and got. `add(n)` stores n more. */
async function storeWith(pending: number) {
  const db = openDatabase(':memory:');
  open.push(db);
  const store = new NotifyStore(db);
  await store.upsertWatch(newWatch());
  const rows: Array<Omit<EventRow, 'id'>> = [];
  const add = async (n: number) => {
    const more = eventRows(rows.length + 1, n);
    rows.push(...more);
    await store.tx(() => store.insertEvents(more));
  };
  await add(pending);
  const asked: number[] = [];
  const got: number[] = [];
  const take = store.takeEventsToRoute.bind(store);
  store.takeEventsToRoute = async (n) => {
    asked.push(n);
    const events = await take(n);
    got.push(events.length);
    return events;
  };
  return { db, store, asked, got, rows, add };
}

/** `n` webhook events of NODES nodes, numbered from `from`, stored as the webhook path stores them (to route). */
function eventRows(from: number, n: number): Array<Omit<EventRow, 'id'>> {
  const rows: Array<Omit<EventRow, 'id'>> = [];
  for (let i = from; i < from + n; i++) {
    const ms = Date.parse('2026-11-29T12:00:00.000Z') + i;
    rows.push({
      dedupe_key: `ev-${i}`,
      node_id: `n${i % NODES}`,
      node_name: null,
      event_type: 'NODE_STATUS_UPDATED',
      status: STATUSES[(i * 7) % STATUSES.length],
      event_ts: new Date(ms).toISOString(),
      received_at: ms,
      payload: '{}',
      event_ms: ms,
      route_pending: 1,
    });
  }
  return rows;
}

const router = (store: NotifyStore, maxEvents?: number) =>
  createEventRouter({ store, now: () => Date.now(), log: silentLogger, maxEvents });
const grown = ROUTE_CHUNK * ROUTE_BACKLOG_GROWTH;

describe("the router's chunks", () => {
  it('stay at ROUTE_CHUNK while the router keeps up', async () => {
    const { store, asked, got } = await storeWith(ROUTE_CHUNK * 2 + 20);
    expect(await router(store).routePending()).toBe(true);
    expect(asked).toEqual([ROUTE_CHUNK, ROUTE_CHUNK, ROUTE_CHUNK]);
    expect(got).toEqual([ROUTE_CHUNK, ROUTE_CHUNK, 20]);
  });

  it('grow in a backlog, and every event is still routed once, in order, after its own previous status', async () => {
    const pending = ROUTE_CHUNK * ROUTE_FULL_CHUNKS_BEFORE_GROWTH + grown * 4;
    const { db, store, asked, got, rows } = await storeWith(pending);
    expect(await router(store).routePending()).toBe(true);
    expect(asked).toEqual([...Array(ROUTE_FULL_CHUNKS_BEFORE_GROWTH).fill(ROUTE_CHUNK), ...Array(5).fill(grown)]);
    expect(got).toEqual([...Array(ROUTE_FULL_CHUNKS_BEFORE_GROWTH).fill(ROUTE_CHUNK), ...Array(4).fill(grown), 0]);
    // Fewer transactions than at ROUTE_CHUNK each.
    expect(Math.max(...asked)).toBeGreaterThan(ROUTE_CHUNK);
    expect(asked.length).toBeLessThan(pending / ROUTE_CHUNK);
    expect(await store.eventsToRouteCount()).toBe(0);

    // One outbox row per event, each with the status its node had before it (from the events as stored).
    const outbox = await db.all<{ event_id: number; prev_status: string | null }>(
      'SELECT event_id, prev_status FROM notify_outbox ORDER BY event_id',
    );
    expect(outbox.map((r) => Number(r.event_id))).toEqual(rows.map((_, i) => i + 1));
    const last = new Map<string, string>();
    const expected = rows.map((r) => {
      const before = last.get(r.node_id) ?? '';
      last.set(r.node_id, r.status!);
      return before;
    });
    expect(outbox.map((r) => r.prev_status ?? '')).toEqual(expected);
    // Each node's row holds its last event.
    const nodes = await db.all<{ node_id: string; last_status: string }>('SELECT node_id, last_status FROM notify_nodes');
    expect(nodes).toHaveLength(NODES);
    for (const n of nodes) expect(n.last_status).toBe(last.get(n.node_id));
  });

  it('stop at the pass bound, and the next pass starts grown: the backlog is still there', async () => {
    const { store, asked, got } = await storeWith(1000);
    const bound = ROUTE_CHUNK * ROUTE_FULL_CHUNKS_BEFORE_GROWTH + grown / 2;
    const r = router(store, bound);
    expect(await r.routePending()).toBe(false);
    expect(asked).toEqual([...Array(ROUTE_FULL_CHUNKS_BEFORE_GROWTH).fill(ROUTE_CHUNK), grown / 2]);
    expect(got).toEqual(asked);
    expect(await store.eventsToRouteCount()).toBe(1000 - bound);
    asked.length = 0;
    await r.routePending();
    expect(asked[0]).toBe(grown);
  });

  it('stay grown over passes that each bring more than the small chunks hold (a storm), and shrink after one that does not', async () => {
    const small = ROUTE_CHUNK * ROUTE_FULL_CHUNKS_BEFORE_GROWTH;
    const { db, store, asked, got, rows, add } = await storeWith(small + 30);
    const r = router(store);
    const pass = async () => {
      asked.length = 0;
      got.length = 0;
      expect(await r.routePending()).toBe(true);
    };
    // A storm's passes, ~100 ms apart, each finding a few hundred events.
    await pass();
    expect(got).toEqual([...Array(ROUTE_FULL_CHUNKS_BEFORE_GROWTH).fill(ROUTE_CHUNK), 30]);
    await add(small + 30);
    await pass();
    expect(asked).toEqual([grown, grown]);
    expect(got).toEqual([grown, 30]);
    // The storm ends: a pass with no more than the small chunks hold, in one grown chunk...
    await add(120);
    await pass();
    expect(asked).toEqual([grown]);
    expect(got).toEqual([120]);
    // ... and the pass after it starts small again, as a pass that keeps up does.
    await add(120);
    await pass();
    expect(asked).toEqual([ROUTE_CHUNK, ROUTE_CHUNK, ROUTE_CHUNK]);
    expect(got).toEqual([ROUTE_CHUNK, ROUTE_CHUNK, 20]);
    // Every event routed once, in order.
    const outbox = await db.all<{ event_id: number }>('SELECT event_id FROM notify_outbox ORDER BY id');
    expect(outbox.map((o) => Number(o.event_id))).toEqual(rows.map((_, i) => i + 1));
  });
});
