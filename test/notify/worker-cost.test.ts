/**
 * What the outbox worker costs the process besides posting (issue 18): it does not read the
 * outbox at every poll while nothing can start, and a round of many rows is carried out in
 * slices with the event loop let through between them, marking every row with a few statements.
 * Counted (passes, statements, turns of the event loop), never timed; the store is real SQLite.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboxWorker } from '../../src/notify/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { NotifyStore, openDatabase, type Db } from '../../src/store/index.js';
import { actor, ingest, makeNotifier, prepareMessage, RecordingPoster, slackPlace, type Harness } from '../support/notify.js';
import { countLoopTurns } from '../support/loop-turns.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanup.length) await cleanup.pop()!();
});

/** A poster whose posts wait while it is closed (`close()` until `open()`): a round stays in flight as long as the test wants. */
class GatedPoster extends RecordingPoster {
  private gate: Promise<void> = Promise.resolve();
  private release = () => {};
  override async post(...a: Parameters<RecordingPoster['post']>) {
    await this.gate;
    return super.post(...a);
  }
  close(): void {
    this.gate = new Promise((r) => (this.release = r));
  }
  open(): void {
    this.release();
  }
}

const report = (store: NotifyStore, text: string) =>
  store.insertOutbox({
    platform: 'slack',
    channel_id: 'C1',
    kind: 'report',
    message: JSON.stringify({ blocks: [{ type: 'text', text }] }),
    next_attempt_at: Date.now(),
    created_at: Date.now(),
  });

describe('the outbox worker between rounds', () => {
  it('does not read the outbox at every poll while nothing can start, and a wake still starts a round', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'Date'] });
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const store = new NotifyStore(db);
    const poster = new GatedPoster('slack');
    const worker = new OutboxWorker({
      store,
      posters: { slack: poster },
      prepareMessage,
      logger: silentLogger,
      now: Date.now,
      pollMs: 100,
      coalesceWindowMs: 250,
      perChannelIntervalMs: 1000,
    });
    cleanup.push(() => worker.stop());
    const passes = vi.spyOn(store, 'pendingChannels');
    worker.start();

    // Idle for 10 s: 100 polls, but a pass about once a second (rows another replica queued, a mute that ended).
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes.mock.calls.length).toBeGreaterThanOrEqual(5);
    expect(passes.mock.calls.length).toBeLessThanOrEqual(12);

    // A row and a wake: a pass at once; it waits out its coalescing window (no pass in it) and goes.
    passes.mockClear();
    await report(store, 'one');
    worker.wake();
    await vi.advanceTimersByTimeAsync(400);
    expect(poster.posts()).toHaveLength(1);
    expect(passes.mock.calls.length).toBeLessThanOrEqual(3);

    // Its round is in flight (the platform is slow): the polls of 5 s find nothing to start, and more
    // rows of that channel wait for the round's end instead of being looked for at every poll.
    passes.mockClear();
    poster.close();
    await report(store, 'two');
    worker.wake();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passes.mock.calls.length).toBeLessThanOrEqual(8);
    expect(worker.idle).toBe(false);
    expect(poster.posts()).toHaveLength(1);

    // The round ends: the worker wakes, and the next row goes one pacing interval later.
    poster.open();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(poster.posts().map((p) => JSON.stringify(p.message))).toEqual([expect.stringContaining('one'), expect.stringContaining('two')]);
    expect(await store.depth()).toBe(0);
  });

  it('does not lose a wake that comes while a pass runs', async () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'Date'] });
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const store = new NotifyStore(db);
    const poster = new RecordingPoster('slack');
    const worker = new OutboxWorker({
      store,
      posters: { slack: poster },
      prepareMessage,
      logger: silentLogger,
      now: Date.now,
      pollMs: 100,
      coalesceWindowMs: 0,
      perChannelIntervalMs: 1,
    });
    cleanup.push(() => worker.stop());
    worker.start();
    await vi.advanceTimersByTimeAsync(500);
    // The row is queued and the worker woken while a pass is reading the outbox (after it looked).
    const real = store.pendingChannels.bind(store);
    vi.spyOn(store, 'pendingChannels').mockImplementationOnce(async () => {
      const seen = await real();
      await report(store, 'during');
      worker.wake();
      // The pass goes on past a turn of the event loop (a PostgreSQL query would): the wake finds it running.
      await new Promise((r) => setImmediate(r));
      return seen;
    });
    worker.wake();
    // Not a whole quiet second: the next poll runs a pass because of the wake.
    await vi.advanceTimersByTimeAsync(250);
    expect(poster.posts()).toHaveLength(1);
  });
});

describe("the outbox worker's clock", () => {
  // Timers are faked, the wall clock is not: the worker's own clock (`now`) is moved by the test
  // and stands decades away from Date.now(). A worker that read the wall clock anywhere would see
  // almost no time pass and behave differently from what its clock says (issue 24, "One clock").
  const workerOn = (clock: { t: number }) => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate'] });
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const store = new NotifyStore(db);
    const worker = new OutboxWorker({
      store,
      posters: { slack: new RecordingPoster('slack') },
      prepareMessage,
      logger: silentLogger,
      now: () => clock.t,
      pollMs: 100,
    });
    cleanup.push(() => worker.stop());
    return { store, worker };
  };

  it("waits out a failed pass's backoff on its own clock, not the wall clock", async () => {
    const clock = { t: 1_000_000 };
    const { store, worker } = workerOn(clock);
    const passes = vi.spyOn(store, 'pendingChannels').mockRejectedValueOnce(new Error('database unreachable'));
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toHaveBeenCalledTimes(1);

    // Its clock stands still: the 1 s backoff never ends, whatever the timers do.
    await vi.advanceTimersByTimeAsync(2_000);
    worker.wake();
    await vi.advanceTimersByTimeAsync(200);
    expect(passes).toHaveBeenCalledTimes(1);

    // Its clock passes the backoff: the next poll runs a pass (the wall clock moved a few ms at most).
    clock.t += 1_001;
    await vi.advanceTimersByTimeAsync(100);
    expect(passes).toHaveBeenCalledTimes(2);
  });

  it('looks again, however quiet, once a quiet second has passed on its own clock', async () => {
    const clock = { t: 1_000_000 };
    const { store, worker } = workerOn(clock);
    const passes = vi.spyOn(store, 'pendingChannels');
    worker.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toHaveBeenCalledTimes(1);

    // Nothing waits and the clock stands still: the polls skip the pass.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(passes).toHaveBeenCalledTimes(1);

    // A second of its clock: the next poll looks (rows another replica queued, a mute that ended).
    clock.t += 1_000;
    await vi.advanceTimersByTimeAsync(100);
    expect(passes).toHaveBeenCalledTimes(2);
  });
});

describe("the outbox worker's depth gauge", () => {
  it('counts the waiting rows at most once a second while they wait, and at once when rows start or stop pending', async () => {
    const clock = { t: 1_000_000 };
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const store = new NotifyStore(db);
    const metrics = createMetrics({ defaults: false });
    // No Discord connection: its rows wait, and every pass finds the channel pending.
    const worker = new OutboxWorker({ store, posters: {}, prepareMessage, logger: silentLogger, metrics, now: () => clock.t });
    cleanup.push(() => worker.stop());
    const depth = vi.spyOn(store, 'depth');
    const gauge = async () => (await metrics.outboxDepth.get()).values[0].value;
    const queue = (n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          store.insertOutbox({
            platform: 'discord',
            channel_id: 'D1',
            kind: 'report',
            message: '{}',
            next_attempt_at: clock.t,
            created_at: clock.t,
          }),
        ),
      );

    await worker.tick();
    expect(await gauge()).toBe(0);
    // Rows start to wait 10 ms after that count: the pass that finds them counts again at once.
    clock.t += 10;
    await queue(3);
    await worker.tick();
    expect(await gauge()).toBe(3);
    expect(depth).toHaveBeenCalledTimes(2);
    // A burst of webhooks makes a pass after each of its commits: 20 passes in 950 ms count once.
    for (let i = 0; i < 19; i++) {
      clock.t += 50;
      await queue(1);
      await worker.tick();
    }
    expect(depth).toHaveBeenCalledTimes(2);
    expect(await gauge()).toBe(3);
    // A second after the last count, the next pass counts again.
    clock.t += 50;
    await worker.tick();
    expect(depth).toHaveBeenCalledTimes(3);
    expect(await gauge()).toBe(22);
    // Drained (here: the rows given up): the next pass finds no channel pending and says 0 at once.
    await store.markState(await store.pendingIdsOfChannel('discord', 'D1'), 'failed', 'gone');
    clock.t += 10;
    await worker.tick();
    expect(await gauge()).toBe(0);
    expect(depth).toHaveBeenCalledTimes(4);
    // Rows held by a mute wait without a pending channel: counted once a second as well.
    clock.t += 1000;
    await store.upsertMute({
      platform: 'slack',
      channel_id: 'M1',
      target: 'all',
      until: clock.t + 3_600_000,
      muted_by: 'U1',
      created_at: clock.t,
    });
    const eventId = await store.insertEvent({
      dedupe_key: 'k1',
      node_id: 'n1',
      node_name: 'alice',
      event_type: 'NODE_STATUS_UPDATED',
      status: 'FAILED',
      event_ts: null,
      received_at: clock.t,
      payload: '{}',
    });
    for (let i = 0; i < 5; i++) {
      await store.insertOutbox({
        platform: 'slack',
        channel_id: 'M1',
        kind: 'event',
        event_id: eventId,
        state: 'held',
        held_by_mute: 1,
        next_attempt_at: clock.t,
        created_at: clock.t,
      });
      await worker.tick();
      expect(await store.pendingChannels()).toEqual([]);
      clock.t += 50;
    }
    expect(depth).toHaveBeenCalledTimes(5);
    expect(await gauge()).toBe(1);
  });
});

/**
 * Records the statements run on `db`, each with the loop turn it ran in (`turns`, a
 * countLoopTurns): two statements of one caller with a turn between them let the loop through.
 * (A flag "turned since the statement before" read the statements of other work in between too:
 * a pass's, in the same timers phase.)
 */
function recordStatements(db: Db, turns: () => number): Array<{ sql: string; turn: number }> {
  const seen: Array<{ sql: string; turn: number }> = [];
  for (const m of ['all', 'get', 'run'] as const) {
    const real = db[m].bind(db) as (sql: string, params?: unknown) => Promise<unknown>;
    (db as unknown as Record<string, unknown>)[m] = (sql: string, params?: unknown) => {
      seen.push({ sql: sql.replace(/\s+/g, ' '), turn: turns() });
      return real(sql, params);
    };
  }
  return seen;
}

describe('an outbox round of many rows', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it('marks all of them sent with a few statements, letting the event loop through, and reads the state of 50 nodes without one query per node', async () => {
    const slack = new RecordingPoster('slack');
    h = makeNotifier({ posters: { slack }, extra: { pacing: { perChannelIntervalMs: 1, coalesceWindowMs: 1 } } });
    await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    const t0 = Date.now() - 600_000;
    for (let i = 0; i < 1200; i++) {
      const nodeId = `n${i % 50}`;
      await ingest(
        h.notifier,
        {
          eventType: 'NODE_STATUS_UPDATED',
          eventTimestamp: new Date(t0 + i).toISOString(),
          details: { nodeId, status: i % 100 < 50 ? 'STARTING' : 'RUNNING' },
          nodeId,
        },
        `node-${i % 50}`,
      );
    }
    const loop = countLoopTurns();
    cleanup.push(loop.stop);
    const statements = recordStatements(h.db, loop.turns);
    // Turns of the event loop, noted when the round has read the nodes' state (the last read
    // before it plans) and when it first posts.
    const stateReadAt: number[] = [];
    const postedAt: number[] = [];
    const nodeStates = h.notifier.store.nodeStates.bind(h.notifier.store);
    vi.spyOn(h.notifier.store, 'nodeStates').mockImplementation(async (ids) => {
      const states = await nodeStates(ids);
      stateReadAt.push(loop.turns());
      return states;
    });
    const post = slack.post.bind(slack);
    vi.spyOn(slack, 'post').mockImplementation(async (...a) => {
      postedAt.push(loop.turns());
      return post(...a);
    });
    h.notifier.start();
    await vi.waitFor(async () => expect(await h!.notifier.store.depth()).toBe(0), { timeout: 60_000, interval: 20 });
    await h.notifier.stop();

    // One digest in two parts (40 nodes a message) names every node; every row is sent.
    expect(slack.posts()).toHaveLength(2);
    const rows = await h.notifier.store.outboxRows();
    expect(rows).toHaveLength(1200);
    expect(rows.every((r) => r.state === 'sent' && r.sent_at !== null)).toBe(true);

    // The round is planned in slices (planSteps pauses after every 250 rows of node groups and
    // between the digest's parts), with the event loop let through at each pause: between
    // reading the nodes' state and posting, the loop turned once per pause (1,200 rows of 24 a
    // node: 4, and 1 between the two parts) besides the two turns around the plan. Planned in
    // one go, it turned only those two.
    expect(stateReadAt.length).toBeGreaterThanOrEqual(1);
    expect(postedAt[0] - stateReadAt[0]).toBeGreaterThanOrEqual(2 + 5);

    // The first part's 960 rows are two statements (500 ids at most), the second's 240 one.
    const marks = statements.filter((s) => s.sql.startsWith("UPDATE notify_outbox SET state = 'sent'"));
    expect(marks).toHaveLength(3);
    // Between the two statements of one part, the event loop turned (webhook requests are not held up).
    expect(marks[1].turn).toBeGreaterThan(marks[0].turn);

    // Open incidents are read once a round, not once a node. The two parts usually go in one
    // round; on a busy machine the second may be posted by a round of its own.
    const incidentReads = statements.filter((s) => s.sql.includes('FROM notify_incidents')).length;
    expect(incidentReads).toBeGreaterThanOrEqual(1);
    expect(incidentReads).toBeLessThanOrEqual(slack.posts().length);
    // The nodes' state is one read a round too (their rows, notify_nodes, for 50 nodes), and
    // each node's previous status comes on its rows (prev_status, written by routing): no read
    // of the events per node.
    const nodeReads = statements.filter((s) => s.sql.startsWith('SELECT node_id, last_id, last_status'));
    expect(nodeReads.length).toBeGreaterThanOrEqual(1);
    expect(nodeReads.length).toBeLessThanOrEqual(slack.posts().length);
    expect(statements.filter((s) => / FROM notify_events WHERE node_id = /.test(s.sql))).toEqual([]);
    // Far fewer statements than rows (a statement a row would be over 1,200; a busy machine may
    // split the parts into more rounds, each with its few reads, so the bound is not exact).
    expect(statements.length).toBeLessThan(rows.length / 4);
  });
});
