/**
 * Every command that calls a node's API, on both generations of it, against the emulator: each request
 * body the emulator receives is validated against the request schema of that node's own OpenAPI document
 * (required fields, types, no field the document does not list), and each answer against the response
 * schema. The demo's nodes first run an image speaking f379330; `node upgrade` then moves them to the latest
 * image, speaking 6887cbf, and the same commands run again.
 *
 * A command that sent one generation's body to a node of the other fails here: /sendasset is not in
 * 6887cbf's document, the old /unlock lacks `ldk_chain_sync`, 6887cbf's /rgbinvoice fields are unknown
 * to f379330's, and so on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { logPolling } from '../../commands/node.js';
import type { Services } from '../../commands/services.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { ApiShapes, createNodeApiClient, imageOfNode } from '../../src/node-api/index.js';
import { INDEXER_URL, PASSWORD, runCommand, textOf, type TestEnv } from '../support/commands.js';
import { validateRequest, validateResponse, type Generation } from '../support/openapi.js';
import { waitFor } from '../support/wait-for.js';

const PROXY = 'rpc://127.0.0.1:3000/json-rpc';

/** One request the emulator's node API received, with the generation the node spoke then, and its answer. */
interface Seen {
  command: string;
  node: string;
  gen: Generation;
  method: 'GET' | 'POST';
  endpoint: string;
  body: unknown;
  status: number;
  reply: unknown;
}

/**
 * Commands that never call a node's API (the service, the bot's own store, help), and the report
 * commands, which read nodes through the reports feature (btcbalance, listchannels, listassets: requests
 * that do not differ between the generations and that `wallet balance`, `channel list` and `asset list`
 * send here too).
 */
const NOT_NODE_API = new Set([
  'node list',
  'node create',
  'node start',
  'node stop',
  'node upgrade',
  'node cert',
  'node settings',
  'node logs',
  'node image',
  'watch add',
  'watch remove',
  'watch list',
  'watch mute',
  'watch unmute',
  'watch ack',
  'report balance',
  'report channels',
  'report digest',
  'report schedule',
  'report schedules',
  'report unschedule',
  'access grant',
  'access revoke',
  'access list',
  'access link',
  'access unlink',
  'policy set',
  'policy list',
  'policy limits',
  'audit',
  'help',
  'status',
]);

let emulator: Emulator;
let env: TestEnv;
const seen: Seen[] = [];
const ran = new Set<string>();
let current = '(setup)';
const gens: Record<string, Generation> = {};

const byPath = new Map(allCommands.map((c) => [c.path, c]));

/** Runs a command's handler as the dispatcher would once every check passed; its node API requests are recorded under its path. */
async function run(path: string, args: Record<string, string>, secrets?: Record<string, string>) {
  const def = byPath.get(path);
  if (!def) throw new Error(`no command ${path}`);
  current = path;
  ran.add(path);
  try {
    return await runCommand(env, def, args, { secrets });
  } finally {
    current = '(between commands)';
  }
}

const codeIn = (text: string, re: RegExp) => {
  const m = re.exec(text);
  if (!m) throw new Error(`nothing matches ${re} in: ${text.slice(0, 400)}`);
  return m[1];
};

async function node(name: string): Promise<HostedNode> {
  const n = (await env.services.hosting.listNodes()).find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name}`);
  return n;
}

beforeAll(async () => {
  logPolling.delayMs = 20;
  logPolling.attempts = 10;
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 20, seed: 'demo', demoPassword: PASSWORD, fundingSat: 10_000_000 });
  const world = emulator.world;
  // Observe every node API request the emulator answers (the call goes through unchanged).
  const handle = world.handle.bind(world);
  world.handle = async (nodeId, method, endpoint, body) => {
    const gen = world.hasNode(nodeId) ? world.apiOf(nodeId) : 'f379330';
    const reply = await handle(nodeId, method, endpoint, body);
    const name = emulator.nodes().find((n) => n.nodeId === nodeId)?.name ?? nodeId;
    seen.push({ command: current, node: name, gen, method, endpoint, body, status: reply.status, reply: reply.body });
    return reply;
  };
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token, retry: { limit: 0 } });
  // As the app wires it: one memory of every node's generations, each client told the node's image.
  const shapes = new ApiShapes();
  const api = (n: HostedNode) =>
    createNodeApiClient({
      baseUrl: n.invoke_url!,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
      shapes: shapes.of(n.nodeId, imageOfNode(n)),
      image: imageOfNode(n),
    });
  const services = { hosting, nodeApi: api, now: Date.now } as Partial<Services> as Services;
  env = { emulator, world, services, api, close: () => emulator.close() };
}, 30_000);

afterAll(async () => {
  await emulator?.close();
});

/** Every command that calls a node API, with `x` paying `y`; `fresh` is a node with no wallet yet. */
async function everyCommand(gen: Generation, x: string, y: string, fresh: string) {
  const world = emulator.world;
  const yNode = await node(y);
  const yKey = world.pubkeyOf(yNode.nodeId);
  const endpoints: Record<string, string> = gen === '6887cbf' ? { transport_endpoints: PROXY } : {};

  await run('node info', { node: x });
  await run('wallet address', { node: x });
  await run('wallet balance', { node: x });
  await run('wallet utxos', { node: x, num: '4', size: '32500', fee_rate: '2' });
  await run('wallet utxos', { node: y, num: '4', size: '32500', fee_rate: '2' });
  world.mine(1);
  await run('wallet unspents', { node: x });
  await run('wallet fee', { node: x, blocks: '3' });
  await run('wallet sign', { node: x, message: 'hello' });
  const address = codeIn(textOf(await run('wallet address', { node: y })), /(bcrt1[0-9a-z]+)/);
  await run('wallet send', { node: x, address, amount: '0.0005 BTC', fee_rate: '2' });
  world.mine(1);
  await run('wallet transactions', { node: x });

  const ticker = gen === 'f379330' ? 'OLDG' : 'NEWG';
  await run('asset issue-nia', { node: x, ticker, name: `Gen ${gen}`, amounts: '1000', precision: '0' });
  const upload = textOf(await run('asset upload', { node: x, content: 'terms' }));
  const digest = codeIn(upload, /([0-9a-f]{64})/);
  await run('asset media', { node: x, digest });
  await run('asset issue-cfa', { node: x, name: 'Art', amounts: '10', file_digest: digest });
  await run('asset issue-uda', { node: x, ticker: `U${ticker.slice(1)}`, name: 'Unique' });
  if (gen === '6887cbf') {
    // Only later images have IFA (on f379330 these refuse before any call: needs-capability.test.ts).
    await run('asset issue-ifa', { node: x, ticker: 'INFL', name: 'Inflatable', amounts: '1000', inflation: '500' });
    await run('asset inflate', { node: x, asset_id: 'INFL', amounts: '100' });
  }
  world.mine(1);
  await run('asset list', { node: x });
  await run('asset balance', { node: x, asset_id: ticker });
  await run('asset metadata', { node: x, asset_id: ticker });
  const assetId = codeIn(textOf(await run('asset metadata', { node: x, asset_id: ticker })), /(rgb:[A-Za-z0-9~_$!-]{10,})/);

  const invoice = codeIn(
    textOf(await run('invoice rgb', { node: y, asset_id: assetId, amount: '25', raw: 'true', ...endpoints })),
    /(rgb:[^\s`]*\/[^\s`]+)/,
  );
  await run('invoice decode', { node: x, invoice });
  await run('asset send', { node: x, asset_id: ticker, amount: '25', raw: 'true', recipient_id: invoice });
  world.mine(1);
  await run('asset refresh', { node: x });
  await run('asset refresh', { node: y });
  await run('asset transfers', { node: x, asset_id: ticker });
  await run('invoice rgb', { node: y, ...endpoints });
  await run('asset fail', { node: y });
  if (gen === '6887cbf') {
    // Several recipients in one /sendrgb (on f379330 it refuses before any call: needs-capability.test.ts).
    const two: string[] = [];
    for (const _ of [1, 2]) two.push(codeIn(textOf(await run('invoice rgb', { node: y, ...endpoints })), /(rgb:[^\s`]*\/[^\s`]+)/));
    await run('asset send', { node: x, asset_id: ticker, amount: '5; 6', raw: 'true', recipient_id: two.join('; ') });
    world.mine(1);
    await run('asset refresh', { node: x });
    // Out of band: an invoice with no endpoints, the consignment read from the sender and given to the receiver, then the ACK.
    const oob = codeIn(
      textOf(await run('invoice rgb', { node: y, asset_id: assetId, amount: '5', raw: 'true', transport_endpoints: 'none' })),
      /(rgb:[^\s`]*\/[^\s`]+)/,
    );
    const sent = textOf(await run('asset send', { node: x, asset_id: ticker, amount: '5', raw: 'true', recipient_id: oob }));
    const txid = codeIn(sent, /Txid:?\s*`?([0-9a-f]{64})/);
    const recipient = codeIn(sent, /asset ack \S+ (\S+?)`/);
    await run('asset consignment', { node: x, asset_id: ticker, txid });
    await run('asset deliver', { node: y, from: x, asset_id: ticker, txid });
    await run('asset ack', { node: x, recipient_id: recipient });
    world.mine(1);
    await run('asset refresh', { node: x });
    await run('asset refresh', { node: y });
    await run('wallet unspents', { node: y, settled_only: 'true' });
  } else {
    // New-only commands on an f379330 node: refused before any call, naming the image they need.
    for (const [path, args] of [
      ['asset consignment', { node: x, asset_id: ticker, txid: 'ab'.repeat(32) }],
      ['asset deliver', { node: y, consignment: '52474200' }],
      ['asset ack', { node: x, recipient_id: 'utxob:none' }],
      ['wallet unspents', { node: x, settled_only: 'true' }],
    ] as const) {
      await expect(run(path, args)).rejects.toThrow(/needs an RLN image/);
    }
  }

  await run('peer connect', { node: x, peer_pubkey_and_addr: `${yKey}@127.0.0.1:9735` });
  await run('peer list', { node: x });
  await run('net info', { node: x });
  await run('net check-indexer', { node: x, indexer_url: INDEXER_URL });
  await run('net check-proxy', { node: x, proxy_endpoint: PROXY });
  await run('net onion', { node: x, node_ids: yKey, tlv_type: '77', data: 'ping' });
  const opened = textOf(
    await run('channel open', { node: x, peer_pubkey_and_opt_addr: yKey, capacity_sat: '100000', push_msat: '10000000' }),
  );
  const temporary = codeIn(opened, /([0-9a-f]{64})/);
  const assetChannel = { node: x, peer_pubkey_and_opt_addr: yKey, capacity_sat: '100000', asset_id: ticker, asset_amount: '100' };
  if (gen === '6887cbf') await run('channel open', { ...assetChannel, push_asset_amount: '10', raw: 'true' });
  else await expect(run('channel open', { ...assetChannel, push_asset_amount: '10', raw: 'true' })).rejects.toThrow(/needs an RLN image/);
  world.mine(1);
  await run('channel id', { node: x, temporary_channel_id: temporary });
  await run('channel list', { node: x });
  if (gen === '6887cbf') {
    const described = textOf(await run('invoice ln', { node: y, amt_msat: '3000000', description: 'one coffee' }));
    expect(described).toContain('one coffee');
    await run('invoice ln', { node: y, description_hash: 'ab'.repeat(32) });
    const open = codeIn(textOf(await run('invoice ln', { node: y })), /(lnbcrt\S+)/);
    await run('pay send', { node: x, invoice: open, amt_msat: '5000 sats' });
  } else {
    await expect(run('invoice ln', { node: y, description: 'one coffee' })).rejects.toThrow(/needs an RLN image/);
  }
  const ln = codeIn(textOf(await run('invoice ln', { node: y, amt_msat: '3000000', expiry_sec: '600' })), /(lnbcrt\S+)/);
  await run('invoice status', { node: y, invoice: ln });
  await run('pay send', { node: x, invoice: ln });
  await run('pay keysend', { node: x, dest_pubkey: yKey, amt_msat: '2000000' });
  await run('pay list', { node: x });
  const made = textOf(await run('swap maker-init', { node: x, qty_from: '3000 sat', qty_to: '5', to_asset: assetId }));
  const swapstring = codeIn(made, /(\d+\/[^\s]*\/\d+\/[^\s]*\/\d+\/[0-9a-f]{64})/);
  const secret = codeIn(made, /Payment secret:?\s*`?([0-9a-f]{64})/);
  if (gen === '6887cbf') await run('swap decode', { node: y, swapstring });
  await run('swap taker', { node: y, swapstring });
  await run('swap maker-execute', { node: x, swapstring, payment_secret: secret, taker_pubkey: yKey }).catch((e: unknown) => e);
  await run('swap list', { node: x });
  // The list shows a prefix of the id, which `channel close` takes.
  // Every channel is closed (6887cbf's pass opened an asset channel too), so that the peer can be disconnected.
  const channelIds = [...textOf(await run('channel list', { node: x })).matchAll(/\| ([0-9a-f]{12})…/g)].map((m) => m[1]);
  for (const channelId of channelIds) await run('channel close', { node: x, channel_id: channelId, peer_pubkey: yKey });
  world.mine(1);
  await run('peer disconnect', { node: x, peer_pubkey: yKey });

  await run('node sync', { node: x, strategy: 'FullSync' });
  await run('node lock', { node: x });
  const backup = `/backups/${x}-${gen}.backup`;
  await run('node backup', { node: x, backup_path: backup }, { password: PASSWORD });
  await run('node password', { node: x }, { old_password: PASSWORD, new_password: `${PASSWORD}!`, new_password_repeat: `${PASSWORD}!` });
  await run('node password', { node: x }, { old_password: `${PASSWORD}!`, new_password: PASSWORD, new_password_repeat: PASSWORD });
  await run('node restore', { node: x, backup_path: backup }, { overwrite: 'true', password: PASSWORD });
  await run('node unlock', { node: x, indexer_url: INDEXER_URL }, { password: PASSWORD });
  // lock=yes (a backup alert's button) on an unlocked node: /backup answers UnlockedNode, then /lock and /backup again.
  const locked = await run('node backup', { node: x, backup_path: `${backup}.2`, lock: 'yes' }, { password: PASSWORD, lock_first: 'true' });
  expect(textOf(locked)).toContain('was locked for the backup');
  await run('node unlock', { node: x, indexer_url: INDEXER_URL }, { password: PASSWORD });
  await run('node shutdown', { node: y });
  await run('node unlock', { node: y, indexer_url: INDEXER_URL }, { password: PASSWORD });

  if (gen === '6887cbf') {
    const words = `${'abandon '.repeat(11)}about`;
    await run('node init', { node: fresh, recover: 'true' }, { password: PASSWORD, password_repeat: PASSWORD, mnemonic: words });
  } else {
    await run('node init', { node: fresh }, { password: PASSWORD, password_repeat: PASSWORD });
  }
  await run('node unlock', { node: fresh, indexer_url: INDEXER_URL }, { password: PASSWORD });
  await run('node destroy', { node: fresh, backup_path: `/backups/${fresh}.backup`, backup: 'true' }, { backup_password: PASSWORD });
}

describe('node API requests of every command, on both generations', () => {
  it('f379330: the demo nodes, as seeded', async () => {
    for (const n of emulator.nodes()) gens[n.name] = emulator.world.apiOf(n.nodeId);
    expect(gens).toMatchObject({ alice: 'f379330', bob: 'f379330', carol: 'f379330' });
    // carol (PAUSED, no wallet yet) is the f379330 node to initialise.
    await env.services.hosting.startNode((await node('carol')).nodeId);
    await waitFor(async () => (await node('carol')).status === 'RUNNING', { timeout: 2_000, what: 'carol RUNNING' });
    await everyCommand('f379330', 'alice', 'bob', 'carol');
    expect(seen.filter((s) => s.gen === 'f379330').length).toBeGreaterThan(80);
  }, 120_000);

  it('6887cbf: the same nodes after `node upgrade` (locked, then unlocked in the new generation)', async () => {
    for (const name of ['alice', 'bob']) {
      await run('node upgrade', { node: name });
      await waitFor(
        async () => {
          const n = await node(name);
          return n.status === 'RUNNING' && emulator.world.apiOf(n.nodeId) === '6887cbf';
        },
        { timeout: 3_000, what: `${name} upgraded` },
      );
      const err = await env
        .api(await node(name))
        .nodeinfo()
        .catch((e: { rlnName?: string }) => e);
      expect((err as { rlnName?: string }).rlnName).toBe('LockedNode');
      await run('node unlock', { node: name, indexer_url: INDEXER_URL }, { password: PASSWORD });
    }
    await env.services.hosting.createNode({ name: 'dave', network: 'regtest' });
    await waitFor(async () => (await node('dave')).status === 'RUNNING', { timeout: 2_000, what: 'dave RUNNING' });
    await everyCommand('6887cbf', 'alice', 'bob', 'dave');
    expect(seen.filter((s) => s.gen === '6887cbf').length).toBeGreaterThan(80);
  }, 120_000);

  it('every body the emulator received fits its node’s document, and every answer too', () => {
    const problems: string[] = [];
    for (const s of seen) {
      const where = `${s.command} → ${s.method} /${s.endpoint} on ${s.node} (${s.gen})`;
      if (s.method === 'POST' && !(s.body instanceof Uint8Array)) {
        const req = validateRequest(s.endpoint, s.method, s.body, s.gen);
        if (!req.ok) problems.push(`${where}: request ${req.errors} — sent ${JSON.stringify(s.body)}`);
      }
      if (s.status === 200) {
        const res = validateResponse(s.endpoint, s.method, s.reply, s.gen);
        if (!res.ok) problems.push(`${where}: response ${res.errors}`);
      }
    }
    expect(problems).toEqual([]);
    // Both generations were spoken, and the generation-specific endpoints were used on each.
    const used = (gen: Generation) => new Set(seen.filter((s) => s.gen === gen && s.status === 200).map((s) => s.endpoint));
    expect([...used('f379330')]).toContain('sendasset');
    expect([...used('6887cbf')]).toContain('sendrgb');
    expect([...used('6887cbf')]).not.toContain('sendasset');
  });

  it('drives every command that calls a node API (the others are listed, with why)', () => {
    const callers = new Set(seen.map((s) => s.command));
    for (const c of allCommands) {
      if (NOT_NODE_API.has(c.path)) {
        expect(callers.has(c.path), `${c.path} is listed as not calling a node API, but it did`).toBe(false);
      } else {
        expect(ran.has(c.path), `${c.path} calls a node API and is not driven by this test`).toBe(true);
        expect(callers.has(c.path), `${c.path} was run but sent nothing to a node API`).toBe(true);
      }
    }
  });
});
