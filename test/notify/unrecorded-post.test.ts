/**
 * A message the chat already shows is not posted again when the database refuses its record.
 * The round posts, then marks its rows sent; if that write fails (the database locked, lost,
 * full), the rows were still pending, and the next round posted them again: the same alert
 * twice from a bot that never stopped. The worker now keeps what it posted and could not record,
 * records it before the channel's next round, and posts it no more.
 *
 * The fault is real: just after the post, a second connection takes the SQLite file's write
 * lock, so the record waits out busy_timeout and fails; the test lets go once the worker has
 * said so (an event in its log, not a time).
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelClaims } from '../../src/notify/channel-claims.js';
import { OutboxWorker } from '../../src/notify/index.js';
import { NotifyStore, openDatabase } from '../../src/store/index.js';
import type { Message, PostTarget } from '../../src/vocabulary/index.js';
import { bufferLogger } from '../support/core.js';
import { makeNotifier, prepareMessage, RecordingPoster, tempDbPath } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Posts like RecordingPoster; after its first post, another connection holds the database's write lock. */
class LockAfterFirstPost extends RecordingPoster {
  lock: Database.Database | undefined;
  constructor(private readonly path: string) {
    super('slack');
  }
  override async post(target: PostTarget, message: Message) {
    const res = await super.post(target, message);
    if (!this.lock) {
      this.lock = new Database(this.path);
      this.lock.exec('BEGIN IMMEDIATE');
    }
    return res;
  }
  unlock(): void {
    if (this.lock?.inTransaction) this.lock.exec('ROLLBACK');
    this.lock?.close();
  }
}

describe('a post whose record the database refuses', () => {
  it('is recorded before the next round and never posted again', async () => {
    const tmp = tempDbPath();
    const log = bufferLogger();
    const poster = new LockAfterFirstPost(tmp.path);
    const h = makeNotifier({ dbPath: tmp.path, posters: { slack: poster }, logger: log.logger });
    cleanups.push(
      tmp.cleanup,
      () => h.close(),
      () => poster.unlock(),
    );

    await h.notifier.outbox.enqueue({
      platform: 'slack',
      channelId: 'CREC',
      kind: 'notice',
      dedupeKey: 'notice:unrecorded',
      message: { blocks: [{ type: 'text', text: 'fo-0459 stopped' }] },
    });
    h.notifier.start();
    // Posted, then the record failed (the worker says so; before this change, as a failed round).
    await waitFor(() => /posted, but recording it as sent failed|notify round failed/.test(log.text), {
      timeout: 60_000,
      what: 'the failed record of the post',
    });
    poster.unlock();
    expect(await h.notifier.drain(30_000)).toBe(true);

    expect(poster.posts('CREC')).toHaveLength(1);
    expect((await h.notifier.store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
  });

  it('keeps the channel (replicas) until they are recorded: no other replica posts them again', async () => {
    const tmp = tempDbPath();
    const db = openDatabase(tmp.path);
    const store = new NotifyStore(db);
    await store.insertOutbox({
      platform: 'slack',
      channel_id: 'CREC',
      kind: 'notice',
      message: JSON.stringify({ blocks: [{ type: 'text', text: 'fo-0459 stopped' }] }),
      next_attempt_at: 0,
      created_at: 0,
    });
    const poster = new LockAfterFirstPost(tmp.path);
    const log = bufferLogger();
    // A recording stand-in for the leases: what the worker asks of them, in order.
    const asked: string[] = [];
    const claims: ChannelClaims = {
      heartbeatMs: 60_000,
      take: async () => (asked.push('take'), true),
      done: async () => void asked.push('done'),
    };
    const worker = new OutboxWorker({ store, claims, posters: { slack: poster }, prepareMessage, logger: log.logger, now: Date.now });
    cleanups.push(
      tmp.cleanup,
      () => db.close(),
      () => worker.stop(),
      () => poster.unlock(),
    );

    await worker.tick();
    await waitFor(() => worker.idle && /posted, but recording it as sent failed|notify round failed/.test(log.text), {
      timeout: 60_000,
      what: 'the failed record of the post',
    });
    // The round took the channel, and kept it instead of handing it back.
    expect(asked).toEqual(['take', 'take', 'take']);
    poster.unlock();
    await worker.tick();
    await waitFor(() => worker.idle && asked.length > 3, { what: 'the next round' });
    expect(asked.slice(3)).toEqual(['take', 'done']);
    expect(poster.posts('CREC')).toHaveLength(1);
    expect((await store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
  });
});
