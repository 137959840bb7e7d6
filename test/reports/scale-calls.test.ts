/**
 * Node calls at scale, end to end against the emulator (in-process, every node initialised and
 * unlocked, each answer delayed): the dashboard asks only the nodes of the page shown; a report
 * over every node goes through the call scheduler, which keeps to its bounds and tells progress;
 * a node that hangs reaches its deadline and is shown as such, with its last known figures and
 * their age, without hiding the others. No timing is asserted: requests are counted at the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createCallScheduler, createNodeApiClient, type CallScheduler } from '../../src/node-api/index.js';
import { createReports } from '../../src/reports/index.js';
import { createActivityStateRepo, openDatabase, type Db } from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import { dashboardMessage, STATUS_PAGE_SIZE } from '../../commands/status.js';
import { messageText } from '../support/reply-text.js';
import { capturingOutbox } from '../support/report-world.js';
import { waitFor } from '../support/wait-for.js';

const NODES = 40;
const MAX = 8;
const PER_NODE = 2;

let emu: Emulator;
let db: Db;
let calls: CallScheduler;
let reports: ReturnType<typeof createReports>;
/** Names of nodes whose invoke_url goes to a port that accepts and never answers. */
const hang = new Set<string>();
let silent: Server;
let silentUrl = '';
const sockets = new Set<Socket>();

/** The node ids the emulator saw node API requests for, from `from` on. */
const askedNodes = (from: number): Set<string> =>
  new Set(
    emu.requests
      .slice(from)
      .filter((r) => r.path.startsWith('/nodes/'))
      .map((r) => r.path.split('/')[3]),
  );

beforeAll(async () => {
  emu = await startEmulator({ seed: 'none', lifecycleDelayMs: 10 });
  const hosting = createHostingClient({ baseUrl: emu.url, token: emu.token });
  for (let i = 0; i < NODES; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => hosting.createNode({ name: `n${String(i + j).padStart(3, '0')}`, network: 'regtest' })),
    );
  }
  await waitFor(() => emu.nodes().length === NODES && emu.nodes().every((n) => n.status === 'RUNNING'));
  const headers = { authorization: `Bearer ${emu.nodeApiToken}`, 'content-type': 'application/json' };
  const call = (n: HostedNode, endpoint: string, body: unknown) =>
    fetch(`${n.invoke_url}/${endpoint}`, { method: 'POST', headers, body: JSON.stringify(body) });
  await Promise.all(
    emu.nodes().map(async (n) => {
      await call(n, 'init', { password: 'scale-password' });
      const unlocked = await call(n, 'unlock', {
        password: 'scale-password',
        ldk_chain_sync: { mode: 'TransactionSync', config: { indexer_url: '127.0.0.1:50001' } },
        indexer_url: '127.0.0.1:50001',
        announce_addresses: [],
      });
      if (!unlocked.ok) throw new Error(`unlock ${n.name}: ${await unlocked.text()}`);
    }),
  );
  // Every answer takes a while, so that pieces overlap and the bounds are tested.
  emu.faults.latencyMs = 20;

  silent = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/node`;

  db = openDatabase(':memory:');
  calls = createCallScheduler({ maxConcurrency: MAX, initialConcurrency: 2, perNodeMax: PER_NODE });
  reports = createReports({
    db,
    calls,
    services: {
      hosting: {
        ...hosting,
        listNodes: async () => (await hosting.listNodes()).map((n) => (hang.has(n.name) ? { ...n, invoke_url: silentUrl } : n)),
      },
      nodeApi: (n) =>
        createNodeApiClient({
          baseUrl: n.invoke_url!,
          credentials: { kind: 'token', token: emu.nodeApiToken },
          retries: 0,
          timeoutMs: 20_000,
        }),
    },
    outbox: capturingOutbox(),
    logger: silentLogger,
    dashboardTimeoutMs: 1_500,
  });
}, 120_000);

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
  await emu?.close();
});

describe('node calls at scale', () => {
  it('the dashboard asks only the nodes of the page shown', async () => {
    const byName = new Map(emu.nodes().map((n) => [n.name, n.nodeId]));
    const from = emu.requests.length;
    const rows = await reports.service.dashboard({ page: 2, pageSize: STATUS_PAGE_SIZE });
    const shown = rows.filter((r) => !r.unread).map((r) => r.node.name);
    expect(shown).toEqual(Array.from({ length: STATUS_PAGE_SIZE }, (_, i) => `n${String(STATUS_PAGE_SIZE + i).padStart(3, '0')}`));
    expect(askedNodes(from)).toEqual(new Set(shown.map((name) => byName.get(name))));
    expect(rows).toHaveLength(NODES);
    const text = messageText(dashboardMessage(rows, { incidents: [], watches: [], now: new Date(), page: 2 }));
    expect(text).toContain('n008');
    expect(text).not.toContain('n016');
    expect(rows.filter((r) => !r.unread).every((r) => r.lock === 'unlocked')).toBe(true);
  });

  it('a report over every node keeps to the bounds, overall and per node, and tells its progress', async () => {
    const told: Array<[number, number]> = [];
    const r = await reports.service.balance('all', { chartDays: 0, onProgress: (done, total) => told.push([done, total]) });
    expect(r).toMatchObject({ answered: NODES, failed: 0 });
    expect(told).toHaveLength(NODES);
    expect(told.at(-1)).toEqual([NODES, NODES]);
    const stats = calls.stats();
    expect(stats.peakInFlight).toBeLessThanOrEqual(MAX);
    expect(stats.peakInFlight).toBeGreaterThan(2);
    expect(stats.peakPerNode).toBeLessThanOrEqual(PER_NODE);
    expect(stats.limit).toBeLessThanOrEqual(MAX);
  });

  it('a node that hangs reaches its deadline and shows its last known figures with their age; the others still answer', async () => {
    // What the activity poller kept of n001 at its last pass, a minute ago.
    const polledAt = Date.now() - 60_000;
    await createActivityStateRepo(db).put(
      emu.nodes().find((n) => n.name === 'n001')!.nodeId,
      {
        snapshot: {
          takenAt: polledAt,
          lock: 'unlocked',
          channels: [
            {
              id: 'c1',
              peerPubkey: '02ab',
              status: 'Opened',
              usable: true,
              capacitySat: '100000',
              localMsat: '60000000',
              remoteMsat: '40000000',
            },
          ],
        },
        bands: { channels: {}, inbound: 'ok', outbound: 'ok' },
      },
      polledAt,
    );
    hang.add('n001');
    try {
      const rows = await reports.service.dashboard({ page: 1, pageSize: STATUS_PAGE_SIZE });
      const slow = rows.find((r) => r.node.name === 'n001')!;
      expect(slow.problem).toBe('did not answer within 1.5 s');
      expect(slow).toMatchObject({ lock: 'unlocked', lnLocalSat: 60_000n, lnRemoteSat: 40_000n, channelsUsable: 1, channelsTotal: 1 });
      expect(slow.asOf?.channels?.getTime()).toBe(polledAt);
      // The balance report of the test before gave its on-chain figure, with that report's time.
      expect(slow.asOf?.onchain).toBeInstanceOf(Date);
      expect(rows.filter((r) => !r.unread && r.node.name !== 'n001').every((r) => r.lock === 'unlocked' && !r.problem)).toBe(true);
      const text = messageText(dashboardMessage(rows, { incidents: [], watches: [], now: new Date(polledAt + 60_000) }));
      expect(text).toContain('60,000 / 40,000 (as of 60 s ago)');
    } finally {
      hang.delete('n001');
    }
  });
});
