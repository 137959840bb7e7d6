/**
 * One node's requests in flight stay within NODE_CALLS_PER_NODE, whoever sends them (issue 29:
 * "bounded per node and overall"). Before, the call scheduler bounded a report's pieces and the
 * activity poller bounded each poll's calls, each on its own, so a report and a poll of one node
 * together went past the bound. The gate's own rules first (turns in order, handed straight on,
 * a wait that ends), then the app's wiring against the emulator, which counts each node's
 * requests in flight: two clients of one node share its turns, and a request that gets no turn
 * within its deadline is never sent, with an error that says why. And a node keeps its two
 * latest clients, no more (a client dropped lets go of its connections: credentials.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GateWaitTimeout, NodeGate, NodeGates, NodeApiError, type NodeApiClient } from '../../src/node-api/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { wireService, type ServiceWiring } from '../../src/app/service-wiring.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { withDeadline } from '../../src/vocabulary/index.js';
import { waitFor } from '../support/wait-for.js';

const turnOf = async (t: (() => void) | Promise<() => void>) => (typeof t === 'function' ? t : await t);

describe('a node gate', () => {
  it('gives turns up to its limit, then in the order asked, each handed straight on', async () => {
    const gate = new NodeGate(2);
    const first = await turnOf(gate.acquire(1_000));
    await turnOf(gate.acquire(1_000));
    expect(gate.inFlight).toBe(2);
    const order: number[] = [];
    const waiting = [3, 4, 5].map((n) =>
      turnOf(gate.acquire(10_000)).then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect(gate.queued).toBe(3);
    first();
    first(); // given back twice: still one turn
    const third = await waiting[0];
    expect(order).toEqual([3]);
    expect(gate.inFlight).toBe(2);
    expect(gate.queued).toBe(2);
    third();
    await waiting[1];
    expect(order).toEqual([3, 4]);
    // The turns are handed on, never freed, while anyone waits.
    expect(gate.inFlight).toBe(2);
    (await waiting[1])();
    (await waiting[2])();
    expect(order).toEqual([3, 4, 5]);
  });

  it('a wait that ends leaves the queue, and the next turn goes to the one still waiting', async () => {
    const gate = new NodeGate(1);
    const held = await turnOf(gate.acquire(1_000));
    const late = gate.acquire(20);
    const patient = turnOf(gate.acquire(10_000));
    const e = await Promise.resolve(late).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GateWaitTimeout);
    expect(gate.queued).toBe(1);
    held();
    const release = await patient;
    expect(gate.inFlight).toBe(1);
    release();
    expect(gate.idle).toBe(true);
  });

  it('one gate per node; past 10,000 nodes only idle gates are dropped', async () => {
    const gates = new NodeGates(3);
    const busy = gates.of('busy');
    expect(gates.of('busy')).toBe(busy);
    expect(busy.limit).toBe(3);
    const release = await turnOf(busy.acquire(1_000));
    for (let i = 0; i < 10_050; i++) gates.of(`n${i}`);
    expect(gates.size).toBe(10_000);
    expect(gates.of('busy')).toBe(busy);
    release();
  });
});

describe("the app's node clients", () => {
  const PER_NODE = 2;
  let emu: Emulator;
  let db: Db;
  let wiring: ServiceWiring;
  let node: HostedNode;

  beforeAll(async () => {
    emu = await startEmulator({ seed: 'none', lifecycleDelayMs: 10 });
    db = openDatabase(':memory:');
    const config = loadConfig({
      SERVICE_URL: emu.url,
      SERVICE_API_TOKEN: emu.token,
      NODE_API_TOKEN: emu.nodeApiToken,
      NODE_CALLS_PER_NODE: String(PER_NODE),
    });
    wiring = await wireService({ config, db, logger: silentLogger, metrics: createMetrics(), now: Date.now });
    await wiring.hosting.createNode({ name: 'gated', network: 'regtest' });
    await waitFor(() => emu.nodes().length === 1 && emu.nodes()[0].status === 'RUNNING');
    node = (await wiring.hosting.listNodes())[0];
    // Initialised and unlocked as the node's own API is (6887cbf's unlock), past the bot's gate.
    const headers = { authorization: `Bearer ${emu.nodeApiToken}`, 'content-type': 'application/json' };
    const call = (endpoint: string, body: unknown) =>
      fetch(`${node.invoke_url}/${endpoint}`, { method: 'POST', headers, body: JSON.stringify(body) });
    await call('init', { password: 'gate-password' });
    const unlocked = await call('unlock', {
      password: 'gate-password',
      ldk_chain_sync: { mode: 'TransactionSync', config: { indexer_url: '127.0.0.1:50001' } },
      indexer_url: '127.0.0.1:50001',
      announce_addresses: [],
    });
    if (!unlocked.ok) throw new Error(`unlock: ${await unlocked.text()}`);
  }, 60_000);

  afterAll(async () => {
    await db?.close();
    await emu?.close();
  });

  /** Calls `n` reads on `api` at once. */
  const reads = (api: NodeApiClient, n: number) => Array.from({ length: n }, () => api.listchannels());

  it('two clients of one node (a report and a poll, say) share its turns: never more than NODE_CALLS_PER_NODE requests in flight', async () => {
    const a = wiring.nodeApi(node);
    // A rename makes another client of the same node (the clients are kept by address, name and image).
    const b = wiring.nodeApi({ ...node, name: 'gated-renamed' });
    expect(b).not.toBe(a);
    emu.faults.latencyMs = 40;
    try {
      const answers = await Promise.all([...reads(a, 6), ...reads(b, 6)]);
      expect(answers).toHaveLength(12);
      expect(answers.every((r) => Array.isArray(r.channels))).toBe(true);
    } finally {
      emu.faults.latencyMs = 0;
    }
    expect(emu.peakNodeRequests(node.nodeId)).toBe(PER_NODE);
  });

  it('a node keeps its two latest clients: a third view of it (another rename or image) drops the oldest', () => {
    const first = wiring.nodeApi(node);
    const renamed = wiring.nodeApi({ ...node, name: 'gated-renamed' });
    // Callers with either view get the client they had, not a new one (and a new transport) each time.
    expect(wiring.nodeApi(node)).toBe(first);
    expect(wiring.nodeApi({ ...node, name: 'gated-renamed' })).toBe(renamed);
    wiring.nodeApi({ ...node, name: 'gated-third' });
    expect(wiring.nodeApi({ ...node, name: 'gated-renamed' })).toBe(renamed);
    expect(wiring.nodeApi(node)).not.toBe(first);
  });

  it('a request that gets no turn within its deadline is not sent, and the error says why', async () => {
    const a = wiring.nodeApi(node);
    emu.faults.latencyMs = 1_500;
    try {
      const slow = reads(a, PER_NODE);
      const before = emu.requests.filter((r) => r.path.endsWith('/listpeers')).length;
      const e = await withDeadline(300, () => a.listpeers()).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(NodeApiError);
      expect((e as NodeApiError).kind).toBe('timeout');
      expect((e as NodeApiError).message).toBe(
        `gated did not answer in 300 ms: its ${PER_NODE} earlier requests from this bot were still unanswered, so this one was not sent (node API /listpeers)`,
      );
      await Promise.all(slow);
      expect(emu.requests.filter((r) => r.path.endsWith('/listpeers')).length).toBe(before);
    } finally {
      emu.faults.latencyMs = 0;
    }
  });
});
