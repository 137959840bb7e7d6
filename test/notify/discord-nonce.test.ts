/**
 * A Discord post given up on before its answer, but made, is not made again when the outbox
 * retries it: each post of the outbox carries a nonce made from its rows, with enforce_nonce, and
 * Discord (the fake, as Discord does) answers the retry with the message made the first time.
 *
 * The fake Discord makes the post at once and holds its answer; the poster's REST client gives
 * the call up (a short timeout here), the outbox retries; the test lets the answers go once the
 * give-up was logged, not after a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordPoster, createDiscordRest, DISCORD_NONCE_MAX } from '../../src/chat/discord/index.js';
import { postKey } from '../../src/notify/execute-round.js';
import type { RoundAction } from '../../src/notify/plan-round.js';
import type { OutboxEventRow } from '../../src/store/index.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { bufferLogger } from '../support/core.js';
import { makeNotifier } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const CHANNEL = '810000000000000001';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(timeoutMs: number) {
  const fake = await startFakeDiscord();
  const log = bufferLogger();
  const rest = createDiscordRest({ token: 'discord-nonce-token', apiUrl: fake.apiUrl, timeoutMs });
  const world = makeNotifier({
    posters: { discord: createDiscordPoster(rest, { logger: log.logger, slowAfterMs: 20 }) },
    logger: log.logger,
  });
  const n = world.notifier;
  cleanups.push(
    () => fake.close(),
    () => {
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    },
    () => world.close(),
  );
  const notice = (key: string, text: string) =>
    n.outbox.enqueue({
      platform: 'discord',
      channelId: CHANNEL,
      kind: 'notice',
      dedupeKey: key,
      message: { blocks: [{ type: 'text', text }] },
    });
  return { fake, log, n, notice };
}

const posts = (fake: Awaited<ReturnType<typeof startFakeDiscord>>) =>
  fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${CHANNEL}/messages`);

describe('a Discord post given up on before its answer', () => {
  it('is retried with the same nonce, and the channel shows it once', async () => {
    const { fake, log, n, notice } = await world(1_000);
    const held = fake.hold('POST', new RegExp(`^/channels/${CHANNEL}/messages$`));
    cleanups.push(() => held.release());
    await notice('notice:nonce', 'fo-0459 stopped');
    n.start();
    // Discord made the message; the poster heard nothing, waited (said so), and gave up.
    await waitFor(() => log.text.includes('posting failed'), { what: 'the post given up' });
    expect(log.text).toContain('Discord has not answered yet');
    expect(log.text).toContain('no answer from Discord in time; it may have made the post');
    // (On a busy machine the fake may read a request only after its client gave it up: wait for one made.)
    await waitFor(() => fake.channelMessages(CHANNEL).length > 0, { what: 'the message made' });
    held.release();
    expect(await n.drain(30_000)).toBe(true);

    // Posted again, and answered with the first message: one message in the channel, the row sent
    // (without the nonce, each call the fake carried out is a message of its own).
    const sent = posts(fake);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(fake.channelMessages(CHANNEL)).toHaveLength(1);
    expect(fake.rejected).toEqual([]);
    expect((await n.store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
    const nonce = sent[0].body.nonce;
    expect(typeof nonce).toBe('string');
    expect(nonce.length).toBeLessThanOrEqual(DISCORD_NONCE_MAX);
    expect(sent.map((c) => [c.body.nonce, c.body.enforce_nonce])).toEqual(sent.map(() => [nonce, true]));
  });

  it('different posts carry different nonces, each made', async () => {
    const { fake, n, notice } = await world(5_000);
    await notice('notice:a', 'report part 1 of 2');
    await notice('notice:b', 'report part 2 of 2');
    n.start();
    expect(await n.drain(30_000)).toBe(true);
    const nonces = posts(fake).map((c) => c.body.nonce);
    expect(nonces).toHaveLength(2);
    expect(new Set(nonces).size).toBe(2);
    expect(fake.channelMessages(CHANNEL)).toHaveLength(2);
  });
});

describe('postKey', () => {
  const row = (id: number) => ({ id }) as OutboxEventRow;
  const post = (ids: number[]): RoundAction => ({ kind: 'post', rows: ids.map(row), message: { blocks: [] } });
  it('is the same for a retry of the same rows, in any order, and differs for other rows, posts or channels', () => {
    expect(postKey('discord', 'C', post([3, 1, 2]), 0)).toBe(postKey('discord', 'C', post([1, 2, 3]), 0));
    const keys = [
      postKey('discord', 'C', post([1, 2, 3]), 0),
      postKey('discord', 'C', post([1, 2]), 0),
      postKey('discord', 'C', post([12, 3]), 0),
      postKey('discord', 'C', post([1, 2, 3]), 1),
      postKey('discord', 'D', post([1, 2, 3]), 0),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(postKey('discord', 'C', post([]), 0)).toBeUndefined();
  });
});
