/**
 * A report with a chart on Slack is a message and then an upload: two outbox rows, in order.
 * When the upload fails, it alone is retried: the report's text is posted once, not once per
 * attempt (the real Slack poster against the fake Slack, which records uploads).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackPoster } from '../../src/chat/slack/index.js';
import { silentLogger } from '../../src/log.js';
import { createNotifier } from '../../src/notify/index.js';
import { openDatabase } from '../../src/store/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { FAST, fakeHosting } from '../support/notify.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a message with files on Slack', () => {
  it('retries a failed upload alone: the text is posted once and the file shared once', async () => {
    const fake = await startFakeSlack();
    const db = openDatabase(':memory:');
    const poster = createSlackPoster({ token: 'xoxb-files-retry', slackApiUrl: fake.apiUrl, logger: silentLogger });
    const n = createNotifier({
      db,
      posters: { slack: poster },
      buttons: { prepare: async (m) => m },
      hosting: fakeHosting([], null),
      logger: silentLogger,
      ...FAST,
    });
    cleanups.push(
      () => fake.close(),
      () => db.close(),
      () => n.stop(),
    );

    fake.fail('files.completeUploadExternal', { status: 500 }, 2);
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    await n.outbox.enqueue({
      platform: 'slack',
      channelId: 'CREP',
      kind: 'report',
      dedupeKey: 'report:1:2026-11-22T00:00',
      message: {
        blocks: [{ type: 'text', text: 'Balance report of alice' }],
        files: [
          { name: 'balance-alice-7d.png', mime: 'image/png', base64: png.toString('base64'), title: 'Balances of alice', alt: 'a chart' },
        ],
      },
    });
    // The same report queued again (a tick seen twice) adds nothing.
    await n.outbox.enqueue({
      platform: 'slack',
      channelId: 'CREP',
      kind: 'report',
      dedupeKey: 'report:1:2026-11-22T00:00',
      message: { blocks: [{ type: 'text', text: 'again' }] },
    });
    expect(await n.drain(10_000)).toBe(true);

    const posts = fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CREP');
    expect(posts).toHaveLength(1);
    expect(JSON.stringify(posts[0].args)).toContain('Balance report of alice');
    expect(fake.callsTo('files.completeUploadExternal')).toHaveLength(3); // two failures, then shared
    const shared = fake.uploads.filter((u) => u.completed);
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatchObject({ channelId: 'CREP', filename: 'balance-alice-7d.png' });
    expect(shared[0].bytes).toEqual(png);
    // The upload came after the text it belongs to.
    expect(fake.callsTo('files.getUploadURLExternal')[0].seq).toBeGreaterThan(posts[0].seq);
  });

  async function reportWithChart(failPost: Parameters<Awaited<ReturnType<typeof startFakeSlack>>['fail']>[1]) {
    const fake = await startFakeSlack();
    const db = openDatabase(':memory:');
    const poster = createSlackPoster({ token: 'xoxb-files-order', slackApiUrl: fake.apiUrl, logger: silentLogger });
    // A retry later than the pacing interval: the files row, due at once, would go first if it could.
    const n = createNotifier({
      db,
      posters: { slack: poster },
      buttons: { prepare: async (m) => m },
      hosting: fakeHosting([], null),
      logger: silentLogger,
      ...FAST,
      retry: { ...FAST.retry, baseDelayMs: 200 },
    });
    cleanups.push(
      () => fake.close(),
      () => db.close(),
      () => n.stop(),
    );
    fake.fail('chat.postMessage', failPost);
    await n.outbox.enqueue({
      platform: 'slack',
      channelId: 'CORD',
      kind: 'report',
      dedupeKey: 'report:2:2026-11-22T00:00',
      message: {
        blocks: [{ type: 'text', text: 'Balance report of bob' }],
        files: [
          {
            name: 'balance-bob-7d.png',
            mime: 'image/png',
            base64: Buffer.from('89504e470d0a1a0a', 'hex').toString('base64'),
            title: 'Balances of bob',
            alt: 'a chart',
          },
        ],
      },
    });
    expect(await n.drain(10_000)).toBe(true);
    return { fake, n };
  }

  it('uploads the files after their text when posting the text failed once', async () => {
    const { fake } = await reportWithChart({ status: 500 });
    const posts = fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CORD');
    expect(posts).toHaveLength(2); // failed, then posted
    const uploads = fake.callsTo('files.getUploadURLExternal');
    expect(uploads).toHaveLength(1);
    expect(uploads[0].seq).toBeGreaterThan(posts[1].seq);
    expect(fake.uploads.filter((u) => u.completed)).toHaveLength(1);
  });

  it('does not upload the files alone when their text was refused for good', async () => {
    const { fake, n } = await reportWithChart({ error: 'invalid_blocks' });
    expect(fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CORD')).toHaveLength(1);
    expect(fake.callsTo('files.getUploadURLExternal')).toHaveLength(0);
    expect((await n.store.outboxRows()).map((r) => [r.dedupe_key, r.state])).toEqual([
      ['report:2:2026-11-22T00:00', 'failed'],
      ['report:2:2026-11-22T00:00:files', 'failed'],
    ]);
  });
});
