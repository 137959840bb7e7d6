/**
 * A post Slack is slow to answer is waited for, not given up and posted again. Slack takes no
 * key to recognise a post sent twice: a post given up on before its answer may still be made,
 * and the outbox, told it failed, would post the same alert again from a bot that never
 * stopped. (The failover test saw it: its fake Slack, busy for seconds, answered posts the
 * surviving replica had given up on after 10 s, and the replica posted them again.)
 *
 * The fake Slack makes the post at once and holds its answer until the test releases it: the
 * test waits for the poster to say it is still waiting, not for a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackPoster } from '../../src/chat/slack/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { bufferLogger } from '../support/core.js';
import { makeNotifier } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(poster: { timeoutMs?: number }) {
  const fake = await startFakeSlack();
  const log = bufferLogger();
  const world = makeNotifier({
    posters: { slack: createSlackPoster({ token: 'xoxb-slow', slackApiUrl: fake.apiUrl, logger: log.logger, slowAfterMs: 20, ...poster }) },
    logger: log.logger,
  });
  const n = world.notifier;
  cleanups.push(
    () => fake.close(),
    () => world.close(),
  );
  await n.outbox.enqueue({
    platform: 'slack',
    channelId: 'CSLOW',
    kind: 'notice',
    dedupeKey: 'notice:slow',
    message: { blocks: [{ type: 'text', text: 'fo-0459 stopped' }] },
  });
  return { fake, log, n };
}

describe('a post Slack is slow to answer', () => {
  it('is waited for: posted once, recorded as sent, never posted again', async () => {
    const { fake, log, n } = await world({});
    const held = fake.hold('chat.postMessage');
    n.start();
    await fake.waitForCalls('chat.postMessage', 1);
    // Slack made the post and has not answered: the poster says so, and keeps waiting.
    await waitFor(() => log.text.includes('Slack has not answered yet'), { what: "the poster's slow-answer warning" });
    held.release();
    expect(await n.drain(30_000)).toBe(true);

    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect((await n.store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
    expect(log.text).not.toContain('posting failed');
  });

  it('given up only after timeoutMs, with a reason that says it may have been posted', async () => {
    const { fake, log, n } = await world({ timeoutMs: 200 });
    const held = fake.hold('chat.postMessage');
    cleanups.push(() => held.release());
    n.start();
    await waitFor(() => log.text.includes('posting failed'), { what: 'the post given up' });
    expect(log.text).toMatch(/no answer within 200 ms: Slack may have posted it/);
  });
});
