/**
 * Issue 29: the router's cost per event. On SQLite the per-node status rows are kept in memory
 * across the router's chunks (store/notify-nodes-cache.ts); on both engines an event needs no
 * await when nothing waits. What must not change: the previous status each outbox row carries
 * (across chunks, after a rollback, after a restart), and the per-node rows in the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createEventRouter, routeStoredEvents } from '../../src/notify/route-pending.js';
import { NotifyStore, openDatabase, openPostgres, type AnyDb, type EventRow } from '../../src/store/index.js';
import { ENGINES, newPostgresUrl, notingStatements, type EngineName } from '../support/databases.js';
import { newWatch } from '../support/watch-row.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** Opens the same database again each call (a restart): a file on SQLite, one database on PostgreSQL. */
async function reopenable(engine: EngineName): Promise<() => Promise<AnyDb>> {
  let open: () => Promise<AnyDb>;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'rln-router-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    open = async () => openDatabase(join(dir, 'bot.db'));
  } else {
    const url = await newPostgresUrl();
    open = () => openPostgres(url);
  }
  return async () => {
    const db = await open();
    cleanup.push(() => db.close());
    return db;
  };
}

let seq = 0;
/** A webhook event: stored marked "not yet routed". */
const marked = (nodeId: string, status: string | null, over: Partial<EventRow> = {}): Omit<EventRow, 'id'> => {
  seq++;
  const ms = Date.parse('2026-04-16T12:00:00.000Z') + seq * 1000;
  return {
    dedupe_key: `ev-${seq}`,
    node_id: nodeId,
    node_name: null,
    event_type: 'NODE_STATUS_UPDATED',
    status,
    event_ts: new Date(ms).toISOString(),
    received_at: 1000 + seq,
    payload: '{}',
    event_ms: ms,
    route_pending: 1,
    ...over,
  };
};

const router = (store: NotifyStore, chunk = 2) => createEventRouter({ store, now: () => 5000, log: silentLogger, chunk });

/** The previous status on each event's outbox row, by event id. */
async function prevByEvent(store: NotifyStore): Promise<Map<number, string | null>> {
  return new Map((await store.outboxRows()).map((r) => [Number(r.event_id), r.prev_status]));
}

describe.each(ENGINES)('the router keeps the per-node rows, on %s', (engine) => {
  it('gives each event the status its node had before it, across chunks and after a restart', async () => {
    const open = await reopenable(engine);
    let db = await open();
    let store = new NotifyStore(db);
    await store.upsertWatch(newWatch());
    const seqOf = async (statuses: Array<[string, string | null]>) => {
      const ids: number[] = [];
      for (const [n, s] of statuses) ids.push((await store.insertEvent(marked(n, s)))!);
      return ids;
    };
    // Chunks of 2: n1's events fall in different chunks, a status-less event between them.
    const first = await seqOf([
      ['n1', 'RUNNING'],
      ['n2', 'RUNNING'],
      ['n1', 'FAILED'],
      ['n1', null],
      ['n2', 'STOPPED'],
      ['n1', 'RUNNING'],
    ]);
    expect(await router(store).routePending()).toBe(true);
    let prev = await prevByEvent(store);
    expect(first.map((id) => prev.get(id))).toEqual(['', '', 'RUNNING', 'FAILED', 'RUNNING', 'FAILED']);

    // A later pass of the same process, then another process on the same database.
    const second = await seqOf([['n1', 'PAUSED']]);
    await router(store).routePending();
    await db.close();
    db = await open();
    store = new NotifyStore(db);
    const third = await seqOf([
      ['n2', 'FAILED'],
      ['n1', 'RUNNING'],
      ['n3', 'RUNNING'],
    ]);
    await router(store).routePending();
    prev = await prevByEvent(store);
    expect([...second, ...third].map((id) => prev.get(id))).toEqual(['RUNNING', 'STOPPED', 'PAUSED', '']);
    expect((await store.nodeStates(['n1', 'n2', 'n3'])).get('n1')).toMatchObject({ last_id: third[1], last_status: 'RUNNING' });
  });

  it('forgets what a rolled-back chunk wrote: the next chunk reads the rows as committed', async () => {
    const open = await reopenable(engine);
    const store = new NotifyStore(await open());
    await store.upsertWatch(newWatch());
    const a = (await store.insertEvent(marked('n1', 'RUNNING')))!;
    await router(store).routePending();
    const b = (await store.insertEvent(marked('n1', 'FAILED')))!;
    // The chunk routes (and writes n1's row: FAILED), then its transaction fails.
    await expect(
      store.routingTx(async () => {
        await store.lockRouting();
        const events = await store.takeEventsToRoute(10);
        expect(events.map((e) => e.id)).toEqual([b]);
        await routeStoredEvents(store, await store.routingView(), events, 5000);
        expect((await store.nodeStates(['n1'])).get('n1')).toMatchObject({ last_id: b, last_status: 'FAILED' });
        throw new Error('the chunk failed');
      }),
    ).rejects.toThrow('the chunk failed');
    expect(await store.routingTx(() => store.nodeStates(['n1']))).toEqual(
      new Map([['n1', expect.objectContaining({ last_id: a, last_status: 'RUNNING' })]]),
    );
    // Routed again, it carries the status the node had before it.
    const c = (await store.insertEvent(marked('n1', 'STOPPED')))!;
    await router(store).routePending();
    const prev = await prevByEvent(store);
    expect([prev.get(a), prev.get(b), prev.get(c)]).toEqual(['', 'RUNNING', 'FAILED']);
    expect((await store.outboxRows()).filter((r) => Number(r.event_id) === b)).toHaveLength(1);
  });

  it('forgets what a savepoint rolled back, while the transaction around it commits', async () => {
    const open = await reopenable(engine);
    const store = new NotifyStore(await open());
    await store.routingTx(() => store.saveNodeStates([state('n1', 1, 'RUNNING')]));
    await store.routingTx(async () => {
      expect((await store.nodeStates(['n1'])).get('n1')?.last_status).toBe('RUNNING');
      await expect(
        store.tx(async () => {
          await store.saveNodeStates([state('n1', 2, 'FAILED')]);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      expect((await store.nodeStates(['n1'])).get('n1')?.last_status).toBe('RUNNING');
    });
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')?.last_status).toBe('RUNNING');
  });

  it('reads the rows again after a write it cannot follow (outside its transactions), from any store on the connection', async () => {
    const open = await reopenable(engine);
    const db = await open();
    const store = new NotifyStore(db);
    const other = new NotifyStore(db);
    await store.routingTx(() => store.saveNodeStates([state('n1', 1, 'RUNNING')]));
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')?.last_status).toBe('RUNNING');
    // Written in a transaction opened on the connection itself, in a plain one, and with none at all.
    await db.tx(() => other.saveNodeStates([state('n1', 2, 'FAILED')]));
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')?.last_status).toBe('FAILED');
    await other.tx(() => other.saveNodeStates([state('n1', 3, 'STOPPED')]));
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')?.last_status).toBe('STOPPED');
    await other.saveNodeStates([state('n1', 4, 'PAUSED')]);
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')?.last_status).toBe('PAUSED');
    // A write that the database merges away (an older id) leaves the kept row as stored.
    await other.routingTx(() => other.saveNodeStates([state('n1', 2, 'STOPPED')]));
    expect((await store.routingTx(() => store.nodeStates(['n1']))).get('n1')).toMatchObject({ last_id: 4, last_status: 'PAUSED' });
  });
});

const state = (node_id: string, id: number, status: string) => ({
  node_id,
  last_id: id,
  last_status: status,
  newest_id: id,
  newest_status: status,
  newest_event_ts: new Date(id * 1000).toISOString(),
  newest_ms: id * 1000,
});

describe('the router on SQLite, statement by statement', () => {
  it('reads a node row once, not per chunk, and writes the rows in one statement per chunk', async () => {
    const real = openDatabase(':memory:');
    cleanup.push(() => real.close());
    const { db, seen } = notingStatements(real);
    const store = new NotifyStore(db);
    await store.upsertWatch(newWatch());
    for (let i = 0; i < 6; i++) await store.insertEvent(marked(`n${i % 2}`, i % 3 ? 'RUNNING' : 'FAILED'));
    seen.length = 0;
    expect(await router(store).routePending()).toBe(true);
    // Three full chunks and an empty one: n0 and n1 read in the first chunk only.
    expect(seen.filter((s) => /FROM notify_nodes/.test(s))).toHaveLength(1);
    expect(seen.filter((s) => /INSERT INTO notify_nodes/.test(s))).toHaveLength(3);
  });
});
