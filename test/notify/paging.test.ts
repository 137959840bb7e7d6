// Paging on-call from a real SQLite store to the fake PagerDuty Events v2 on loopback: when an
// incident is due, what a refusal or a throttle does, and that a page survives a restart.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createPaging, dedupKeyOf } from '../../src/notify/index.js';
import { NotifyPages, NotifyStore, createLeases, openDatabase, type Db } from '../../src/store/index.js';
import { startFakePagerDuty, type FakePagerDuty } from '../fakes/pagerduty/index.js';
import { twoConnections } from '../support/databases.js';
import { tempDbPath } from '../support/notify.js';
import { newWatch } from '../support/watch-row.js';

const KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function world(opts: { routingKey?: string; watchKey?: string; escalateAfter?: number } = {}) {
  const pd: FakePagerDuty = await startFakePagerDuty();
  cleanup.push(() => pd.close());
  const file = tempDbPath();
  cleanup.push(() => file.cleanup());
  let clock = 1_000_000;
  const dbs: Db[] = [];
  const open = () => {
    const db = openDatabase(file.path);
    dbs.push(db);
    cleanup.push(() => db.open && db.close());
    const store = new NotifyStore(db);
    const metrics = createMetrics({ defaults: false });
    const paging = createPaging({
      store,
      pages: new NotifyPages(db),
      now: () => clock,
      log: silentLogger,
      metrics,
      pagerduty: { url: pd.eventsUrl, routingKey: opts.routingKey ?? KEY },
      escalateAfterMin: 10,
      retry: { baseDelayMs: 1000 },
      wake: () => undefined,
    });
    return { store, paging, metrics, db };
  };
  const first = open();
  await first.store.upsertWatch({
    platform: 'slack',
    channel_id: 'C1',
    workspace_id: null,
    target: 'n1',
    target_name: 'alice',
    statuses: null,
    kinds: null,
    min_amount_msat: null,
    escalate_after_min: opts.escalateAfter ?? null,
    pagerduty_key: opts.watchKey ?? null,
    created_by: 'test',
    created_at: clock,
  });
  const incident = await first.store.insertIncident({
    platform: 'slack',
    channel_id: 'C1',
    node_id: 'n1',
    node_name: 'alice',
    last_status: 'FAILED',
    opened_at: clock,
    message_id: 'm1',
    thread_id: null,
    changes: 0,
  });
  return { pd, open, first, incident, advance: (ms: number) => (clock += ms) };
}

describe('paging on-call', () => {
  it('pages nobody before the delay, then triggers PagerDuty once with the incident as dedup_key and tells the channel', async () => {
    const w = await world();
    w.advance(9 * 60_000);
    await w.first.paging.tick();
    expect(w.pd.events).toEqual([]);
    w.advance(60_000);
    await w.first.paging.tick();
    await w.first.paging.tick();
    expect(w.pd.events).toHaveLength(1);
    expect(w.pd.events[0]).toMatchObject({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: dedupKeyOf(w.incident),
      payload: { source: 'alice', severity: 'critical' },
    });
    expect(await w.first.store.incident(w.incident)).toMatchObject({ escalated_to: 'PagerDuty' });
    // The incident message is refreshed with the escalation (an outbox row naming the incident).
    expect(
      (await w.first.store.outboxRows()).some((r) => r.incident_id === w.incident && r.note?.startsWith('Escalated to PagerDuty')),
    ).toBe(true);
  });

  it("uses the watch's own delay and routing key over the defaults", async () => {
    const own = 'W4TCHKEY0123456789abcdefABCDEF00';
    const w = await world({ watchKey: own, escalateAfter: 1 });
    w.advance(60_000);
    await w.first.paging.tick();
    expect(w.pd.events.map((e) => e.routing_key)).toEqual([own]);
  });

  it('retries a throttled (429) or failing (5xx) page with backoff until PagerDuty takes it', async () => {
    const w = await world();
    w.pd.failNext(429);
    w.advance(10 * 60_000);
    await w.first.paging.tick();
    expect(w.pd.answers).toEqual([429]);
    await w.first.paging.tick();
    expect(w.pd.answers).toEqual([429]); // not due again before Retry-After
    w.advance(1000);
    w.pd.failNext(503);
    await w.first.paging.tick();
    w.advance(500);
    await w.first.paging.tick();
    expect(w.pd.answers).toEqual([429, 503]); // backoff: not due yet
    w.advance(5000);
    await w.first.paging.tick();
    expect(w.pd.answers).toEqual([429, 503, 202]);
    const text = await w.first.metrics.registry.metrics();
    expect(text).toMatch(/rln_chatops_escalations_total\{target="pagerduty",action="trigger",outcome="retry"\} 2/);
    expect(text).toMatch(/rln_chatops_escalations_total\{target="pagerduty",action="trigger",outcome="sent"\} 1/);
  });

  it('gives up a page PagerDuty refuses as invalid (400), without retrying it', async () => {
    const w = await world({ routingKey: 'too-short' });
    w.advance(10 * 60_000);
    await w.first.paging.tick();
    w.advance(60 * 60_000);
    await w.first.paging.tick();
    expect(w.pd.answers).toEqual([400]);
    expect((await new NotifyPages(w.first.db).pages())[0]).toMatchObject({
      state: 'failed',
      last_error: expect.stringContaining('Event object is invalid'),
    });
  });

  it('keeps a page that could not be sent across a restart, and sends it from the next process', async () => {
    const w = await world();
    w.pd.failNext(500);
    w.advance(10 * 60_000);
    await w.first.paging.tick();
    await w.first.paging.stop();
    void w.first.db.close();
    const second = w.open();
    w.advance(10_000);
    await second.paging.tick();
    expect(w.pd.events.map((e) => e.event_action)).toEqual(['trigger']);
    expect(w.pd.answers).toEqual([500, 202]);
  });

  it('acknowledges and then resolves the page, in order, once the incident is acknowledged and resolved', async () => {
    const w = await world();
    w.advance(10 * 60_000);
    await w.first.paging.tick();
    await w.first.store.updateIncident(w.incident, { acked_by: 'slack:U1', acked_at: 1 });
    await w.first.paging.tick();
    await w.first.store.updateIncident(w.incident, { state: 'resolved', resolved_at: 2 });
    await w.first.paging.tick();
    await w.first.paging.tick();
    expect(w.pd.events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(w.pd.alerts.get(dedupKeyOf(w.incident))).toBe('resolved');
  });
});

describe('paging from two replicas on PostgreSQL', () => {
  /** Two replicas on one PostgreSQL database, with one incident due for escalation. */
  async function twoReplicas(o: { delayMs: number; passLeaseMs?: number }) {
    const pd = await startFakePagerDuty();
    cleanup.push(() => pd.close());
    pd.delayMs = o.delayMs;
    const passLeaseMs = o.passLeaseMs;
    const [a, b] = await twoConnections('postgres', cleanup);
    const opened = Date.now() - 11 * 60_000;
    const replicas = [a, b].map((db, i) => {
      const leases = createLeases(db);
      return {
        store: new NotifyStore(db),
        paging: createPaging({
          store: new NotifyStore(db),
          pages: new NotifyPages(db),
          now: Date.now,
          log: silentLogger,
          pagerduty: { url: pd.eventsUrl, routingKey: KEY },
          webhook: { url: pd.hookUrl },
          escalateAfterMin: 10,
          // A pass lease much shorter than a send: the other replica runs a pass while this one sends.
          claimPass: passLeaseMs === undefined ? undefined : (now) => leases.claim('notify:paging', `replica-${i}`, now + passLeaseMs, now),
          wake: () => undefined,
        }),
      };
    });
    await replicas[0].store.upsertWatch(newWatch({ target: 'n1', target_name: 'alice', created_at: opened }));
    await replicas[0].store.insertIncident({
      platform: 'slack',
      channel_id: 'C1',
      node_id: 'n1',
      node_name: 'alice',
      last_status: 'FAILED',
      opened_at: opened,
      message_id: 'm1',
      thread_id: null,
      changes: 0,
    });
    return { pd, replicas };
  }

  it('sends each page once, even when a slow send outlasts the pass lease and the other replica takes it', async () => {
    const { pd, replicas } = await twoReplicas({ delayMs: 400, passLeaseMs: 50 });
    const first = replicas[0].paging.tick();
    await new Promise((r) => setTimeout(r, 150));
    const second = replicas[1].paging.tick();
    await Promise.all([first, second]);
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all(replicas.map((r) => r.paging.tick()));
    expect(pd.events.map((e) => e.event_action)).toEqual(['trigger']);
    expect(pd.hooks).toHaveLength(1);
    expect(
      (await replicas[0].store.db.all<{ state: string }>('SELECT state FROM notify_page_outbox ORDER BY id')).map((r) => r.state),
    ).toEqual(['sent', 'sent']);
  });

  it('queues one trigger when both replicas escalate the same incident at once (no pass lease between them)', async () => {
    const { pd, replicas } = await twoReplicas({ delayMs: 0 });
    await Promise.all(replicas.map((r) => r.paging.tick()));
    await Promise.all(replicas.map((r) => r.paging.tick()));
    expect(pd.events.map((e) => e.event_action)).toEqual(['trigger']);
    expect(pd.hooks).toHaveLength(1);
    expect(await replicas[0].store.db.all('SELECT incident_id FROM notify_escalations')).toHaveLength(1);
  });
});
