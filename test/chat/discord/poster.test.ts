/**
 * The Discord ChatPoster against the fake Discord's REST: posts, edits, threads, and the mapping
 * of failures to PostError kinds the outbox acts on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostError } from '../../../src/vocabulary/chat.js';
import type { Message } from '../../../src/vocabulary/message.js';
import { createDiscordPoster, createDiscordRest, discordNonce, DISCORD_NONCE_MAX, toPostError } from '../../../src/chat/discord/index.js';
import { startFakeDiscord, type FakeDiscord } from '../../fakes/discord/index.js';
import { messageProblems } from './check-limits.js';

const TOKEN = 'poster-bot-token-0123456789abcdef';
const CHANNEL = '800000000000000001';

const event: Message = {
  header: 'bob is FAILED',
  tone: 'danger',
  blocks: [{ type: 'text', text: 'The node bob failed @everyone' }],
  buttons: [{ label: 'Restart', style: 'primary', command: 'node start', args: { node: 'bob' }, id: 'b_restart' }],
};

let fake: FakeDiscord;
const rests: Array<ReturnType<typeof createDiscordRest>> = [];

function poster(apiUrl = fake.apiUrl, token: string | null = TOKEN) {
  const rest = token ? createDiscordRest({ token, apiUrl, timeoutMs: 2_000 }) : undefined;
  if (rest) rests.push(rest);
  return createDiscordPoster(rest);
}

async function failure(p: Promise<unknown>): Promise<PostError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(PostError);
  return e as PostError;
}

beforeAll(async () => {
  fake = await startFakeDiscord();
});

afterAll(async () => {
  for (const r of rests) {
    r.clearHashSweeper();
    r.clearHandlerSweeper();
  }
  await fake.close();
});

describe('Discord poster', () => {
  it('posts an embed with buttons to the channel with the bot token, and edits it in place', async () => {
    const p = poster();
    const { messageId, threadId } = await p.post({ channelId: CHANNEL }, event);
    expect(messageId).toMatch(/^\d+$/);
    expect(threadId).toBeUndefined();
    const call = fake.calls.find((c) => c.method === 'POST' && c.path === `/channels/${CHANNEL}/messages`)!;
    expect(call.authorization).toBe(`Bot ${TOKEN}`);
    expect(messageProblems(call.body)).toEqual([]);
    expect(call.body.embeds[0].description).not.toContain('@everyone');

    await p.update({ channelId: CHANNEL, messageId }, { ...event, header: 'bob is RUNNING again', tone: 'success' });
    const edit = fake.calls.find((c) => c.method === 'PATCH' && c.path === `/channels/${CHANNEL}/messages/${messageId}`)!;
    expect(edit.body.embeds[0].title).toBe('bob is RUNNING again');
  });

  it('starts a thread from the message on the first reply, then posts straight into it', async () => {
    const p = poster();
    const parent = await p.post({ channelId: CHANNEL }, event);
    const first = await p.post({ channelId: CHANNEL, threadId: parent.messageId }, { blocks: [{ type: 'text', text: 'update 1' }] });
    expect(first.threadId).toBe(parent.messageId);
    const created = fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${CHANNEL}/messages/${parent.messageId}/threads`);
    expect(created).toHaveLength(1);
    expect(created[0].body.name).toBe('update 1');
    const second = await p.post({ channelId: CHANNEL, threadId: parent.messageId }, { blocks: [{ type: 'text', text: 'update 2' }] });
    expect(second.threadId).toBe(parent.messageId);
    expect(fake.calls.filter((c) => c.path.endsWith(`/${parent.messageId}/threads`))).toHaveLength(1);
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${parent.messageId}/messages`).length).toBe(3);
  });

  it('maps a 429 to rate_limited with the wait Discord asked for', async () => {
    const channel = '800000000000000010';
    fake.fail({
      method: 'POST',
      path: new RegExp(`^/channels/${channel}/messages$`),
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 1.5, global: false },
      headers: {
        'retry-after': '1.5',
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '1.5',
        'x-ratelimit-bucket': 'b1',
      },
    });
    const e = await failure(poster().post({ channelId: channel }, event));
    expect(e.kind).toBe('rate_limited');
    expect(e.retryAfterMs).toBeGreaterThanOrEqual(1_500);
    expect(e.message).not.toContain(TOKEN);
  });

  it('maps 5xx and an unreachable Discord to transient', async () => {
    const channel = '800000000000000011';
    fake.fail({
      method: 'POST',
      path: new RegExp(`^/channels/${channel}/messages$`),
      status: 502,
      body: { message: 'Bad Gateway', code: 0 },
    });
    expect((await failure(poster().post({ channelId: channel }, event))).kind).toBe('transient');

    fake.fail({ method: 'POST', path: new RegExp(`^/channels/${channel}/messages$`), status: 500, body: 'oops' });
    expect((await failure(poster().post({ channelId: channel }, event))).kind).toBe('transient');

    const closed = await startFakeDiscord();
    const url = closed.apiUrl;
    await closed.close();
    expect((await failure(poster(url).post({ channelId: channel }, event))).kind).toBe('transient');
  });

  it('maps Unknown Channel, Missing Access and Missing Permissions to channel_gone', async () => {
    fake.goneChannels.add('800000000000000020');
    expect((await failure(poster().post({ channelId: '800000000000000020' }, event))).kind).toBe('channel_gone');

    for (const [status, code, message] of [
      [403, 50001, 'Missing Access'],
      [403, 50013, 'Missing Permissions'],
    ] as const) {
      const channel = `80000000000000003${code % 10}`;
      fake.fail({ path: new RegExp(`^/channels/${channel}/`), status, body: { message, code } });
      const e = await failure(poster().post({ channelId: channel }, event));
      expect(e.kind).toBe('channel_gone');
      expect(e.message).toContain(message);
    }

    // Editing a message in a channel that is gone.
    expect((await failure(poster().update({ channelId: '800000000000000020', messageId: '1' }, event))).kind).toBe('channel_gone');
  });

  it('maps other refusals to permanent', async () => {
    const channel = '800000000000000040';
    fake.fail({ path: new RegExp(`^/channels/${channel}/messages$`), status: 400, body: { message: 'Invalid Form Body', code: 50035 } });
    const e = await failure(poster().post({ channelId: channel }, event));
    expect(e.kind).toBe('permanent');
    expect(e.message).toContain('50035');
  });

  it('refuses to post without a bot token, saying what is needed', async () => {
    const e = await failure(poster(fake.apiUrl, null).post({ channelId: CHANNEL }, event));
    expect(e.kind).toBe('permanent');
    expect(e.message).toMatch(/DISCORD_TOKEN/);
  });
});

describe('Discord poster: a post named by a key', () => {
  const NONCE_CHANNEL = '800000000000000077';
  const postsTo = (channelId: string) => fake.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${channelId}/messages`);

  it('carries a nonce of at most 25 characters with enforce_nonce; the same key again returns the message made', async () => {
    const p = poster();
    const first = await p.post({ channelId: NONCE_CHANNEL }, event, { key: 'discord:C:post:1,2:0' });
    const again = await p.post({ channelId: NONCE_CHANNEL }, event, { key: 'discord:C:post:1,2:0' });
    const other = await p.post({ channelId: NONCE_CHANNEL }, event, { key: 'discord:C:post:1,2:1' });
    expect(again.messageId).toBe(first.messageId);
    expect(other.messageId).not.toBe(first.messageId);
    expect(fake.channelMessages(NONCE_CHANNEL)).toEqual([first.messageId, other.messageId]);
    const [a, b, c] = postsTo(NONCE_CHANNEL).map((x) => x.body);
    expect(a.nonce).toBe(discordNonce('discord:C:post:1,2:0'));
    expect(a.nonce.length).toBeLessThanOrEqual(DISCORD_NONCE_MAX);
    expect([a.enforce_nonce, b.nonce, b.enforce_nonce]).toEqual([true, a.nonce, true]);
    expect(c.nonce).not.toBe(a.nonce);
  });

  it('without a key posts without a nonce: each post is a message', async () => {
    const channelId = '800000000000000078';
    const p = poster();
    await p.post({ channelId }, event);
    await p.post({ channelId }, event);
    expect(fake.channelMessages(channelId)).toHaveLength(2);
    expect(postsTo(channelId).map((x) => 'nonce' in x.body)).toEqual([false, false]);
  });

  it('the fake refuses a nonce over 25 characters as Discord does, and makes a message for a nonce not enforced', async () => {
    const channelId = '800000000000000079';
    const rest = createDiscordRest({ token: TOKEN, apiUrl: fake.apiUrl, timeoutMs: 2_000 });
    rests.push(rest);
    const e = await failure(
      rest
        .post(`/channels/${channelId}/messages`, { body: { content: 'x', nonce: 'n'.repeat(26), enforce_nonce: true } })
        .catch((err: unknown) => {
          throw toPostError(err, 'posting');
        }),
    );
    expect(e.kind).toBe('permanent');
    expect(e.message).toMatch(/400/);
    await rest.post(`/channels/${channelId}/messages`, { body: { content: 'x', nonce: 'n'.repeat(25) } });
    await rest.post(`/channels/${channelId}/messages`, { body: { content: 'x', nonce: 'n'.repeat(25) } });
    expect(fake.channelMessages(channelId)).toHaveLength(2);
  });
});
