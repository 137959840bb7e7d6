// From the emulator's signed webhook to Slack and Discord (their fakes, over loopback HTTP),
// through the real receiver, notifier, Slack poster (WebClient) and Discord poster (REST).
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatPoster } from '../../src/vocabulary/chat.js';
import type { Platform } from '../../src/vocabulary/actors.js';
import { createDiscordPoster, createDiscordRest } from '../../src/chat/discord/index.js';
import { createSlackPoster } from '../../src/chat/slack/index.js';
import { startEmulator, type Emulator, type KeyType } from '../../src/emulator/index.js';
import { createHostingClient, type HostingClient } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { startFakeDiscord, type FakeDiscord } from '../fakes/discord/index.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { actor, makeNotifier, startReceiver, statusPayload, tempDbPath, type Harness } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** What a platform fake shows, in the same words for both. */
/** JSON text of a payload without escape backslashes (Discord escapes markdown such as `#`). */
const flat = (v: unknown): string =>
  JSON.stringify(v)
    .replace(/\\\\/g, '')
    .replace(/\u200b/g, '');

interface ChatWorld {
  platform: Platform;
  poster: ChatPoster;
  /** Top-level messages posted to a channel, as JSON text. */
  topLevel(channelId: string): string[];
  /** Replies in threads, as JSON text. */
  threadReplies(): string[];
  /** In-place edits, as JSON text. */
  edits(): string[];
  /** Answers the next post to this channel with 429 and a short Retry-After (retryAfterMs). */
  rateLimitNextPost(channelId: string): void;
  /** The Retry-After rateLimitNextPost answers, in ms. */
  retryAfterMs: number;
  /** When each top-level post to a channel was made (ms clock of this process), in order. */
  postTimes(channelId: string): number[];
  /** Makes a channel answer as deleted / bot removed. */
  removeChannel(channelId: string): void;
  close(): Promise<void>;
}

async function slackWorld(): Promise<ChatWorld> {
  const fake: FakeSlack = await startFakeSlack();
  const poster = createSlackPoster({ token: 'xoxb-test-token', slackApiUrl: fake.apiUrl, logger: silentLogger, timeoutMs: 3000 });
  const posts = () => fake.callsTo('chat.postMessage');
  const gone = new Set<string>();
  return {
    platform: 'slack',
    poster,
    topLevel: (c) =>
      posts()
        .filter((p) => p.args.channel === c && !p.args.thread_ts)
        .map((p) => flat(p.args)),
    threadReplies: () =>
      posts()
        .filter((p) => p.args.thread_ts)
        .map((p) => flat(p.args)),
    edits: () => fake.callsTo('chat.update').map((p) => flat(p.args)),
    // Slack's Retry-After is whole seconds: 1 s is the shortest real value.
    rateLimitNextPost: () => fake.fail('chat.postMessage', { status: 429, retryAfter: 1 }),
    retryAfterMs: 1000,
    // The fake stamps each call when it arrives.
    postTimes: (c) =>
      posts()
        .filter((p) => p.args.channel === c && !p.args.thread_ts)
        .map((p) => p.at),
    removeChannel: (c) => {
      gone.add(c);
      fake.fail('chat.postMessage', { error: 'channel_not_found' });
    },
    close: () => fake.close(),
  };
}

async function discordWorld(): Promise<ChatWorld> {
  const fake: FakeDiscord = await startFakeDiscord();
  const real = createDiscordPoster(createDiscordRest({ token: 'discord-test-token', apiUrl: fake.apiUrl, timeoutMs: 3000 }));
  // The fake Discord records no time: the poster's calls are stamped as they start (before the request leaves).
  const started: Array<{ channelId: string; threadId?: string; at: number }> = [];
  const poster: ChatPoster = {
    platform: real.platform,
    post: (target, message) => {
      started.push({ channelId: target.channelId, threadId: target.threadId, at: Date.now() });
      return real.post(target, message);
    },
    update: (target, message) => real.update(target, message),
  };
  const channelPosts = () => fake.calls.filter((c) => c.method === 'POST' && /^\/channels\/[^/]+\/messages$/.test(c.path));
  const messageIds = () =>
    new Set(
      fake.calls
        .filter((c) => c.method === 'POST' && /^\/channels\/[^/]+\/messages\/[^/]+\/threads$/.test(c.path))
        .map((c) => c.path.split('/')[4]),
    );
  return {
    platform: 'discord',
    poster,
    topLevel: (ch) =>
      channelPosts()
        .filter((c) => c.path === `/channels/${ch}/messages`)
        .map((c) => flat(c.body)),
    threadReplies: () => {
      const threads = messageIds();
      return channelPosts()
        .filter((c) => threads.has(c.path.split('/')[2]))
        .map((c) => flat(c.body));
    },
    edits: () =>
      fake.calls.filter((c) => c.method === 'PATCH' && /^\/channels\/[^/]+\/messages\/[^/]+$/.test(c.path)).map((c) => flat(c.body)),
    rateLimitNextPost: (ch) =>
      fake.fail({
        method: 'POST',
        path: new RegExp(`^/channels/${ch}/messages$`),
        status: 429,
        headers: { 'retry-after': '0.05', 'x-ratelimit-scope': 'user' },
        body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
      }),
    retryAfterMs: 50,
    postTimes: (ch) => started.filter((c) => c.channelId === ch && !c.threadId).map((c) => c.at),
    removeChannel: (ch) => fake.goneChannels.add(ch),
    close: () => fake.close(),
  };
}

interface Setup {
  chat: ChatWorld;
  emu: Emulator;
  hosting: HostingClient;
  h: Harness;
  rxUrl: string;
  nodeIds: Record<string, string>;
  channel: string;
}

async function setup(platform: Platform, opts: { keyType?: KeyType; nodes?: string[]; dbPath?: string } = {}): Promise<Setup> {
  const chat = platform === 'slack' ? await slackWorld() : await discordWorld();
  cleanup.push(() => chat.close());
  const emu = await startEmulator({
    keyType: opts.keyType ?? 'ed25519',
    lifecycleDelayMs: 20,
    webhookRetry: { attempts: 3, baseDelayMs: 20 },
  });
  cleanup.push(() => emu.close());
  const hosting = createHostingClient({ baseUrl: emu.url, token: emu.token, retry: { limit: 0 } });
  const h = makeNotifier({
    posters: { [platform]: chat.poster },
    hosting,
    dbPath: opts.dbPath,
    extra: { pacing: { perChannelIntervalMs: 30, coalesceWindowMs: 20 } },
  });
  cleanup.push(() => h.close());
  const rx = await startReceiver(h.notifier, { signatureHeader: 'X-Service-Signature' });
  cleanup.push(() => rx.close());
  const nodeIds: Record<string, string> = {};
  for (const name of opts.nodes ?? ['alice']) nodeIds[name] = (await hosting.createNode({ name, network: 'regtest' })).node.nodeId;
  await waitFor(() => emu.nodes().every((n) => n.status === 'RUNNING'), { timeout: 5000, what: 'nodes running' });
  for (const id of Object.values(nodeIds)) await hosting.updateSettings(id, { webhookUrl: `${rx.url}/webhooks/service/${id}` });
  const channel = platform === 'slack' ? 'CALERTS' : '998877665544332211';
  await h.notifier.watches.add({ place: { platform, channelId: channel }, target: 'all', actor: actor('U1', platform) });
  h.notifier.start();
  return { chat, emu, hosting, h, rxUrl: rx.url, nodeIds, channel };
}

describe.each(['slack', 'discord'] as Platform[])('end to end on %s', (platform) => {
  it('posts a signed status change from the emulator (P-256 key), and an incident that is acknowledged, updated and resolved', async () => {
    const s = await setup(platform, { keyType: 'p256' });
    const alice = s.nodeIds.alice;
    s.emu.setStatus(alice, 'PAUSED');
    await waitFor(() => s.chat.topLevel(s.channel).length === 1, { timeout: 5000, what: 'PAUSED posted' });
    expect(s.chat.topLevel(s.channel)[0]).toContain('PAUSED');

    s.emu.setStatus(alice, 'FAILED');
    await waitFor(() => s.chat.topLevel(s.channel).length === 2, { timeout: 5000, what: 'incident posted' });
    const incident = s.chat.topLevel(s.channel)[1];
    expect(incident).toMatch(/Incident #\d+/);
    for (const label of ['Restart', 'Logs', 'Acknowledge']) expect(incident).toContain(label);

    const [open] = await s.h.notifier.watches.incidents({ state: 'open' });
    await s.h.notifier.watches.ack({
      incidentId: open.id,
      actor: actor('U9', platform),
      place: { platform: open.platform, channelId: open.channelId },
    });
    await waitFor(() => s.chat.edits().some((e) => e.includes('U9')), { timeout: 5000, what: 'ack edit' });
    await waitFor(() => s.chat.threadReplies().some((t) => t.includes('Acknowledged by')), { timeout: 5000, what: 'ack thread line' });

    s.emu.setStatus(alice, 'STARTING');
    await waitFor(() => s.chat.threadReplies().some((t) => t.includes('STARTING')), { timeout: 5000, what: 'thread line STARTING' });
    s.emu.setStatus(alice, 'RUNNING');
    await waitFor(() => s.chat.edits().some((e) => e.includes('Resolved #')), { timeout: 5000, what: 'resolved edit' });
    await s.h.notifier.drain(3000);
    expect(s.chat.topLevel(s.channel)).toHaveLength(2);
    expect(s.chat.threadReplies().some((t) => /resolved after/.test(t))).toBe(true);
  });

  it('retries a 429 after Retry-After and posts once', async () => {
    const s = await setup(platform);
    s.chat.rateLimitNextPost(s.channel);
    s.emu.setStatus(s.nodeIds.alice, 'PAUSED');
    await waitFor(() => s.chat.topLevel(s.channel).length >= 2, { timeout: 6000, what: 'retried post' });
    await s.h.notifier.drain(3000);
    // The first (rate-limited) attempt is recorded by the fake too; the retry is the second.
    expect(s.chat.topLevel(s.channel)).toHaveLength(2);
    expect((await s.h.notifier.store.outboxRows()).map((r) => r.state)).toEqual(['sent']);
    // The retry waited Retry-After (lower bounds only; a few ms of margin for timer rounding).
    const [limitedAt, retriedAt] = s.chat.postTimes(s.channel);
    expect(retriedAt - limitedAt).toBeGreaterThanOrEqual(s.chat.retryAfterMs - 5);
    const [row] = await s.h.notifier.store.outboxRows();
    expect(row.next_attempt_at).toBeGreaterThanOrEqual(limitedAt + s.chat.retryAfterMs);
    expect(row.sent_at! - limitedAt).toBeGreaterThanOrEqual(s.chat.retryAfterMs - 5);
    const limited = (await s.h.metrics.deliveries.get()).values.find((v) => v.labels.outcome === 'rate_limited');
    expect(limited?.value).toBe(1);
  });

  it('coalesces a storm of signed deliveries into a few messages that show every node’s last status', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    const s = await setup(platform, { nodes: names, keyType: 'secp256k1' });
    const statuses = ['STARTING', 'RUNNING', 'IN_PROGRESS', 'PAUSED'];
    const last = new Map<string, string>();
    // The channel is busy (the worker is held back) while the storm arrives, all at once.
    await s.h.notifier.stop();
    const sends: Array<Promise<Response>> = [];
    for (let i = 0; i < 240; i++) {
      const name = names[(i * 7) % names.length];
      const status = statuses[(i * 5 + Math.floor(i / 12)) % statuses.length];
      last.set(name, status);
      const body = JSON.stringify(statusPayload(s.nodeIds[name], status));
      sends.push(
        fetch(`${s.rxUrl}/webhooks/service`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-thunderstack-signature': s.emu.sign(body) },
          body,
        }),
      );
    }
    expect((await Promise.all(sends)).every((r) => r.status === 202)).toBe(true);
    expect(await s.h.notifier.store.countEvents()).toBe(240);
    s.h.notifier.start();
    await s.h.notifier.drain(10_000);
    const posts = s.chat.topLevel(s.channel);
    expect(posts.length).toBeLessThanOrEqual(6);
    const all = posts.join('\n');
    for (const [name, status] of last) {
      // The last message naming the node shows its last status next to it.
      const lastPost = [...posts].reverse().find((p) => p.includes(name))!;
      expect(lastPost, name).toBeTruthy();
      // Rendered tables put one node per line: that line carries its latest status.
      const line = lastPost.split('\\n').find((l) => l.includes(name));
      expect(line, name).toBeTruthy();
      expect(line, name).toContain(status);
    }
    expect(all).toMatch(/events on \d+ nodes/);
  });

  it('pauses the watch of a removed channel and tells the admins elsewhere', async () => {
    const s = await setup(platform);
    const other = platform === 'slack' ? 'COPS' : '112233445566778899';
    await s.h.notifier.watches.add({ place: { platform, channelId: other }, target: 'none-such-node', actor: actor('U1', platform) });
    s.chat.removeChannel(s.channel);
    s.emu.setStatus(s.nodeIds.alice, 'PAUSED');
    await waitFor(() => s.chat.topLevel(other).length === 1, { timeout: 5000, what: 'notice elsewhere' });
    expect(s.chat.topLevel(other)[0]).toContain(s.channel);
    expect((await s.h.notifier.watches.list({ platform, channelId: s.channel }))[0].paused).toBeTruthy();
  });
});

describe('restart', () => {
  it('posts to Slack after a restart an event accepted (2xx) before a kill', async () => {
    const db = tempDbPath();
    cleanup.push(db.cleanup);
    const chat = await slackWorld();
    cleanup.push(() => chat.close());
    const emu = await startEmulator({ keyType: 'rsa', lifecycleDelayMs: 20, webhookRetry: { attempts: 1, baseDelayMs: 10 } });
    cleanup.push(() => emu.close());
    const hosting = createHostingClient({ baseUrl: emu.url, token: emu.token, retry: { limit: 0 } });
    const alice = (await hosting.createNode({ name: 'alice', network: 'regtest' })).node.nodeId;
    await waitFor(() => emu.nodes().every((n) => n.status === 'RUNNING'), { timeout: 5000, what: 'running' });

    // First life: the receiver accepts, the worker never runs (killed before posting).
    const a = makeNotifier({ posters: { slack: chat.poster }, hosting, dbPath: db.path });
    await a.notifier.watches.add({ place: { platform: 'slack', channelId: 'CALERTS' }, target: 'all', actor: actor() });
    const rx = await startReceiver(a.notifier);
    await hosting.updateSettings(alice, { webhookUrl: `${rx.url}/webhooks/service/${alice}` });
    emu.setStatus(alice, 'FAILED');
    await emu.settled();
    expect(emu.deliveries.at(-1)!.status).toBe(202);
    await rx.close();
    void a.db.close();
    expect(chat.topLevel('CALERTS')).toHaveLength(0);

    // Second life on the same file.
    const b = makeNotifier({ posters: { slack: chat.poster }, hosting, dbPath: db.path });
    cleanup.push(() => b.close());
    b.notifier.start();
    await waitFor(() => chat.topLevel('CALERTS').length === 1, { timeout: 5000, what: 'posted after restart' });
    expect(chat.topLevel('CALERTS')[0]).toMatch(/Incident #\d+/);
  });
});
