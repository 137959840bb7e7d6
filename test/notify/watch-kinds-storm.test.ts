/**
 * Issue 28: a storm of the watch kinds' alerts is coalesced as the activity kinds' are. Many nodes
 * raise every condition kind at once (transfers, utxos, infra, liveness, peers, backup), made by
 * the poller's own pure steps (watchStep, activityItems) and queued as its publish queues them,
 * while the channel is busy; the real notifier posts them through the real Slack and Discord
 * posters to their fakes (which refuse a payload the platform would refuse). As a status digest is,
 * a storm is posted in a few parts, each within the platforms' limits, so that every alert's line
 * is shown whole (one message of 180 lines was cut at Discord's 4,096 characters, and at Slack's
 * message size: the later nodes' alerts were never shown), and each button names its node. The same
 * storm of payments (an activity kind of before) goes the same way, and so do the recoveries.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatPoster } from '../../src/vocabulary/chat.js';
import type { Platform } from '../../src/vocabulary/actors.js';
import { createDiscordPoster, createDiscordRest } from '../../src/chat/discord/index.js';
import { createSlackPoster } from '../../src/chat/slack/index.js';
import { silentLogger } from '../../src/log.js';
import { watchStep } from '../../src/activity/watch-step.js';
import { activityItems } from '../../src/activity/render-activity.js';
import { DEFAULT_WATCH_THRESHOLDS, type WatchProfile } from '../../src/activity/watch-thresholds.js';
import type { ActivityEvent, ActivitySnapshot, WatchMemory } from '../../src/activity/types.js';
import type { ActivityItem } from '../../src/notify/index.js';
import { startFakeDiscord } from '../fakes/discord/index.js';
import { startFakeSlack } from '../fakes/slack/index.js';
import { actor, makeNotifier, type Harness } from '../support/notify.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const NODES = 30;
const KINDS = ['transfers', 'utxos', 'infra', 'liveness', 'peers', 'backup'] as const;
const MIN = 60_000;
const NOW = Date.parse('2026-11-27T10:00:00Z');
const profile: WatchProfile = {
  kinds: new Set(KINDS),
  thresholds: { ...DEFAULT_WATCH_THRESHOLDS, indexerUrl: '127.0.0.1:50001' },
};
const nodeOf = (i: number) => ({ nodeId: `node-${i}`, name: `n${String(i).padStart(2, '0')}` });
const peerOf = (i: number) => `02${String(i).padStart(2, '0').repeat(32)}`;

/** A node on which every condition kind holds: its snapshot, and a memory of 2 failed polls and a peer gone 20 minutes. */
function sick(i: number): { snapshot: ActivitySnapshot; memory: WatchMemory } {
  const asset = `rgb:asset${i}`;
  return {
    snapshot: {
      takenAt: NOW,
      lock: 'unlocked',
      utxos: { free: 0, colourable: 3 },
      peers: [],
      channels: [
        { id: `chan${i}`, peerPubkey: peerOf(i), status: 'Opened', usable: false, capacitySat: '100000', localMsat: '5', remoteMsat: '5' },
      ],
      infra: { at: NOW, indexer: { url: '127.0.0.1:50001', error: 'failed to connect to 127.0.0.1:50001' } },
      transfers: [
        {
          key: `${asset}#1`,
          assetId: asset,
          idx: 1,
          kind: 'ReceiveWitness',
          status: 'WaitingCounterparty',
          createdAt: NOW - 120 * MIN,
          expiresAt: NOW + 10 * MIN,
        },
      ],
      backup: { createdAt: NOW - 30 * 24 * 60 * MIN },
    },
    memory: { open: {}, misses: 2, missedSince: NOW - MIN, peerGoneSince: { [peerOf(i)]: NOW - 20 * MIN } },
  };
}

/** Every node's alerts, as the poller makes them: the third failed poll in a row (liveness) with the rest holding. */
function alerts(): Array<{
  node: { nodeId: string; name: string };
  events: ActivityEvent[];
  memory: WatchMemory;
  snapshot: ActivitySnapshot;
}> {
  return Array.from({ length: NODES }, (_, i) => {
    const { snapshot, memory } = sick(i);
    const step = watchStep(nodeOf(i), memory, snapshot, 'unreachable', profile, NOW);
    return { node: nodeOf(i), events: step.events, memory: step.memory, snapshot };
  });
}

/** The same nodes healed: every condition ends. */
function recoveries(before: ReturnType<typeof alerts>) {
  return before.map(({ node, memory, snapshot }, i) => {
    const healed: ActivitySnapshot = {
      ...snapshot,
      takenAt: NOW + MIN,
      utxos: { free: 5, colourable: 8 },
      peers: [peerOf(i)],
      infra: { at: NOW + MIN, indexer: { url: '127.0.0.1:50001', error: null } },
      transfers: snapshot.transfers!.map((t) => ({ ...t, status: 'Settled' })),
      backup: { createdAt: snapshot.backup!.createdAt, lastBackupAt: NOW + MIN / 2 },
    };
    return { node, events: watchStep(node, memory, healed, 'unlocked', profile, NOW + MIN).events };
  });
}

const payments = (): Array<{ node: { nodeId: string; name: string }; items: ActivityItem[] }> =>
  Array.from({ length: NODES }, (_, i) => ({
    node: nodeOf(i),
    items: KINDS.map((_, k) => ({
      dedupeKey: `pay:${i}:${k}`,
      kind: 'payments',
      type: 'payment_received',
      amountMsat: 20_000_000,
      message: {
        header: `${nodeOf(i).name}: payment received, ${20_000 + k} sats`,
        tone: 'success',
        blocks: [],
        buttons: [{ label: 'Payments', command: 'pay list', args: { node: nodeOf(i).nodeId } }],
      },
    })),
  }));

/** What Slack would refuse in a chat.postMessage: too many blocks, a section's text too long, too many buttons. */
function slackProblems(args: Record<string, any>): string[] {
  const blocks: Array<Record<string, any>> = args.blocks ?? [];
  const out: string[] = [];
  if (blocks.length > 50) out.push(`${blocks.length} blocks`);
  for (const b of blocks) {
    if (b.type === 'section' && (b.text?.text?.length ?? 0) > 3000) out.push(`a section of ${b.text.text.length} characters`);
    if (b.type === 'actions' && b.elements.length > 25) out.push(`${b.elements.length} buttons`);
    if (b.type === 'context' && b.elements.some((e: any) => (e.text?.length ?? 0) > 3000)) out.push('a context text too long');
  }
  return out;
}

interface World {
  poster: ChatPoster;
  /** Top-level posts to the channel, as JSON text. */
  posts(): string[];
  /** Payloads the fake refused as the platform would. */
  refused(): unknown[];
  channel: string;
}

async function world(platform: Platform): Promise<World> {
  if (platform === 'slack') {
    const fake = await startFakeSlack();
    cleanup.push(() => fake.close());
    const calls = () => fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'CSTORM' && !c.args.thread_ts);
    return {
      poster: createSlackPoster({ token: 'xoxb-storm', slackApiUrl: fake.apiUrl, logger: silentLogger, timeoutMs: 5000 }),
      posts: () => calls().map((c) => JSON.stringify(c.args).replace(/\u200b/g, '')),
      // The fake answers invalid_blocks for a broken table only: Slack's other limits are checked here.
      refused: () => calls().flatMap((c) => slackProblems(c.args)),
      channel: 'CSTORM',
    };
  }
  const fake = await startFakeDiscord();
  cleanup.push(() => fake.close());
  const channel = '998877665544332211';
  return {
    poster: createDiscordPoster(createDiscordRest({ token: 'discord-storm', apiUrl: fake.apiUrl, timeoutMs: 5000 })),
    posts: () =>
      fake.calls
        .filter((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages`)
        .map((c) => JSON.stringify(c.body).replace(/\\\\/g, '')),
    refused: () => fake.rejected,
    channel,
  };
}

/** A notifier with one channel watching every node for every kind, the storm queued while its worker is held. */
async function storm(
  platform: Platform,
  entries: Array<{ node: { nodeId: string; name: string }; items: ActivityItem[] }>,
  w?: { h: Harness; chat: World },
) {
  let s = w;
  if (!s) {
    const chat = await world(platform);
    const h = makeNotifier({ posters: { [platform]: chat.poster }, extra: { pacing: { perChannelIntervalMs: 30, coalesceWindowMs: 20 } } });
    cleanup.push(() => h.close());
    await h.notifier.watches.add({
      place: { platform, channelId: chat.channel },
      target: 'all',
      kinds: ['status', 'payments', ...KINDS],
      actor: actor('U1', platform),
    });
    s = { h, chat };
  }
  await s.h.notifier.stop();
  const before = s.chat.posts().length;
  // As the poller publishes: one node at a time, each with what it saw.
  for (const e of entries) await s.h.notifier.ingestActivity({ nodeId: e.node.nodeId, nodeName: e.node.name }, e.items);
  s.h.notifier.start();
  expect(await s.h.notifier.drain(15_000)).toBe(true);
  return { ...s, posted: s.chat.posts().slice(before) };
}

const itemsOf = (xs: Array<{ node: { nodeId: string; name: string }; events: ActivityEvent[] }>) =>
  xs.map(({ node, events }) => ({
    node,
    items: activityItems(node, events, { since: 0, snapshot: sick(0).snapshot, nameOf: () => undefined }),
  }));

describe.each(['slack', 'discord'] as Platform[])('a storm of the watch kinds on %s', (platform) => {
  it('is coalesced as a storm of payments is: a few messages in parts, every alert line whole, each button naming its node; the recoveries too', async () => {
    const raised = alerts();
    // Every node raises every kind, once.
    for (const r of raised) expect(new Set(r.events.map((e) => e.kind))).toEqual(new Set(KINDS));
    const entries = itemsOf(raised);
    const total = entries.reduce((n, e) => n + e.items.length, 0);
    expect(total).toBe(NODES * KINDS.length);

    const yardstick = await storm(platform, payments());
    expect(yardstick.chat.refused()).toEqual([]);
    expect(yardstick.posted.length).toBeGreaterThan(1);
    expect(yardstick.posted.length).toBeLessThanOrEqual(8);
    expectWhole(yardstick.posted, [`${NODES * KINDS.length} changes seen on the nodes`]);
    for (let i = 0; i < NODES; i++) expect(yardstick.posted.join('\n')).toContain(`${nodeOf(i).name}: payment received, 20005 sats`);

    const got = await storm(platform, entries);
    expect(got.chat.refused()).toEqual([]);
    // A few messages for 180 alerts: coalesced, in parts as the payments were.
    expect(got.posted.length).toBeGreaterThan(1);
    expect(got.posted.length).toBeLessThanOrEqual(12);
    expectWhole(got.posted, [`${total} changes seen on the nodes`]);
    const all = got.posted.join('\n');
    for (let i = 0; i < NODES; i++) {
      const n = nodeOf(i).name;
      for (const text of [
        `${n}: RGB transfer #1 stuck: WaitingCounterparty for 2h 0m, expires in 10m 0s`,
        `${n}: 0 free colourable UTXOs (below 2)`,
        `${n}: its indexer does not answer`,
        `${n}: the service says RUNNING, but its API has failed 3 times`,
        `${n}: peer `,
        `${n}: no backup in 7 days`,
      ])
        expect(all, text).toContain(text);
    }
    // Every button says whose it is: a Restart among thirty nodes' alerts must not be a guess.
    for (const label of ['Restart', 'Back up', 'Create UTXOs']) expect(all).toMatch(new RegExp(`"${label} n\\d\\d"`));
    expect(all).not.toMatch(/"(text|label)":"Restart"/);
    // The buttons a part cannot hold are listed as commands to type, naming each node by its name as the alerts do, never by its id.
    const overflow = [...all.matchAll(/more buttons than a message holds: ([^"]*)/g)].map((m) => m[1]);
    expect(overflow.length).toBeGreaterThan(0);
    for (const line of overflow) {
      expect(line).toMatch(/`node start n\d\d`/);
      expect(line).not.toMatch(/node-\d+/);
    }

    const healed = await storm(platform, itemsOf(recoveries(raised)), got);
    expect(healed.chat.refused()).toEqual([]);
    expect(healed.posted.length).toBeGreaterThan(1);
    expect(healed.posted.length).toBeLessThanOrEqual(12);
    expectWhole(healed.posted, [`${total} changes seen on the nodes`]);
    const told = healed.posted.join('\n');
    for (let i = 0; i < NODES; i++) {
      const n = nodeOf(i).name;
      for (const line of [
        new RegExp(`${n}: RGB transfer #1 is no longer stuck`),
        new RegExp(`${n}: free colourable UTXOs back to 2 or more`),
        new RegExp(`${n}: its indexer answers again`),
        new RegExp(`${n}: its API answers again`),
        new RegExp(`${n}: peer \\S+ is connected again`),
        new RegExp(`${n}: backed up again`),
      ])
        expect(told).toMatch(line);
    }
  });
});

/** The parts of one storm: each says which part it is, and none was cut. */
function expectWhole(posts: string[], headers: string[]): void {
  posts.forEach((p, i) => {
    for (const h of headers) expect(p).toContain(h);
    expect(p).toContain(`(part ${i + 1}/${posts.length})`);
    expect(p).not.toMatch(/truncated|not shown|too long/);
  });
}
