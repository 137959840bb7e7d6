/**
 * The outbox worker's channel claims (replicas): the claim is always handed back with done(),
 * a heartbeat never lands after it, a database error while renewing is not a lost lease, and
 * failed passes back off instead of running at every poll. ChannelClaims here is a recording
 * stand-in for the leases (the store itself is a real SQLite database).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelClaims } from '../../src/notify/channel-claims.js';
import { OutboxWorker } from '../../src/notify/index.js';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import { bufferLogger } from '../support/core.js';
import { prepareMessage, RecordingPoster } from '../support/notify.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function world(claims: (store: NotifyStore, id: number) => ChannelClaims, poster = new RecordingPoster('slack')) {
  const db = openDatabase(':memory:');
  cleanup.push(() => db.close());
  const store = new NotifyStore(db);
  const id = (await store.insertOutbox({
    platform: 'slack',
    channel_id: 'C1',
    kind: 'report',
    message: JSON.stringify({ blocks: [{ type: 'text', text: 'hello' }] }),
    next_attempt_at: 0,
    created_at: 0,
  }))!;
  const logs = bufferLogger();
  const worker = new OutboxWorker({
    store,
    claims: claims(store, id),
    posters: { slack: poster },
    prepareMessage,
    logger: logs.logger,
    now: Date.now,
    perChannelIntervalMs: 1,
    coalesceWindowMs: 0,
    retry: { baseDelayMs: 10_000 },
  });
  cleanup.push(() => worker.stop());
  /** One pass and the round it started. */
  const pass = async () => {
    await worker.tick();
    while (!worker.idle) await sleep(5);
  };
  return { store, id, worker, poster, logs, pass, db };
}

describe('the outbox worker with channel claims', () => {
  it('hands the claim back when the round finds nothing due (another replica posted it meanwhile)', async () => {
    const calls: string[] = [];
    const w = await world((store, id) => ({
      heartbeatMs: 1000,
      async take() {
        calls.push('take');
        await store.markSent([id], Date.now());
        return true;
      },
      async done() {
        calls.push('done');
      },
    }));
    await w.pass();
    expect(calls).toEqual(['take', 'done']);
  });

  it('waits for a heartbeat in flight before handing the claim back (a late renewal would hold the channel a full round)', async () => {
    const calls: string[] = [];
    const slow = new RecordingPoster('slack');
    const post = slow.post.bind(slow);
    slow.post = async (t, m) => {
      await sleep(80);
      return post(t, m);
    };
    const w = await world(
      () => ({
        heartbeatMs: 7,
        async take() {
          calls.push('take');
          await sleep(30);
          calls.push('taken');
          return true;
        },
        async done() {
          calls.push('done');
        },
      }),
      slow,
    );
    await w.pass();
    await sleep(60);
    expect(slow.posts()).toHaveLength(1);
    expect(calls.at(-1)).toBe('done');
    expect(calls.filter((c) => c === 'take').length).toBe(calls.filter((c) => c === 'taken').length);
  });

  it("posts on when one renewal hits a database error: the lease is still this replica's", async () => {
    let n = 0;
    const w = await world(() => ({
      heartbeatMs: 1000,
      async take() {
        if (++n === 2) throw new Error('connection terminated unexpectedly');
        return true;
      },
      async done() {},
    }));
    await w.pass();
    expect(w.poster.posts()).toHaveLength(1);
    expect(w.logs.text).not.toContain('another replica holds the channel');
    expect((await w.store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
  });

  it('records a round whose lease cannot be renewed at all as a transient failure, retried later', async () => {
    let n = 0;
    const w = await world(() => ({
      heartbeatMs: 1000,
      async take() {
        if (++n > 1) throw new Error('connection terminated unexpectedly');
        return true;
      },
      async done() {},
    }));
    await w.pass();
    expect(w.poster.posts()).toHaveLength(0);
    const [row] = await w.store.outboxRows();
    expect(row).toMatchObject({ state: 'pending', attempts: 1 });
    expect(row.last_error).toContain('could not renew the lease');
    expect(row.next_attempt_at).toBeGreaterThan(Date.now() + 5000);
  });
});

describe('the outbox worker while the database is down', () => {
  it('backs off after a failed pass instead of failing at every poll', async () => {
    const db = openDatabase(':memory:');
    const logs = bufferLogger();
    const worker = new OutboxWorker({
      store: new NotifyStore(db),
      posters: {},
      prepareMessage,
      logger: logs.logger,
      now: Date.now,
      pollMs: 5,
    });
    cleanup.push(() => worker.stop());
    await db.close();
    worker.start();
    await sleep(400);
    await worker.stop();
    const failures = logs.text.split('\n').filter((l) => l.includes('notify tick failed'));
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures.length).toBeLessThanOrEqual(2);
  });
});
