/**
 * One poll of a node keeps at most NODE_CALLS_PER_NODE of its calls in flight at once (the node's
 * gate, which its clients share as the app wires them: src/node-api/node-gates.ts): a node with
 * many assets is asked each asset's transfers a few at a time, not all together. The poller
 * against the emulator on loopback, through a relay that counts the requests in flight to the
 * node; every answer takes a little while, so calls overlap.
 */
import { createServer, request, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createActivityPoller } from '../../src/activity/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';
import { createNodeApiClient, imageOfNode, NodeGates } from '../../src/node-api/index.js';
import { createActivityStateRepo, openDatabase } from '../../src/store/index.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

const ASSETS = 10;

/** An HTTP relay to `target` that counts the requests in flight through it, and the most at once. */
async function countingRelay(target: URL) {
  const seen = { inFlight: 0, peak: 0, paths: [] as string[] };
  const server: Server = createServer((req, res) => {
    seen.inFlight++;
    seen.peak = Math.max(seen.peak, seen.inFlight);
    seen.paths.push(req.url ?? '');
    const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => seen.inFlight--);
    });
    up.on('error', () => {
      seen.inFlight--;
      res.destroy();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  return { seen, port: (server.address() as { port: number }).port };
}

describe('one poll of a node', () => {
  it(`asks at most 4 of its calls at once, though it has ${ASSETS} assets whose transfers it reads`, async () => {
    const emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
    cleanup.push(() => emulator.close());
    const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
    const alice = (await hosting.listNodes()).find((n) => n.name === 'alice')!;
    const call = (endpoint: string, body: unknown) => emulator.world.handle(alice.nodeId, 'POST', endpoint, body);
    expect((await call('createutxos', { num: ASSETS + 2, size: 32_500, fee_rate: 5 })).status).toBe(200);
    emulator.world.mine(1);
    for (let i = 0; i < ASSETS; i++) {
      const issued = await call('issueassetnia', { ticker: `T${i}`, name: `Token ${i}`, amounts: [1000], precision: 0 });
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    }
    const invoke = new URL(alice.invoke_url!);
    const relay = await countingRelay(invoke);
    const db = openDatabase(':memory:');
    cleanup.push(() => db.close());
    const gates = new NodeGates(4);
    const poller = createActivityPoller({
      listNodes: () => hosting.listNodes(),
      isWatched: (n) => n.name === 'alice',
      api: (n: HostedNode) =>
        createNodeApiClient({
          baseUrl: `http://127.0.0.1:${relay.port}${invoke.pathname.replace(/\/$/, '')}`,
          credentials: { kind: 'token', token: emulator.nodeApiToken },
          retries: 0,
          image: imageOfNode(n),
          gate: () => gates.of(n.nodeId),
        }),
      states: createActivityStateRepo(db),
      publish: () => undefined,
      now: Date.now,
      logger: silentLogger,
      intervalMs: 30_000,
      nodeTimeoutMs: 20_000,
    });
    // Every answer takes 30 ms, so calls asked together are in flight together.
    emulator.faults.latencyMs = 30;
    await poller.pollOnce();
    const transfers = relay.seen.paths.filter((p) => p.endsWith('/listtransfers')).length;
    expect(transfers, relay.seen.paths.join('\n')).toBe(ASSETS);
    expect(relay.seen.peak).toBeGreaterThan(1);
    expect(relay.seen.peak).toBeLessThanOrEqual(4);
  });
});
