/**
 * The activity poller keeps every watched node at its interval (issue 29): against the emulator
 * on loopback, with many nodes and a latency on every call, so that the polls needed at once are
 * well above the old fixed 8. The polls are counted at the emulator (its listchannels requests, one
 * a poll: nodeinfo is asked on a node's first poll only) over whole intervals that the poller's
 * own clock marks (the time it stores each state with), never by sleeping. No timing is asserted: only how many polls each node got.
 */
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createActivityPoller, type ActivityPollerOptions } from '../../src/activity/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createActivityStateRepo, openDatabase } from '../../src/store/index.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A TCP server that takes connections and never answers: a node that hangs. */
async function blackHole(): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/nodes/u/hung`;
}

async function account(o: { nodes: number; latencyMs: number; hung?: number }) {
  const emulator: Emulator = await startEmulator({ seed: 'none', seedNodes: o.nodes, faults: { latencyMs: o.latencyMs } });
  cleanup.push(() => emulator.close());
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
  const nodes = await hosting.listNodes();
  const hungUrl = o.hung ? await blackHole() : undefined;
  const hung = new Set(nodes.slice(0, o.hung ?? 0).map((n) => n.nodeId));
  const db = openDatabase(':memory:');
  cleanup.push(() => db.close());
  const states = createActivityStateRepo(db);
  /** The poller's own clock each time it stored a state: its polls, as it sees them. */
  const stored: Array<{ nodeId: string; at: number }> = [];
  const waiters: Array<{ until: (at: number) => boolean; resolve: () => void }> = [];
  // One client per node, reused across polls, as the app keeps them.
  const clients = new Map<string, ReturnType<typeof createNodeApiClient>>();
  const client = (n: HostedNode) => {
    let c = clients.get(n.nodeId);
    if (!c) {
      c = createNodeApiClient({
        baseUrl: hung.has(n.nodeId) ? hungUrl! : n.invoke_url!,
        credentials: { kind: 'token', token: emulator.nodeApiToken },
        retries: 0,
      });
      clients.set(n.nodeId, c);
    }
    return c;
  };
  const poller = (extra: Partial<ActivityPollerOptions>) => {
    const p = createActivityPoller({
      listNodes: () => hosting.listNodes(),
      isWatched: () => true,
      api: client,
      states: {
        ...states,
        put: async (nodeId, state, at) => {
          await states.put(nodeId, state, at);
          stored.push({ nodeId, at });
          for (const w of waiters.splice(0))
            if (w.until(at)) w.resolve();
            else waiters.push(w);
        },
      },
      publish: () => undefined,
      now: () => Date.now(),
      logger: silentLogger,
      ...extra,
    });
    cleanup.push(() => p.stop());
    return p;
  };
  /** Resolves when the poller stores a state at or after `at` (its clock). */
  const storedAfter = (at: number) =>
    new Promise<void>((resolve) => {
      waiters.push({ until: (t) => t >= at, resolve });
    });
  /** Polls so far, per node, counted at the emulator (one listchannels a poll). */
  const pollsAtEmulator = (): Map<string, number> => {
    const counts = new Map<string, number>(nodes.map((n) => [n.nodeId, 0]));
    for (const r of emulator.requests) {
      const m = /^\/nodes\/[^/]+\/([^/]+)\/listchannels$/.exec(r.path);
      if (m && counts.has(m[1])) counts.set(m[1], counts.get(m[1])! + 1);
    }
    return counts;
  };
  return { emulator, nodes, hung, poller, stored, storedAfter, pollsAtEmulator };
}

/** Polls each node got between two counts. */
const between = (before: Map<string, number>, after: Map<string, number>) =>
  new Map([...after].map(([id, n]) => [id, n - (before.get(id) ?? 0)]));

describe('the activity poller keeps up with its interval', () => {
  it('polls each of 40 nodes once an interval, with 400 ms per call (about 13 polls at once needed, not 8)', async () => {
    const INTERVAL = 2_500;
    const INTERVALS = 5;
    const a = await account({ nodes: 40, latencyMs: 400 });
    // A deadline well above a poll's time: on a busy machine a slow poll is not taken for a dead node.
    const poller = a.poller({ intervalMs: INTERVAL, nodeTimeoutMs: 10_000 });
    poller.start();
    // Every node's first poll (spread over the first interval), then whole intervals counted.
    await waitFor(() => new Set(a.stored.map((s) => s.nodeId)).size === a.nodes.length, { timeout: 60_000, what: 'the first polls' });
    const from = a.pollsAtEmulator();
    const t0 = a.stored.at(-1)!.at;
    await a.storedAfter(t0 + INTERVALS * INTERVAL);
    const polls = between(from, a.pollsAtEmulator());
    // Paced at the interval, a node gets INTERVALS polls in as many intervals (one more or less at the edges).
    const fewest = Math.min(...polls.values());
    expect(fewest, `polls per node in ${INTERVALS} intervals: ${[...polls.values()].join(' ')}`).toBeGreaterThanOrEqual(INTERVALS - 1);
    // And never twice at once or in a burst: at most one more than the intervals.
    expect(Math.max(...polls.values())).toBeLessThanOrEqual(INTERVALS + 1);
  }, 120_000);

  it('keeps polling the others while some nodes hang until their deadline', async () => {
    const INTERVAL = 2_000;
    // Three intervals are enough: with the hung nodes holding every slot (maxConcurrency 6, no
    // deadline to speak of) the healthy ones got no poll at all in them.
    const INTERVALS = 3;
    const a = await account({ nodes: 20, latencyMs: 100, hung: 6 });
    const poller = a.poller({ intervalMs: INTERVAL, nodeTimeoutMs: 1_000 });
    poller.start();
    const healthy = a.nodes.filter((n) => !a.hung.has(n.nodeId)).map((n) => n.nodeId);
    await waitFor(() => healthy.every((id) => a.stored.some((s) => s.nodeId === id)), { timeout: 60_000, what: 'the first polls' });
    const from = a.pollsAtEmulator();
    const t0 = Math.max(...a.stored.map((s) => s.at));
    await a.storedAfter(t0 + INTERVALS * INTERVAL);
    const polls = between(from, a.pollsAtEmulator());
    const fewest = Math.min(...healthy.map((id) => polls.get(id)!));
    expect(fewest, `polls per healthy node: ${healthy.map((id) => polls.get(id)).join(' ')}`).toBeGreaterThanOrEqual(INTERVALS - 1);
    // The hung ones were tried (and stored as unreachable), not waited for.
    expect([...a.hung].every((id) => a.stored.some((s) => s.nodeId === id))).toBe(true);
  }, 120_000);

  it('says so in the log and the metrics when its bound is too low to keep up', async () => {
    const warned: string[] = [];
    const logger = { ...silentLogger, warn: (_o: unknown, msg?: string) => void warned.push(String(msg)) } as Logger;
    const metrics = createMetrics({ defaults: false });
    const a = await account({ nodes: 30, latencyMs: 50 });
    // 30 nodes a second, one poll at a time of at least 100 ms: a third of what is needed.
    const poller = a.poller({ intervalMs: 1_000, nodeTimeoutMs: 900, maxConcurrency: 1, logger, metrics });
    poller.start();
    await waitFor(() => warned.some((m) => m.includes('does not keep up')), { timeout: 60_000, what: 'the warning' });
    expect(warned.find((m) => m.includes('does not keep up'))).toMatch(
      /of 30 watched nodes .* 1 polls at once at most; raise POLL_MAX_CONCURRENCY/,
    );
    const value = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    expect(await value('rln_chatops_activity_poll_concurrency')).toBe(1);
    await waitFor(async () => (await value('rln_chatops_activity_missed_intervals_total')) > 0, {
      timeout: 60_000,
      what: 'missed intervals counted',
    });
    expect(await value('rln_chatops_activity_overdue_nodes')).toBeGreaterThan(0);
    expect(await value('rln_chatops_activity_poll_lag_seconds')).toBeGreaterThan(0);
  }, 120_000);
});
