/**
 * Retries that fit the chat's clock (issue 27, item 3): under a deadline, a node's calls answer or
 * say "<node> did not answer in <deadline>" by then, no attempt gets more than what is left, and no
 * retry starts that the deadline would cut. Without a deadline (nothing asks for one) the client
 * keeps its per-attempt timeout and its retries. A real node world on loopback, slowed by faults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { createNodeApiClient, NodeApiError, type NodeApiClient } from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { withDeadline } from '../../src/vocabulary/index.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

const TOKEN = 'deadline-token-81c2';
let server: NodeWorldServer;
let alice: NodeApiClient;

const hits = (endpoint: string) => server.hits.get(endpoint) ?? 0;

async function failure(p: Promise<unknown>): Promise<NodeApiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(NodeApiError);
  return e as NodeApiError;
}

beforeAll(async () => {
  const world = new NodeWorld({ fundingSat: 1_000_000 });
  world.addNode('n1', { network: 'regtest' });
  server = await startNodeWorldServer({ world, token: TOKEN });
  await world.seedReadyNode('n1', 'password1');
  // The client's defaults (15 s per attempt, 2 retries): what made a slow node hold a command for 46 s.
  alice = createNodeApiClient({ baseUrl: server.urlOf('n1'), credentials: { kind: 'token', token: TOKEN }, nodeName: 'alice' });
});
afterAll(() => server.close());

describe('calls under a deadline', () => {
  it('a node that does not answer: one attempt, cut at the deadline, naming the node and the time', async () => {
    server.faults.push({ endpoint: 'listpeers', delayMs: 30_000, status: 200, raw: '{"peers":[]}', times: 5 });
    const before = hits('listpeers');
    const started = performance.now();
    const e = await failure(withDeadline(1_500, () => alice.listpeers()));
    const took = performance.now() - started;
    expect(e.kind).toBe('timeout');
    expect(e.message).toBe('alice did not answer in 1.5 s (node API /listpeers)');
    // Without the deadline: 15 s per attempt, three attempts.
    expect(took).toBeLessThan(10_000);
    expect(hits('listpeers') - before).toBe(1);
    server.faults.length = 0;
  }, 20_000);

  it('a passing 5xx is retried while the deadline leaves time for it', async () => {
    server.faults.push({ endpoint: 'btcbalance', status: 503, times: 1 });
    const before = hits('btcbalance');
    const b = await withDeadline(5_000, () => alice.btcbalance({ skip_sync: false }));
    expect(b.vanilla.settled).toBe(1_000_000);
    expect(hits('btcbalance') - before).toBe(2);
  });

  it('no retry starts that the deadline would cut: a Retry-After past it gives the 503 at once', async () => {
    server.faults.push({ endpoint: 'networkinfo', status: 503, headers: { 'retry-after': '8' }, times: 3 });
    const before = hits('networkinfo');
    const started = performance.now();
    const e = await failure(withDeadline(3_000, () => alice.networkinfo()));
    expect(e.status).toBe(503);
    expect(hits('networkinfo') - before).toBe(1);
    // The retry would have waited 8 s: the answer came without it.
    expect(performance.now() - started).toBeLessThan(2_500);
    server.faults.length = 0;
  });

  it("a command's calls share the one deadline: the second call gets what the first left", async () => {
    server.faults.push({ endpoint: 'nodeinfo', delayMs: 900, times: 1 });
    server.faults.push({ endpoint: 'listchannels', delayMs: 30_000, status: 200, raw: '{"channels":[]}', times: 1 });
    const e = await failure(
      withDeadline(1_500, async () => {
        await alice.nodeinfo();
        return alice.listchannels();
      }),
    );
    expect(e.message).toBe('alice did not answer in 1.5 s (node API /listchannels)');
    server.faults.length = 0;
  }, 20_000);

  it('without a deadline the per-attempt timeout and the retries are as configured', async () => {
    const quick = createNodeApiClient({
      baseUrl: server.urlOf('n1'),
      credentials: { kind: 'token', token: TOKEN },
      nodeName: 'alice',
      timeoutMs: 200,
      retries: 2,
      retryBaseMs: 1,
    });
    server.faults.push({ endpoint: 'listpayments', delayMs: 1_000, status: 200, raw: '{"payments":[]}', times: 3 });
    const before = hits('listpayments');
    const e = await failure(quick.listpayments());
    expect(e.message).toBe('alice did not answer in 200 ms (node API /listpayments)');
    expect(hits('listpayments') - before).toBe(3);
    server.faults.length = 0;
  });
});
