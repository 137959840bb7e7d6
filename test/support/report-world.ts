/**
 * Two emulated nodes with real balances, an asset and a channel between them, a locked
 * node and a paused one, for the report tests. Expected numbers are taken from the node
 * API client's own answers, never hard-coded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type Socket } from 'node:net';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode, type HostingClient } from '../../src/hosting/index.js';
import { createNodeApiClient, type NodeApiClient } from '../../src/node-api/index.js';
import type { Outbox, OutboxItem } from '../../src/vocabulary/chat.js';
import type { Services } from '../../commands/services.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { waitFor } from './wait-for.js';

export interface ReportWorld {
  emulator: Emulator;
  hosting: HostingClient;
  api(name: string): NodeApiClient;
  node(name: string): HostedNode;
  services: Pick<Services, 'hosting' | 'nodeApi'>;
  /** invoke_url of these nodes is replaced by a port that accepts connections and never answers. */
  hang: Set<string>;
  assetId: string;
  dbPath: string;
  openDb(): Db;
  close(): Promise<void>;
}

export function capturingOutbox(): Outbox & { items: OutboxItem[] } {
  const items: OutboxItem[] = [];
  return { items, enqueue: async (item) => void items.push(item) };
}

/** A TCP port that accepts and then says nothing: a node that hangs. */
async function silentPort(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/node`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export async function startReportWorld(): Promise<ReportWorld> {
  const emulator = await startEmulator({ seed: 'demo', demoPassword: 'demo-password-1', lifecycleDelayMs: 20 });
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
  const silent = await silentPort();
  const hang = new Set<string>();
  const client = (n: HostedNode) =>
    createNodeApiClient({
      baseUrl: n.invoke_url!,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
      timeoutMs: 5_000,
    });

  // dave: initialised but locked.
  const { node: dave } = await hosting.createNode({ name: 'dave', network: 'regtest' });
  await waitFor(() => emulator.nodes().find((n) => n.nodeId === dave.nodeId)?.status === 'RUNNING');
  const node = (name: string) => {
    const n = emulator.nodes().find((x) => x.name === name);
    if (!n) throw new Error(`no node ${name}`);
    return n;
  };
  await client(node('dave')).init({ password: 'dave-password-1' });

  const alice = client(node('alice'));
  const bob = client(node('bob'));
  await alice.createutxos({ num: 5, size: 32_500, up_to: false, fee_rate: 1, skip_sync: false });
  emulator.world.mine(1);
  const issued = (await alice.issueassetnia({ ticker: 'USDT', name: 'Tether', precision: 2, amounts: [123_456] })) as unknown as {
    asset: { asset_id: string };
  };
  const assetId = issued.asset.asset_id;
  const bobInfo = (await bob.nodeinfo()) as unknown as { pubkey: string };
  await alice.connectpeer({ peer_pubkey_and_addr: `${bobInfo.pubkey}@127.0.0.1:9735` });
  await alice.openchannel({
    peer_pubkey_and_opt_addr: bobInfo.pubkey,
    capacity_sat: 100_000,
    push_msat: 10_000_000,
    asset_id: assetId,
    asset_amount: 50_000,
    public: false,
  });
  emulator.world.mine(6);

  const dir = mkdtempSync(join(tmpdir(), 'rln-reports-'));
  const dbPath = join(dir, 'reports.db');
  const dbs: Db[] = [];
  const services: Pick<Services, 'hosting' | 'nodeApi'> = {
    hosting: {
      ...hosting,
      listNodes: async () => (await hosting.listNodes()).map((n) => (hang.has(n.name) ? { ...n, invoke_url: silent.url } : n)),
    },
    nodeApi: (n: HostedNode) => client(n),
  };
  return {
    emulator,
    hosting,
    api: (name) => client(node(name)),
    node,
    services,
    hang,
    assetId,
    dbPath,
    openDb() {
      const db = openDatabase(dbPath);
      dbs.push(db);
      return db;
    },
    async close() {
      for (const db of dbs) if (db.open) void db.close();
      await silent.close();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
