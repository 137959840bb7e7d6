/**
 * What a poll asks a node: its pubkey (/nodeinfo) once, on its first poll, since a pubkey does not
 * change; afterwards the node's lists alone, which still tell that it got locked, that it was
 * unlocked again (then asked /nodeinfo again: a poll that found it locked did not learn it), and
 * that it cannot be reached. Requests are counted at the emulator (on loopback).
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createActivityPoller, type ActivityEvent } from '../../src/activity/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createActivityStateRepo, openDatabase } from '../../src/store/index.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** An address nothing listens on: a connection there is refused at once. */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/nodes/u/gone`;
}

describe('a poll of a node whose pubkey is known', () => {
  it('asks no /nodeinfo, and still tells a lock, an unlock and a node that cannot be reached', async () => {
    const emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
    cleanup.push(() => emulator.close());
    const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
    const alice = (await hosting.listNodes()).find((n) => n.name === 'alice')!;
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const metrics = createMetrics({ defaults: false });
    const published: ActivityEvent[] = [];
    const gone = await refusedUrl();
    let reachable = true;
    let clock = 1_000_000;
    const poller = createActivityPoller({
      listNodes: () => hosting.listNodes(),
      isWatched: (n) => n.nodeId === alice.nodeId,
      api: (n: HostedNode) =>
        createNodeApiClient({
          baseUrl: reachable ? n.invoke_url! : gone,
          credentials: { kind: 'token', token: emulator.nodeApiToken },
          retries: 0,
        }),
      states: createActivityStateRepo(db),
      publish: (_node, events) => void published.push(...events),
      now: () => (clock += 60_000),
      logger: silentLogger,
      metrics,
      intervalMs: 30_000,
    });
    cleanup.push(() => poller.stop());
    const asked = (endpoint: string) => emulator.requests.filter((r) => r.path.endsWith(`/${alice.nodeId}/${endpoint}`)).length;
    const outcomes = async () =>
      Object.fromEntries((await metrics.activityPolls.get()).values.map((v) => [String(v.labels.outcome), v.value]));

    for (let i = 0; i < 3; i++) await poller.pollOnce();
    expect(asked('listchannels')).toBe(3);
    expect(asked('nodeinfo')).toBe(1);

    emulator.world.lockNode(alice.nodeId);
    await poller.pollOnce();
    expect(published).toEqual([{ kind: 'lock', type: 'node_locked' }]);
    expect(asked('nodeinfo')).toBe(1);

    await emulator.world.seedReadyNode(alice.nodeId, 'demo-password');
    await poller.pollOnce();
    expect(published.at(-1)).toEqual({ kind: 'lock', type: 'node_unlocked' });
    expect(asked('nodeinfo')).toBe(2);
    await poller.pollOnce();
    expect(asked('nodeinfo')).toBe(2);

    reachable = false;
    await poller.pollOnce();
    expect(await outcomes()).toEqual({ unlocked: 5, locked: 1, unreachable: 1 });
  });
});
