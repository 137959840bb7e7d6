/**
 * The notify room's repositories on both engines: the same calls, the same answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  groupCommit,
  NotifyPages,
  NotifyStore,
  storedEventKey,
  type AnyDb,
  type EventRow,
  type NodeStatusState,
} from '../../src/store/index.js';
import { ENGINES, notingStatements, openTestDb } from '../support/databases.js';

const event = (key: string, nodeId = 'n1', over: Partial<EventRow> = {}): Omit<EventRow, 'id'> => ({
  dedupe_key: key,
  node_id: nodeId,
  node_name: 'alice',
  event_type: 'NODE_STATUS_UPDATED',
  status: 'FAILED',
  event_ts: '2026-04-16T12:00:00.000Z',
  received_at: 1_776_340_800_000,
  payload: '{"a":1}',
  event_ms: 1_776_340_800_000,
  ...over,
});

const incident = (channel: string, nodeId: string) => ({
  platform: 'slack',
  channel_id: channel,
  node_id: nodeId,
  node_name: null,
  last_status: 'FAILED',
  opened_at: 10,
  message_id: null,
  thread_id: null,
  changes: 0,
});

describe.each(ENGINES)('notify repositories on %s', (engine) => {
  let db: AnyDb;
  let store: NotifyStore;
  beforeAll(async () => {
    db = await openTestDb(engine);
    store = new NotifyStore(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('stores an event once per dedupe key: a redelivery is undefined', async () => {
    const id = await store.insertEvent(event('e1'));
    expect(typeof id).toBe('number');
    expect(await store.insertEvent(event('e1'))).toBeUndefined();
    expect(await store.eventByKey('e1')).toMatchObject({ id, node_id: 'n1', event_ms: 1_776_340_800_000, received_at: 1_776_340_800_000 });
    const second = (await store.insertEvent(event('e2', 'n1', { status: 'RUNNING' })))!;
    expect(await store.previousStatus('n1', second)).toBe('FAILED');
    expect(await store.previousStatus('n1', id!)).toBeUndefined();
    expect(await store.countEvents()).toBe(2);
  });

  it('recognises a redelivery of an event whose key was stored as given (by a version before the keys were ordered by time)', async () => {
    await db.run(
      `INSERT INTO notify_events (dedupe_key, node_id, event_type, received_at, payload, event_ms) VALUES ('legacy-1', 'n1', 'NODE_STATUS_UPDATED', 1, '{}', 1776340800000)`,
    );
    expect(await store.insertEvent(event('legacy-1'))).toBeUndefined();
    expect(await store.insertEvent(event('legacy-2', 'n1', { event_ms: null }))).toBeTypeOf('number');
    expect(await store.insertEvent(event('legacy-2', 'n1', { event_ms: null }))).toBeUndefined();
    expect((await store.eventByKey('legacy-2'))?.dedupe_key).toBe('legacy-2');
  });

  it('stores a burst several rows per statement, answering as one insertEvent after the other would: ids in order, duplicates undefined', async () => {
    // Stored before: by insertEvent, and as given by an older version (no time in front of the key on SQLite).
    const before = (await store.insertEvent(event('b-old')))!;
    await db.run(
      `INSERT INTO notify_events (dedupe_key, node_id, event_type, received_at, payload, event_ms) VALUES ('b-bare', 'n1', 'NODE_STATUS_UPDATED', 1, '{}', 1776340800000)`,
    );
    // 23 events: 16 + 4 + 2 + 1 rows, so the answers cross statements. Each event its own time
    // and node name, to tell which of two events of one key was stored.
    const burst = Array.from({ length: 23 }, (_, i) =>
      event(`b-${i}`, `n${i % 3}`, { node_name: `name-${i}`, event_ms: 1_776_340_800_000 + i, route_pending: 1 }),
    );
    burst[3] = event('b-old', 'n1', { node_name: 'again' }); // stored before
    burst[7] = event('b-bare', 'n1', { node_name: 'again' }); // stored before, as given
    burst[20] = event('b-1', 'n1', { node_name: 'second of b-1', event_ms: 1_776_340_800_001 }); // earlier in this burst (another statement)
    burst[21] = event('b-nt', 'n1', { node_name: 'no time', event_ms: null }); // stored as given …
    burst[22] = event('b-nt', 'n1', { node_name: 'with a time' }); // … so a later one of that key is a duplicate
    const ids = await store.insertEvents(burst);
    const duplicates = [3, 7, 20, 22];
    expect(ids.map((id, i) => (duplicates.includes(i) ? id === undefined : typeof id === 'number'))).toEqual(burst.map(() => true));
    // Ids in the order given, each the id of its own event, stored as insertEvent would store it.
    const fresh = ids.filter((id): id is number => id !== undefined);
    expect(fresh).toEqual([...fresh].sort((a, b) => a - b));
    expect(fresh[0]).toBeGreaterThan(before);
    for (const [i, e] of burst.entries()) {
      if (duplicates.includes(i)) continue;
      expect(await store.eventByKey(e.dedupe_key)).toEqual({
        id: ids[i],
        ...e,
        event_ms: e.event_ms ?? null,
        route_pending: e.route_pending ?? null,
      });
    }
    expect((await store.eventByKey('b-1'))?.node_name).toBe('name-1');
    expect((await store.eventByKey('b-old'))?.id).toBe(before);
    expect((await store.eventByKey('b-nt'))?.node_name).toBe('no time');
    expect(await db.value('SELECT COUNT(*) FROM notify_events WHERE dedupe_key LIKE ?', ['%b-%'])).toBe(21);
    // A redelivery of the whole burst: every event a duplicate.
    expect(await store.insertEvents(burst)).toEqual(burst.map(() => undefined));
    expect(await store.insertEvents([])).toEqual([]);
  });

  it('writes a burst of 9 events in 2 statements (8 + 1 rows), where insertEvent takes 9', async () => {
    const { db: counting, seen } = notingStatements(db);
    const inserts = () => seen.filter((sql) => /INSERT INTO notify_events/.test(sql)).length;
    const counted = new NotifyStore(counting);
    const burst = Array.from({ length: 9 }, (_, i) => event(`s-${i}`, 'n1', { event_ms: 1_776_340_800_000 + i }));
    await counted.tx(() => counted.insertEvents(burst));
    expect(inserts()).toBe(2);
    seen.length = 0;
    await counted.tx(async () => {
      for (const e of burst.map((e) => ({ ...e, dedupe_key: `${e.dedupe_key}-one` }))) await counted.insertEvent(e);
    });
    expect(inserts()).toBe(9);
  });

  it('gives a long due backlog whole, oldest first, up to the limit (read in chunks)', async () => {
    const ids: number[] = [];
    await store.tx(async () => {
      for (let i = 0; i < 620; i++) {
        // Every fifth row is not due yet: the chunks must skip it, not stop at it.
        const at = i % 5 === 4 ? 5_000 : 10 + i;
        const id = (await store.insertOutbox({
          platform: 'slack',
          channel_id: 'LONG',
          kind: 'text',
          message: `{"i":${i}}`,
          next_attempt_at: at,
          created_at: 1,
        }))!;
        if (at < 5_000) ids.push(id);
      }
    });
    expect(ids.length).toBe(496);
    expect((await store.duePending('slack', 'LONG', 1_000)).map((r) => r.id)).toEqual(ids);
    expect((await store.duePending('slack', 'LONG', 1_000, 300)).map((r) => r.id)).toEqual(ids.slice(0, 300));
    expect((await store.duePending('slack', 'LONG', 1_000, 250)).map((r) => r.id)).toEqual(ids.slice(0, 250));
    expect(await store.duePending('slack', 'LONG', 5)).toEqual([]);
    // The other tests share this database: leave it as it was.
    await store.db.run("DELETE FROM notify_outbox WHERE channel_id = 'LONG'");
  });

  it('queues outbox rows, gives the due ones with their event, marks, postpones and prunes them', async () => {
    const eventId = (await store.insertEvent(event('o1', 'n7')))!;
    const a = await store.insertOutbox({
      platform: 'slack',
      channel_id: 'OB',
      kind: 'event',
      event_id: eventId,
      next_attempt_at: 100,
      created_at: 100,
    });
    const b = await store.insertOutbox({
      platform: 'slack',
      channel_id: 'OB',
      kind: 'report',
      message: '{}',
      dedupe_key: 'r1',
      next_attempt_at: 500,
      created_at: 100,
    });
    expect(a).toBeTypeOf('number');
    expect(b).toBeGreaterThan(a!);
    expect(
      await store.insertOutbox({
        platform: 'slack',
        channel_id: 'OB',
        kind: 'report',
        dedupe_key: 'r1',
        next_attempt_at: 1,
        created_at: 1,
      }),
    ).toBeUndefined();
    expect(await store.pendingChannels()).toContainEqual({ platform: 'slack', channel_id: 'OB', due: 100, oldest: 100 });
    const due = await store.duePending('slack', 'OB', 200);
    expect(due.map((r) => r.id)).toEqual([a]);
    expect(due[0]).toMatchObject({
      ev_node_id: 'n7',
      ev_status: 'FAILED',
      ev_received_at: 1_776_340_800_000,
      attempts: 0,
      held_by_mute: 0,
    });
    expect(await store.depth()).toBe(2);

    await store.postpone([b!], 900, 'HTTP 500', true);
    expect(await store.duePending('slack', 'OB', 600)).toEqual([expect.objectContaining({ id: a })]);
    expect((await store.outboxRows()).find((r) => r.id === b)).toMatchObject({ next_attempt_at: 900, attempts: 1, last_error: 'HTTP 500' });
    await store.markSent([a!], 300);
    expect((await store.outboxRows({ state: 'sent' })).map((r) => r.id)).toEqual([a]);
    expect(await store.pendingIdsOfChannel('slack', 'OB')).toEqual([b]);
    await store.markState([b!], 'failed', 'refused');
    expect(await store.depth()).toBe(0);

    // Pruned: done rows created before the cut, and old events no row refers to any more.
    const gone = await store.prune(2_000_000_000_000);
    expect(gone.outbox).toBe(2);
    expect(gone.events).toBeGreaterThanOrEqual(1);
    expect(await store.eventByKey('o1')).toBeUndefined();
  });

  it('marks, postpones, fails and releases many rows by id: each row once, whatever the number of ids', async () => {
    // 1,103 ids: lists of 500, 500 and 103 ids padded to 500 (the padding repeats an id, counted once).
    const ids: number[] = [];
    await store.tx(async () => {
      for (let i = 0; i < 1103; i++)
        ids.push(
          (await store.insertOutbox({
            platform: 'slack',
            channel_id: 'MANY',
            kind: 'text',
            message: '{}',
            next_attempt_at: 10,
            created_at: 1,
          }))!,
        );
    });
    const rows = async () => (await store.outboxRows()).filter((r) => r.channel_id === 'MANY');
    await store.postpone(ids, 900, 'HTTP 500', true);
    expect((await rows()).every((r) => r.attempts === 1 && r.next_attempt_at === 900 && r.last_error === 'HTTP 500')).toBe(true);
    await store.markSent(ids.slice(0, 1009), 300);
    await store.markState(ids.slice(1009, 1100), 'failed', 'refused');
    const after = await rows();
    expect(after.filter((r) => r.state === 'sent').map((r) => r.id)).toEqual(ids.slice(0, 1009));
    expect(after.filter((r) => r.state === 'sent').every((r) => r.sent_at === 300 && r.last_error === null)).toBe(true);
    expect(after.filter((r) => r.state === 'failed').map((r) => r.id)).toEqual(ids.slice(1009, 1100));
    expect(after.filter((r) => r.state === 'pending').map((r) => r.id)).toEqual(ids.slice(1100));
    // releaseHeld touches held rows only: a pending id in the list stays as it is.
    await store.db.run(`UPDATE notify_outbox SET state = 'held' WHERE id = ?`, [ids[1101]]);
    await store.releaseHeld([ids[1100], ids[1101]], 2000);
    const released = (await rows()).filter((r) => r.id >= ids[1100]);
    expect(released.map((r) => [r.state, r.next_attempt_at])).toEqual([
      ['pending', 900],
      ['pending', 2000],
      ['pending', 900],
    ]);
    await store.db.run("DELETE FROM notify_outbox WHERE channel_id = 'MANY'");
  });

  it("gives a due row's payload only where a message is made from it (not for a status event)", async () => {
    const status = (await store.insertEvent(event('pl1', 'n9', { status: 'RUNNING', payload: '{"big":1}' })))!;
    const created = (await store.insertEvent(
      event('pl2', 'n9', { event_type: 'NODE_CREATED', status: null, payload: '{"details":{"x":1}}' }),
    ))!;
    const activity = (await store.insertEvent(
      event('pl3', 'n9', { event_type: 'ACTIVITY_PAYMENT_RECEIVED', status: null, payload: '{"message":{}}' }),
    ))!;
    const typed = (await store.insertEvent(
      event('pl4', 'n9', { event_type: 'NODE_RESTARTED', status: 'RUNNING', payload: '{"details":{"y":2}}' }),
    ))!;
    for (const e of [status, created, activity, typed])
      await store.insertOutbox({ platform: 'slack', channel_id: 'PL', kind: 'event', event_id: e, next_attempt_at: 1, created_at: 1 });
    const due = await store.duePending('slack', 'PL', 10);
    expect(due.map((r) => [r.ev_event_type, r.ev_status, r.ev_payload])).toEqual([
      ['NODE_STATUS_UPDATED', 'RUNNING', null],
      ['NODE_CREATED', null, '{"details":{"x":1}}'],
      ['ACTIVITY_PAYMENT_RECEIVED', null, '{"message":{}}'],
      ['NODE_RESTARTED', 'RUNNING', '{"details":{"y":2}}'],
    ]);
    await store.db.run("DELETE FROM notify_outbox WHERE channel_id = 'PL'");
  });

  it("gives a channel's open incidents in one read", async () => {
    const a = await store.insertIncident(incident('OI', 'n1'));
    const b = await store.insertIncident(incident('OI', 'n2'));
    await store.insertIncident(incident('OTHER', 'n1'));
    await store.updateIncident(b, { state: 'resolved', resolved_at: 20 });
    const c = await store.insertIncident(incident('OI', 'n2'));
    expect((await store.openIncidentsOf('slack', 'OI')).map((i) => [i.id, i.node_id])).toEqual([
      [a, 'n1'],
      [c, 'n2'],
    ]);
    expect(await store.openIncidentsOf('slack', 'NONE')).toEqual([]);
  });

  it('holds rows while a mute covers them and releases them when it ends', async () => {
    const eventId = (await store.insertEvent(event('h1', 'n8')))!;
    await store.upsertMute({ platform: 'slack', channel_id: 'HM', target: 'n8', until: 1000, muted_by: 't', created_at: 1 });
    expect((await store.activeMute('slack', 'HM', 'n8', 500))?.muted_by).toBe('t');
    const id = (await store.insertOutbox({
      platform: 'slack',
      channel_id: 'HM',
      kind: 'event',
      event_id: eventId,
      state: 'held',
      held_by_mute: 1,
      next_attempt_at: 1,
      created_at: 1,
    }))!;
    expect(await store.releasableHeldIds(500)).toEqual([]);
    // A held row waits (the depth counts it) but is no channel's pending work until released.
    expect(await store.depth()).toBe(1);
    expect((await store.pendingChannels()).filter((c) => c.channel_id === 'HM')).toEqual([]);
    expect(await store.releasableHeldIds(1000)).toEqual([id]);
    await store.releaseHeld([id], 1000);
    expect(await store.depth()).toBe(1);
    expect(await store.pendingChannels()).toContainEqual({ platform: 'slack', channel_id: 'HM', due: 1000, oldest: 1 });
    expect((await store.duePending('slack', 'HM', 1000)).map((r) => r.id)).toEqual([id]);
    expect(await store.mutes('slack', 'HM')).toHaveLength(1);
    expect(await store.deleteMutes('slack', 'HM')).toBe(1);
    expect(await store.activeMute('slack', 'HM', 'n8', 500)).toBeUndefined();
  });

  it('upserts a watch (keeping its id), lists, filters and deletes watches', async () => {
    const w = {
      platform: 'slack',
      channel_id: 'W1',
      workspace_id: 'T1',
      target: 'n1',
      target_name: 'alice',
      statuses: null,
      kinds: 'status,payments',
      min_amount_msat: 5_000_000_000,
      escalate_after_min: 2.5,
      pagerduty_key: null,
      created_by: 'me',
      created_at: 1,
    };
    const first = await store.upsertWatch(w);
    const again = await store.upsertWatch({ ...w, statuses: 'FAILED' });
    expect(again).toMatchObject({
      id: first.id,
      statuses: 'FAILED',
      min_amount_msat: 5_000_000_000,
      escalate_after_min: 2.5,
      paused_at: null,
    });
    await store.upsertWatch({ ...w, channel_id: 'W2', platform: 'discord' });
    expect((await store.watches({ platform: 'slack', channelId: 'W1' })).map((x) => x.target)).toEqual(['n1']);
    expect((await store.watches({ platform: 'discord' })).map((x) => x.channel_id)).toEqual(['W2']);
    expect(await store.deleteWatch('discord', 'W2', 'n1')).toBe(true);
    expect(await store.deleteWatch('discord', 'W2', 'n1')).toBe(false);
  });

  it('keeps one open incident per channel and node (a partial unique index), and updates it', async () => {
    const id = await store.insertIncident(incident('I1', 'n1'));
    await expect(store.insertIncident(incident('I1', 'n1'))).rejects.toThrow(/unique/i);
    expect((await store.openIncident('slack', 'I1', 'n1'))?.id).toBe(id);
    await store.setIncidentMessage(id, 'm1', 't1');
    await store.updateIncident(id, { state: 'resolved', resolved_at: 99, changes: 3 });
    expect(await store.openIncident('slack', 'I1', 'n1')).toBeUndefined();
    expect(await store.incident(id)).toMatchObject({
      state: 'resolved',
      resolved_at: 99,
      changes: 3,
      message_id: 'm1',
      thread_id: 't1',
      escalated_at: null,
    });
    // Resolved, it no longer blocks a new open one.
    const next = await store.insertIncident(incident('I1', 'n1'));
    expect(next).toBeGreaterThan(id);
    await store.clearIncidentMessage(id);
    expect((await store.incident(id))?.message_id).toBeNull();
    expect((await store.incidents({ platform: 'slack', channelId: 'I1', state: 'open' })).map((i) => i.id)).toEqual([next]);
    await store.deleteIncident(next);
    expect(await store.incidents({ channelId: 'I1', state: 'open' })).toEqual([]);
  });

  it('records notices and when the last one of a kind was', async () => {
    expect(await store.lastNoticeAt('slack', 'N1', 'channel_gone')).toBeUndefined();
    const id = await store.insertNotice({ platform: 'slack', channel_id: 'N1', kind: 'channel_gone', text: 'gone', created_at: 5 });
    await store.insertNotice({ platform: 'slack', channel_id: 'N1', kind: 'channel_gone', text: 'gone', created_at: 7 });
    expect(id).toBeTypeOf('number');
    expect(await store.lastNoticeAt('slack', 'N1', 'channel_gone')).toBe(7);
    expect((await store.notices()).filter((n) => n.channel_id === 'N1')).toHaveLength(2);
  });

  it('escalates an incident once and keeps its pages in order until they are answered', async () => {
    const pages = new NotifyPages(db);
    const id = await store.insertIncident({ ...incident('P1', 'n1'), message_id: 'm9' });
    expect((await pages.unpagedOpenIncidents()).map((i) => i.id)).toContain(id);
    await pages.tx(async () => {
      await pages.insertEscalation({ incident_id: id, escalated_at: 10, escalated_to: 'PagerDuty' });
      await pages.insertEscalation({ incident_id: id, escalated_at: 11, escalated_to: 'again' }); // ignored
      await pages.insertPage({ incident_id: id, action: 'trigger', target: 'pagerduty', body: '{}', next_attempt_at: 10, created_at: 10 });
    });
    expect((await pages.unpagedOpenIncidents()).map((i) => i.id)).not.toContain(id);
    expect(await pages.escalation(id)).toMatchObject({ escalated_to: 'PagerDuty', ack_queued: 0, resolve_queued: 0 });
    expect((await store.incident(id))?.escalated_to).toBe('PagerDuty');

    await store.updateIncident(id, { acked_by: 'me', acked_at: 20 });
    expect((await pages.pagedToFollowUp('ack')).map((i) => i.id)).toEqual([id]);
    await pages.markQueued(id, 'ack');
    expect(await pages.pagedToFollowUp('ack')).toEqual([]);
    await pages.insertPage({
      incident_id: id,
      action: 'acknowledge',
      target: 'pagerduty',
      body: '{}',
      next_attempt_at: 20,
      created_at: 20,
    });

    const [trigger, ack] = await pages.duePages(30);
    expect([trigger.action, ack.action]).toEqual(['trigger', 'acknowledge']);
    expect(await pages.earlierPending(trigger)).toBe(false);
    expect(await pages.earlierPending(ack)).toBe(true);
    await pages.postponePage(trigger.id, 100, 'HTTP 503');
    expect((await pages.duePages(30)).map((p) => p.id)).toEqual([ack.id]);
    await pages.markPageSent(trigger.id, 101);
    expect(await pages.earlierPending(ack)).toBe(false);
    await pages.markPageFailed(ack.id, 'HTTP 400');
    expect((await pages.pages()).map((p) => [p.state, p.attempts])).toEqual([
      ['sent', 2],
      ['failed', 1],
    ]);
    expect((await pages.triggersOf(id)).map((p) => p.id)).toEqual([trigger.id]);
  });

  it('commits a webhook burst together, rolling back only the item that failed', async () => {
    // Each item stores an event and opens an incident: the second incident of one node in one
    // channel breaks the unique index, and that item's event goes back with it.
    const write = groupCommit(
      (fn) => store.tx(fn),
      async (item: { key: string; node: string }) => {
        const eventId = await store.insertEvent(event(item.key, item.node));
        await store.insertIncident(incident('GC', item.node));
        return eventId;
      },
      () => store.routingView(),
    );
    const results = await Promise.allSettled([
      write({ key: 'g1', node: 'x' }),
      write({ key: 'g2', node: 'x' }),
      write({ key: 'g3', node: 'y' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.eventByKey('g1')).toBeDefined();
    expect(await store.eventByKey('g2')).toBeUndefined();
    expect(await store.eventByKey('g3')).toBeDefined();
    expect((await store.incidents({ channelId: 'GC' })).map((i) => i.node_id)).toEqual(['x', 'y']);
  });

  it('writes a webhook burst with insertEvents, and when that fails, each event alone: only the one that fails is refused', async () => {
    const write = groupCommit(
      (fn) => store.tx(fn),
      (e: Omit<EventRow, 'id'>) => store.insertEvent(e),
      { writeMany: (es) => store.insertEvents(es) },
    );
    const ok = await Promise.all([write(event('w1')), write(event('w2')), write(event('w1'))]);
    expect(ok.map((id) => typeof id)).toEqual(['number', 'number', 'undefined']);
    // A row the table refuses (no node) fails the multi-row INSERT: the second pass writes each alone.
    const results = await Promise.allSettled([
      write(event('w3')),
      write(event('w4', null as unknown as string)),
      write(event('w2')),
      write(event('w5')),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? typeof r.value : 'rejected'))).toEqual([
      'number',
      'rejected',
      'undefined',
      'number',
    ]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/null/i);
    expect(await store.eventByKey('w3')).toBeDefined();
    expect(await store.eventByKey('w4')).toBeUndefined();
    expect(await store.eventByKey('w5')).toBeDefined();
  });
});

describe('dedupe keys on SQLite', () => {
  it("are stored in the order of their events' times, so the unique index grows at its end", async () => {
    const db = await openTestDb('sqlite');
    const store = new NotifyStore(db);
    // Hash-like keys in no order, for events in time order.
    const keys = ['f3a1', '07c2', 'b9e0', '4d55', 'e018', '2a7b'];
    for (const [i, k] of keys.entries()) await store.insertEvent(event(k, 'n1', { event_ms: 1_776_340_800_000 + i * 1000 }));
    const byKey = await db.column<number>('SELECT id FROM notify_events ORDER BY dedupe_key');
    expect(byKey).toEqual([...byKey].sort((a, b) => a - b));
    // Still one event per key, found by the key it was given.
    for (const [i, k] of keys.entries()) {
      expect(await store.insertEvent(event(k, 'n1', { event_ms: 1_776_340_800_000 + i * 1000 }))).toBeUndefined();
      expect((await store.eventByKey(k))?.dedupe_key).toBe(k);
    }
    expect(storedEventKey('k', 1_776_340_800_000)).toBe(storedEventKey('k', 1_776_340_800_000));
    expect(storedEventKey('k', null)).toBeUndefined();
    expect(storedEventKey('k', -1)).toBeUndefined();
    await db.close();
  });
});

describe.each(ENGINES)('events stored but not yet routed, on %s', (engine) => {
  let db: AnyDb;
  let store: NotifyStore;
  beforeAll(async () => {
    db = await openTestDb(engine);
    store = new NotifyStore(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('takes the marked events oldest first, a chunk at a time, marks them routed, and leaves unmarked events alone', async () => {
    const marked: number[] = [];
    for (let i = 0; i < 5; i++)
      marked.push(
        (await store.insertEvent(
          event(`rp-${i}`, `n${i}`, { status: i === 2 ? null : 'PAUSED', received_at: 1000 + i, route_pending: 1 }),
        ))!,
      );
    const plain = (await store.insertEvent(event('rp-plain')))!;
    expect(await store.eventsToRouteCount()).toBe(5);
    const first = await store.tx(() => store.takeEventsToRoute(3));
    expect(first).toEqual([
      { id: marked[0], node_id: 'n0', status: 'PAUSED', event_ts: '2026-04-16T12:00:00.000Z', received_at: 1000 },
      { id: marked[1], node_id: 'n1', status: 'PAUSED', event_ts: '2026-04-16T12:00:00.000Z', received_at: 1001 },
      { id: marked[2], node_id: 'n2', status: null, event_ts: '2026-04-16T12:00:00.000Z', received_at: 1002 },
    ]);
    expect(await store.eventsToRouteCount()).toBe(2);
    expect((await store.tx(() => store.takeEventsToRoute(3))).map((e) => e.id)).toEqual([marked[3], marked[4]]);
    expect(await store.tx(() => store.takeEventsToRoute(3))).toEqual([]);
    expect(await store.eventsToRouteCount()).toBe(0);
    expect(await db.value('SELECT route_pending FROM notify_events WHERE id = ?', [plain])).toBeUndefined();
  });

  it('gives the marks back when the transaction that took them rolls back', async () => {
    const id = (await store.insertEvent(event('rp-rollback', 'n1', { route_pending: 1 })))!;
    await expect(
      store.tx(async () => {
        expect((await store.takeEventsToRoute(10)).map((e) => e.id)).toEqual([id]);
        throw new Error('routing failed');
      }),
    ).rejects.toThrow('routing failed');
    expect(await store.eventsToRouteCount()).toBe(1);
    expect((await store.tx(() => store.takeEventsToRoute(10))).map((e) => e.id)).toEqual([id]);
  });

  it("writes routed events' outbox rows several per statement, in the order given", async () => {
    const id = (await store.insertEvent(event('rp-rows', 'n1')))!;
    const rows = Array.from({ length: 75 }, (_, i) => ({
      platform: 'slack',
      channel_id: `RC${i}`,
      event_id: id,
      state: i % 10 === 0 ? ('held' as const) : ('pending' as const),
      held_by_mute: i % 10 === 0 ? (1 as const) : (0 as const),
      at: 5000 + i,
    }));
    await store.insertEventRows(rows);
    await store.insertEventRows([]);
    const got = (await store.outboxRows()).filter((r) => r.channel_id.startsWith('RC'));
    expect(got.map((r) => r.channel_id)).toEqual(rows.map((r) => r.channel_id));
    expect(got[10]).toMatchObject({
      platform: 'slack',
      kind: 'event',
      event_id: id,
      state: 'held',
      held_by_mute: 1,
      next_attempt_at: 5010,
      created_at: 5010,
      dedupe_key: null,
      attempts: 0,
    });
    expect(got[74]).toMatchObject({ state: 'pending', held_by_mute: 0, next_attempt_at: 5074, created_at: 5074 });
  });

  it('takes an event stored after a pass, after unmarked ones, and never one twice', async () => {
    await store.tx(() => store.takeEventsToRoute(100));
    const plain = (await store.insertEvent(event('rp-later-plain')))!;
    expect(await store.tx(() => store.takeEventsToRoute(10))).toEqual([]);
    const later = (await store.insertEvent(event('rp-later', 'n1', { route_pending: 1 })))!;
    expect(later).toBeGreaterThan(plain);
    expect(await store.eventsToRouteCount()).toBe(1);
    expect((await store.tx(() => store.takeEventsToRoute(10))).map((e) => e.id)).toEqual([later]);
    expect(await store.tx(() => store.takeEventsToRoute(10))).toEqual([]);
    expect(await store.eventsToRouteCount()).toBe(0);
  });

  it('does not prune an event not yet routed, however old', async () => {
    const old = (await store.insertEvent(event('rp-old', 'n1', { received_at: 5, event_ms: 5, route_pending: 1 })))!;
    const routed = (await store.insertEvent(event('rp-old-routed', 'n1', { received_at: 5, event_ms: 5 })))!;
    await store.prune(10_000);
    const left = await db.column<number>('SELECT id FROM notify_events WHERE id IN (?, ?)', [old, routed]);
    expect(left.map(Number)).toEqual([old]);
    expect((await store.tx(() => store.takeEventsToRoute(10))).map((e) => e.id)).toEqual([old]);
    // Once routed (and no outbox row refers to it), it goes.
    await store.prune(10_000);
    expect(await db.column<number>('SELECT id FROM notify_events WHERE id = ?', [old])).toEqual([]);
  });
});

describe.each(ENGINES)('the per-node status rows, on %s', (engine) => {
  let db: AnyDb;
  let store: NotifyStore;
  beforeAll(async () => {
    db = await openTestDb(engine);
    store = new NotifyStore(db);
  });
  afterAll(async () => {
    await db.close();
  });

  const state = (over: Partial<NodeStatusState> & { node_id: string }): NodeStatusState => ({
    last_id: 1,
    last_status: 'RUNNING',
    newest_id: 1,
    newest_status: 'RUNNING',
    newest_event_ts: '2026-04-16T12:00:00.000Z',
    newest_ms: Date.parse('2026-04-16T12:00:00.000Z'),
    ...over,
  });

  it('are read back as written, and a write merges: the later id, the later event time (then the later id) win', async () => {
    await store.saveNodeStates([state({ node_id: 'a' }), state({ node_id: 'b', last_id: 5, last_status: 'FAILED' })]);
    expect(await store.nodeStates(['a', 'b', 'none'])).toEqual(
      new Map([
        ['a', state({ node_id: 'a' })],
        ['b', state({ node_id: 'b', last_id: 5, last_status: 'FAILED' })],
      ]),
    );
    // An older last status (a router that read before another's commit) does not move the row back; a newer time does.
    await store.saveNodeStates([
      state({
        node_id: 'b',
        last_id: 3,
        last_status: 'STOPPED',
        newest_id: 3,
        newest_status: 'STOPPED',
        newest_ms: 9e12,
        newest_event_ts: 'later',
      }),
    ]);
    expect((await store.nodeStates(['b'])).get('b')).toMatchObject({
      last_id: 5,
      last_status: 'FAILED',
      newest_id: 3,
      newest_status: 'STOPPED',
    });
    // An older time does not; the same time with a later id does.
    await store.saveNodeStates([
      state({ node_id: 'b', last_id: 7, last_status: 'PAUSED', newest_id: 7, newest_status: 'PAUSED', newest_ms: 1 }),
    ]);
    expect((await store.nodeStates(['b'])).get('b')).toMatchObject({
      last_id: 7,
      last_status: 'PAUSED',
      newest_id: 3,
      newest_status: 'STOPPED',
    });
    await store.saveNodeStates([state({ node_id: 'b', last_id: 8, newest_id: 8, newest_status: 'RUNNING', newest_ms: 9e12 })]);
    expect((await store.nodeStates(['b'])).get('b')).toMatchObject({ last_id: 8, newest_id: 8, newest_status: 'RUNNING', newest_ms: 9e12 });
  });

  it('reads and writes many nodes at once (a router chunk of 50 and more)', async () => {
    const many = Array.from({ length: 73 }, (_, i) => state({ node_id: `m${i}`, last_id: i + 1 }));
    await store.saveNodeStates(many);
    const got = await store.nodeStates(many.map((s) => s.node_id));
    expect([...got.values()].map((s) => s.last_id).sort((x, y) => x - y)).toEqual(many.map((s) => s.last_id));
  });
});
