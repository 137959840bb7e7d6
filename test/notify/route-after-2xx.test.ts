/**
 * Issue 18: the webhook's 2xx promises that the event is stored durably, and nothing more. Its
 * transaction stores the event marked "not yet routed"; the outbox worker routes it at the
 * start of its next pass (notify/route-pending.ts), exactly as ingestEvent routes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';
import { silentLogger } from '../../src/log.js';
import { OutboxWorker } from '../../src/notify/index.js';
import { createEventRouter } from '../../src/notify/route-pending.js';
import { NotifyStore, type AnyDb } from '../../src/store/index.js';
import { createNodeDirectory, KeyCache } from '../../src/webhooks/index.js';
import { twoConnections } from '../support/databases.js';
import {
  actor,
  fakeHosting,
  makeNotifier,
  node,
  RecordingPoster,
  slackPlace,
  startReceiver,
  statusPayload,
  tempDbPath,
  textOf,
  type Harness,
} from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';
import { newWatch } from '../support/watch-row.js';
import { makeKey } from '../webhooks/keys.js';
import { statusBadge } from '../../src/vocabulary/format.js';
import type { Message } from '../../src/vocabulary/index.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const key = makeKey('ed25519');
const sign = Object.values(key.signers)[0];

/** A notifier with its webhook receiver; the worker is not started (the test runs its passes). */
async function receiver(opts: { dbPath?: string; onNodeEvent?: (e: { nodeId: string; status?: string }) => void } = {}) {
  const hosting = fakeHosting([node('n1', 'alice'), node('n2', 'bob'), node('n3', 'carol')], key.encodings['JSON {publicKey: PEM}']);
  const slack = new RecordingPoster('slack');
  const h: Harness = makeNotifier({ posters: { slack }, hosting, dbPath: opts.dbPath, extra: { onNodeEvent: opts.onNodeEvent } });
  const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey() });
  const rx = await startReceiver(h.notifier, { keys, nodes: createNodeDirectory({ hosting, minRefreshMs: 0 }) }, silentLogger, h.metrics);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await rx.close();
    await h.close();
  };
  cleanup.push(close);
  const post = async (payload: unknown) => {
    const body = Buffer.from(JSON.stringify(payload));
    return fetch(`${rx.url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
      body: new Uint8Array(body),
    });
  };
  return { h, n: h.notifier, slack, post, close, url: rx.url };
}

const rowsOf = async (h: Harness) =>
  (await h.notifier.store.outboxRows()).map((r) => ({ channel: r.channel_id, event: r.event_id, state: r.state }));

describe('webhook events are routed after the 2xx, by the outbox worker', () => {
  it('answers 2xx with the event stored and no outbox row; the next pass routes it, dated at its arrival, then tells the listener', async () => {
    const told: Array<{ nodeId: string; status?: string }> = [];
    const t = await receiver({ onNodeEvent: (e) => told.push(e) });
    await t.n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    const res = await t.post(statusPayload('n1', 'PAUSED'));
    expect(res.status).toBe(202);
    const { eventId } = (await res.json()) as { eventId: number };
    // Stored durably, marked for the router; nothing routed in the request's transaction.
    expect(await t.h.db.value('SELECT route_pending FROM notify_events WHERE id = ?', [eventId])).toBe(1);
    expect(await t.n.store.outboxRows()).toEqual([]);
    expect(await t.n.store.eventsToRouteCount()).toBe(1);
    expect(told).toEqual([]);

    await t.n.tick();
    const [row] = await t.n.store.outboxRows();
    const receivedAt = await t.h.db.value<number>('SELECT received_at FROM notify_events WHERE id = ?', [eventId]);
    expect(row).toMatchObject({
      channel_id: 'C1',
      event_id: eventId,
      state: 'pending',
      created_at: receivedAt,
      next_attempt_at: receivedAt,
    });
    expect(await t.n.store.eventsToRouteCount()).toBe(0);
    expect(told).toEqual([{ nodeId: 'n1', status: 'PAUSED' }]);
    expect(await t.n.drain(3000)).toBe(true);
    expect(textOf(t.slack.posts('C1')[0].message)).toContain('PAUSED');
  });

  it('routes as ingestEvent does: a mute holds the row, a statuses filter drops a status, an open incident lets a filtered status through', async () => {
    const t = await receiver();
    await t.n.watches.add({ place: slackPlace('C1'), target: 'all', statuses: ['FAILED'], actor: actor() });
    await t.n.watches.add({ place: slackPlace('C2'), target: 'all', actor: actor() });
    await t.n.watches.add({ place: slackPlace('C3'), target: 'n1', actor: actor() });
    await t.n.watches.mute({ place: slackPlace('C2'), target: 'all', minutes: 60, actor: actor() });
    const ids: number[] = [];
    for (const p of [statusPayload('n1', 'PAUSED'), statusPayload('n2', 'FAILED')]) {
      const res = await t.post(p);
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { eventId: number }).eventId);
    }
    expect(await t.n.store.outboxRows()).toEqual([]);
    await t.n.tick();
    expect(await rowsOf(t.h)).toEqual([
      { channel: 'C2', event: ids[0], state: 'held' },
      { channel: 'C3', event: ids[0], state: 'pending' },
      { channel: 'C1', event: ids[1], state: 'pending' },
      { channel: 'C2', event: ids[1], state: 'held' },
    ]);
    expect(await t.n.drain(3000)).toBe(true);
    expect(t.slack.topLevel('C1')[0].message.header).toMatch(/Incident #\d+: bob is FAILED/);

    // RUNNING is not in C1's filter, but it resolves the incident open there for n2.
    const res = await t.post(statusPayload('n2', 'RUNNING'));
    const running = ((await res.json()) as { eventId: number }).eventId;
    const before = (await t.n.store.outboxRows()).length;
    await t.n.tick();
    expect((await rowsOf(t.h)).slice(before)).toEqual([
      { channel: 'C1', event: running, state: 'pending' },
      { channel: 'C2', event: running, state: 'held' },
    ]);
    expect(await t.n.drain(3000)).toBe(true);
    expect(t.slack.updates().at(-1)!.message.header).toMatch(/Resolved/);
  });

  it('routes nothing for a redelivery', async () => {
    const t = await receiver();
    await t.n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    const payload = statusPayload('n1', 'FAILED');
    expect((await t.post(payload)).status).toBe(202);
    await t.n.tick();
    const redelivered = await t.post(payload);
    expect(redelivered.status).toBe(200);
    expect(await t.n.store.eventsToRouteCount()).toBe(0);
    await t.n.tick();
    expect(await t.n.store.outboxRows()).toHaveLength(1);
  });

  it('commits a burst at once on SQLite, with no async transaction, and waits for one that holds the connection', async () => {
    const t = await receiver();
    const db = t.h.db;
    const tx = db.tx.bind(db);
    let transactions = 0;
    db.tx = <T>(fn: () => Promise<T>) => (transactions++, tx(fn));
    const burst = await Promise.all(['PAUSED', 'RUNNING', 'FAILED'].map((s, i) => t.post(statusPayload(`n${i + 1}`, s))));
    expect(burst.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(transactions).toBe(0);
    expect(await t.n.store.eventsToRouteCount()).toBe(3);
    // Another chain's transaction (the router's, the checkpointer's pause) holds the connection:
    // the event waits for it in tx(), and is answered once it is committed.
    let release!: () => void;
    const holding = tx(() => new Promise<void>((r) => (release = r)));
    let answered = false;
    const waiting = t.post(statusPayload('n1', 'STOPPED')).then((r) => ((answered = true), r));
    await waitFor(() => transactions === 1);
    expect(answered).toBe(false);
    release();
    await holding;
    expect((await waiting).status).toBe(202);
    expect(await t.n.store.eventsToRouteCount()).toBe(4);
  });

  it('never loses an event answered 2xx: stored with the worker stopped, the process closed, the next start routes and posts it', async () => {
    const file = tempDbPath();
    cleanup.push(file.cleanup);
    const a = await receiver({ dbPath: file.path });
    await a.n.watches.add({ place: slackPlace('C1'), target: 'n1', targetName: 'alice', actor: actor() });
    expect((await a.post(statusPayload('n1', 'STOPPED'))).status).toBe(202);
    expect(await a.n.store.outboxRows()).toEqual([]);
    await a.close();

    const b = await receiver({ dbPath: file.path });
    expect(await b.n.store.eventsToRouteCount()).toBe(1);
    b.n.start();
    const [post] = await waitFor(() => b.slack.posts('C1').length > 0 && b.slack.posts('C1'), {
      what: 'the event posted after the restart',
    });
    expect(textOf(post.message)).toContain('STOPPED');
    expect(await rowsOf(b.h)).toMatchObject([{ channel: 'C1', state: 'sent' }]);
    expect(await b.n.store.eventsToRouteCount()).toBe(0);
  });

  it('still posts what is queued when routing fails, and routes the event at a later pass', async () => {
    const t = await receiver();
    await t.n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    expect((await t.post(statusPayload('n1', 'FAILED'))).status).toBe(202);
    const take = t.n.store.takeEventsToRoute.bind(t.n.store);
    t.n.store.takeEventsToRoute = async () => {
      throw new Error('scripted routing failure');
    };
    await t.n.outbox.enqueue({ platform: 'slack', channelId: 'C2', kind: 'report', message: { header: 'Daily report', blocks: [] } });
    await waitFor(async () => (await t.n.tick(), t.slack.posts('C2').length > 0), {
      what: 'the report posted despite the routing failure',
    });
    expect(await t.n.store.eventsToRouteCount()).toBe(1);
    t.n.store.takeEventsToRoute = take;
    expect(await t.n.drain(3000)).toBe(true);
    expect(t.slack.topLevel('C1')[0].message.header).toMatch(/alice is FAILED/);
  });

  it('counts the events waiting to be routed in outbox_depth', async () => {
    const t = await receiver();
    const metrics = createMetrics({ defaults: false });
    // A worker whose router has not got to them yet (the pass after a backlog larger than it routes at once).
    const worker = new OutboxWorker({
      store: t.n.store,
      posters: {},
      prepareMessage: (m) => m,
      logger: silentLogger,
      metrics,
      now: Date.now,
      route: async () => false,
    });
    for (const s of ['PAUSED', 'STARTING', 'RUNNING']) expect((await t.post(statusPayload('n1', s))).status).toBe(202);
    await worker.tick();
    expect((await metrics.outboxDepth.get()).values[0].value).toBe(3);
  });
});

// Replicas share a database on PostgreSQL only (SQLite is one process: BEGIN IMMEDIATE takes turns).
describe('routers on postgres', () => {
  it('route each event once when two replicas route at the same time', async () => {
    const [a, b] = await twoConnections('postgres', cleanup);
    const storeA = new NotifyStore(a);
    const storeB = new NotifyStore(b);
    await storeA.upsertWatch(newWatch());
    const N = 400;
    await storeA.tx(async () => {
      for (let i = 0; i < N; i++) {
        await storeA.insertEvent({
          dedupe_key: `k${i}`,
          node_id: `n${i % 7}`,
          node_name: null,
          event_type: 'NODE_STATUS_UPDATED',
          status: 'PAUSED',
          event_ts: null,
          received_at: 1000 + i,
          payload: '{}',
          route_pending: 1,
        });
      }
    });
    const taken = { a: 0, b: 0 };
    for (const [store, who] of [
      [storeA, 'a'],
      [storeB, 'b'],
    ] as const) {
      const take = store.takeEventsToRoute.bind(store);
      store.takeEventsToRoute = async (n) => {
        const got = await take(n);
        taken[who] += got.length;
        return got;
      };
    }
    const router = (store: NotifyStore) => createEventRouter({ store, now: Date.now, log: silentLogger, chunk: 10, maxEvents: 10_000 });
    const [doneA, doneB] = await Promise.all([router(storeA).routePending(), router(storeB).routePending()]);
    expect([doneA, doneB]).toEqual([true, true]);
    // Both took part, and between them took each event once.
    expect(taken.a).toBeGreaterThan(0);
    expect(taken.b).toBeGreaterThan(0);
    expect(taken.a + taken.b).toBe(N);
    const events = await column(a, 'SELECT event_id FROM notify_outbox ORDER BY event_id');
    expect(events).toHaveLength(N);
    expect(new Set(events).size).toBe(N);
    expect(await storeA.eventsToRouteCount()).toBe(0);
  });
});

const column = async (db: AnyDb, sql: string) => (await db.column<number | string>(sql)).map(Number);

// Issue 29: what a round knows of a node's history comes from routing (the node's row, and the
// status before each event on its outbox rows), no longer from an index over every event.
describe('what a round knows of a node, for events that came by the webhook', () => {
  /** The first row of a digest's table: node, latest status, changes, events, other. */
  const digestRow = (message: Message): string[] | undefined => {
    for (const b of message.blocks) if (b.type === 'table') return b.table.rows[0];
    return undefined;
  };

  it("counts a node's changes from its status before the round's first event, including one no channel heard", async () => {
    const t = await receiver();
    await t.n.watches.add({
      place: slackPlace('C1'),
      target: 'n1',
      targetName: 'alice',
      statuses: ['STARTING', 'RUNNING'],
      actor: actor(),
    });
    // STARTING, posted on its own; then PAUSED, which this channel does not hear, but it is the node's status.
    expect((await t.post(statusPayload('n1', 'STARTING'))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    expect((await t.post(statusPayload('n1', 'PAUSED'))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    expect(t.slack.topLevel('C1')).toHaveLength(1);
    // One round: STARTING, RUNNING, STARTING after PAUSED: three changes (from PAUSED), three events.
    for (const s of ['STARTING', 'RUNNING', 'STARTING']) expect((await t.post(statusPayload('n1', s))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    const posts = t.slack.topLevel('C1');
    expect(posts).toHaveLength(2);
    const row = digestRow(posts[1].message)!;
    expect(row.slice(2, 4)).toEqual(['3', '3']);
    // Each outbox row carries the status its node had before the event, as the router saw it.
    // ('' for the first: none before it.) Without it the round would read them from the events table.
    const eventRows = (await t.n.store.outboxRows()).filter((r) => r.event_id !== null) as Array<{ prev_status?: string | null }>;
    expect(eventRows.map((r) => r.prev_status)).toEqual(['', 'PAUSED', 'STARTING', 'RUNNING']);
    // After STARTING, the same again counts two.
    for (const s of ['STARTING', 'RUNNING', 'STARTING']) expect((await t.post(statusPayload('n1', s))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    expect(digestRow(t.slack.topLevel('C1')[2].message)!.slice(2, 4)).toEqual(['2', '3']);
  });

  it('shows an older event delivered late as superseded by the newest status the node is known to have', async () => {
    const t = await receiver();
    await t.n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    const base = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const at = (s: number) => new Date(base + s * 1000).toISOString().replace('.000Z', 'Z');
    expect((await t.post(statusPayload('n1', 'RUNNING', at(5)))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    expect((await t.post(statusPayload('n1', 'FAILED', at(1)))).status).toBe(202);
    expect(await t.n.drain(3000)).toBe(true);
    expect(await t.n.store.incidents()).toHaveLength(0);
    const late = textOf(t.slack.topLevel('C1')[1].message);
    expect(late).toContain(`superseded by ${statusBadge('RUNNING')} at ${at(5)}`);
  });
});

describe('what the webhook stores of the body', () => {
  it('stores the body text as it came (without a byte order mark), and counts every event of a burst as accepted', async () => {
    const t = await receiver();
    const payload = statusPayload('n1', 'PAUSED');
    // Not how JSON.stringify writes it: the keys in another order, spaces and a newline.
    const text = `{\n  ${Object.entries(payload)
      .reverse()
      .map(([k, v]) => `${JSON.stringify(k)} : ${JSON.stringify(v)}`)
      .join(',\n  ')}\n}`;
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const res = await fetch(`${t.url}/webhooks/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(202);
    const { eventId } = (await res.json()) as { eventId: number };
    expect(await t.h.db.value('SELECT payload FROM notify_events WHERE id = ?', [eventId])).toBe(text);
    // A burst answered in one commit: each event counted, by the time its answer is read.
    const burst = await Promise.all([2, 3, 4, 5, 6].map((m) => t.post(statusPayload('n2', m % 2 ? 'PAUSED' : 'RUNNING'))));
    expect(burst.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    const accepted = (await t.h.metrics.registry.getSingleMetric('rln_chatops_webhooks_total')!.get()).values.find(
      (v) => v.labels.outcome === 'accepted',
    );
    expect(accepted?.value).toBe(6);
  });
});
