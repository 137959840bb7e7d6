// The activity poller against the emulator on loopback: its management API lists the nodes and
// each node's API is read over HTTP; the state is kept in a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { activityEventKey, createActivityPoller, type ActivityEvent } from '../../src/activity/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createActivityStateRepo, openDatabase, type Db } from '../../src/store/index.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function world(watched: string[] = ['bob', 'alice']) {
  const emulator: Emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
  cleanup.push(() => emulator.close());
  const dir = mkdtempSync(join(tmpdir(), 'rln-activity-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
  const nodes = await hosting.listNodes();
  const id = (name: string) => nodes.find((n) => n.name === name)!.nodeId;
  const published: Array<{ node: string; events: ActivityEvent[] }> = [];
  /** Each publish's way to name our nodes by pubkey. */
  const namers: Array<(pubkey: string) => string | undefined> = [];
  /** Each publish's dedupe keys (activityEventKey), and how many publishes should fail (a crash before the events were stored). */
  const keys: string[][] = [];
  const failing = { publishes: 0 };
  /** The nodes whose API the poller asked, in order. */
  const asked: string[] = [];
  let clock = 1_000_000;
  const open = () => {
    const db: Db = openDatabase(join(dir, 'bot.db'));
    cleanup.push(() => db.close());
    return createActivityPoller({
      listNodes: () => hosting.listNodes(),
      isWatched: (n) => watched.includes(n.name),
      api: (n: HostedNode) => (
        asked.push(n.name),
        createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: emulator.nodeApiToken }, retries: 0 })
      ),
      // Held until the poller stops, as the bot holds them for a second: a restart finds them stored.
      states: createActivityStateRepo(db, { writeEveryMs: 60_000 }),
      publish: (node, events, context) => {
        keys.push(events.map((e) => activityEventKey(node.nodeId, e, context.since)));
        if (failing.publishes > 0) {
          failing.publishes--;
          throw new Error('the bot died before the events were stored');
        }
        published.push({ node: node.name, events });
        namers.push((pubkey) => context.nameOf(pubkey));
      },
      now: () => (clock += 60_000),
      logger: silentLogger,
      intervalMs: 30_000,
    });
  };
  /** Calls alice's node API the way a user's command would. */
  const call = (name: string, endpoint: string, body?: unknown) =>
    emulator.world.handle(id(name), body === undefined ? 'GET' : 'POST', endpoint, body);
  return { emulator, hosting, open, published, namers, asked, call, id, keys, failing };
}

describe('the activity poller', () => {
  it('names our node as a channel peer even when no watch hears that node: "closed with bob", not 02c8… (P35)', async () => {
    const w = await world(['alice']);
    const bobKey = w.emulator.world.pubkeyOf(w.id('bob'));
    await w.call('alice', 'connectpeer', { peer_pubkey_and_addr: `${bobKey}@127.0.0.1:9735` });
    await w.call('alice', 'openchannel', { peer_pubkey_and_opt_addr: bobKey, capacity_sat: 100_000, push_msat: 0 });
    w.emulator.world.mine(1);
    const poller = w.open();
    await poller.pollOnce();
    const channel = ((await w.call('alice', 'listchannels')).body as { channels: Array<{ channel_id: string }> }).channels[0];
    expect((await w.call('alice', 'closechannel', { channel_id: channel.channel_id, peer_pubkey: bobKey })).status).toBe(200);
    w.emulator.world.mine(1);
    await poller.pollOnce();
    const at = w.published.findIndex((p) => p.events.some((e) => e.kind === 'channels' && e.type === 'channel_closed'));
    expect(w.published[at]?.node).toBe('alice');
    expect(w.namers[at](bobKey)).toBe('bob');
    expect(w.namers[at](bobKey.toUpperCase())).toBe('bob');
  });

  it('names a node that joined the account after the names were first asked: "opened with erin"', async () => {
    const w = await world(['alice']);
    const bobKey = w.emulator.world.pubkeyOf(w.id('bob'));
    await w.call('alice', 'connectpeer', { peer_pubkey_and_addr: `${bobKey}@127.0.0.1:9735` });
    const poller = w.open();
    await poller.pollOnce();
    await w.call('alice', 'openchannel', { peer_pubkey_and_opt_addr: bobKey, capacity_sat: 100_000, push_msat: 0 });
    w.emulator.world.mine(1);
    // Events: the names are asked, and every node of the account then is named.
    await poller.pollOnce();
    expect(w.namers.at(-1)?.(bobKey)).toBe('bob');

    const { node: erin } = await w.hosting.createNode({ name: 'erin', network: 'regtest' });
    await waitFor(() => w.emulator.nodes().find((n) => n.nodeId === erin.nodeId)?.status === 'RUNNING');
    await w.emulator.world.seedReadyNode(erin.nodeId, 'erin-password-1');
    const erinKey = w.emulator.world.pubkeyOf(erin.nodeId);
    await w.call('alice', 'connectpeer', { peer_pubkey_and_addr: `${erinKey}@127.0.0.1:9735` });
    await w.call('alice', 'openchannel', { peer_pubkey_and_opt_addr: erinKey, capacity_sat: 100_000, push_msat: 0 });
    w.emulator.world.mine(1);
    await poller.pollOnce();
    expect(w.published.at(-1)?.events.some((e) => e.kind === 'channels' && e.type === 'channel_opened')).toBe(true);
    expect(w.namers.at(-1)?.(erinKey)).toBe('erin');
  });

  it('tells a payment bob received once, and not again after a restart on the same database', async () => {
    const w = await world();
    await w.call('alice', 'connectpeer', { peer_pubkey_and_addr: `${w.emulator.world.pubkeyOf(w.id('bob'))}@127.0.0.1:9735` });
    await w.call('alice', 'openchannel', {
      peer_pubkey_and_opt_addr: w.emulator.world.pubkeyOf(w.id('bob')),
      capacity_sat: 100_000,
      push_msat: 0,
    });
    w.emulator.world.mine(1);
    const poller = w.open();
    await poller.pollOnce();
    expect(w.published).toEqual([]);

    const invoice = (await w.call('bob', 'lninvoice', { amt_msat: 5_000_000, expiry_sec: 600 })).body as { invoice: string };
    expect((await w.call('alice', 'sendpayment', { invoice: invoice.invoice })).status).toBe(200);
    await poller.pollOnce();
    const bobs = w.published.filter((p) => p.node === 'bob').flatMap((p) => p.events);
    expect(bobs).toEqual([expect.objectContaining({ type: 'payment_received', payment: expect.objectContaining({ amtMsat: '5000000' }) })]);
    const alices = w.published.filter((p) => p.node === 'alice').flatMap((p) => p.events.map((e) => e.type));
    expect(alices).toContain('payment_sent');

    await poller.stop();
    const again = w.open();
    const before = w.published.length;
    await again.pollOnce();
    expect(w.published.length).toBe(before);
  });

  it('publishes a change again, with the same dedupe keys, when publishing failed: the state is stored only after', async () => {
    const w = await world();
    const poller = w.open();
    await poller.pollOnce();
    await w.call('alice', 'lock', {});
    w.failing.publishes = 1;
    await poller.pollOnce();
    expect(w.published).toEqual([]);
    // A locked node is polled again only after its backoff: a new poller (a restart) asks at once.
    await poller.stop();
    await w.open().pollOnce();
    expect(w.published).toEqual([{ node: 'alice', events: [{ kind: 'lock', type: 'node_locked' }] }]);
    expect(w.keys).toHaveLength(2);
    expect(w.keys[1]).toEqual(w.keys[0]);
  });

  it('tells a node found locked at its first poll once, though the bot dies right after (its state is not held)', async () => {
    const w = await world(['alice']);
    await w.call('alice', 'lock', {});
    await w.open().pollOnce();
    expect(w.published).toEqual([{ node: 'alice', events: [{ kind: 'lock', type: 'node_found_locked' }] }]);
    // No stop: the process died. The next one finds the state of that first poll.
    await w.open().pollOnce();
    expect(w.published).toHaveLength(1);
  });

  it('tells that a node came back locked, and goes quiet on a paused node', async () => {
    const w = await world();
    const poller = w.open();
    await poller.pollOnce();
    await w.call('alice', 'lock', {});
    await poller.pollOnce();
    expect(w.published).toEqual([{ node: 'alice', events: [{ kind: 'lock', type: 'node_locked' }] }]);

    // A paused node is not asked at all (carol is paused in the demo, and not watched either).
    w.emulator.setStatus(w.id('bob'), 'PAUSED');
    w.asked.length = 0;
    w.published.length = 0;
    await poller.pollOnce();
    expect(w.asked).not.toContain('bob');
    expect(w.published).toEqual([]);
  });
});
