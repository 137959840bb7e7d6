import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApiClient, endpointNames, endpoints, type EndpointName, type NodeApiClient } from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createHostingClient } from '../../src/hosting/index.js';
import { documentedEndpoints } from '../support/openapi.js';
import { startNodeWorldServer } from '../support/node-world-server.js';
import { waitFor } from '../support/wait-for.js';

/** Regtest funding of each new wallet (checked by the on-chain test). */
const FUNDING_SAT = 2_000_000;
const NAMES = ['alice', 'bob', 'carol'] as const;
type Name = (typeof NAMES)[number];

/** Where the node API is served: the world behind it, a client per node, its pubkey. */
interface Backend {
  world: NodeWorld;
  client(name: Name): NodeApiClient;
  pubkeyOf(name: Name): string;
  /** The endpoints the server answered over HTTP (any node). */
  served(): Set<string>;
  close(): Promise<void>;
}

/** The test server of test/support: a NodeWorld at /<nodeId>/<endpoint>. */
async function loopbackWorld(): Promise<Backend> {
  const token = 'test-node-token';
  const world = new NodeWorld({ fundingSat: FUNDING_SAT });
  for (const id of NAMES) world.addNode(id, { network: 'regtest', alias: id });
  const server = await startNodeWorldServer({ world, token });
  return {
    world,
    client: (name) => createNodeApiClient({ baseUrl: server.urlOf(name), credentials: { kind: 'token', token }, timeoutMs: 5000 }),
    pubkeyOf: (name) => world.pubkeyOf(name),
    served: () => new Set(server.hits.keys()),
    close: () => server.close(),
  };
}

/**
 * The emulator the bot is run against: nodes created through the management API, each node API
 * at its invoke_url behind the emulator's own HTTP layer (node API token, routing by account and
 * node, lossless JSON bodies, multipart, raw answers for amounts above 2^53).
 */
async function emulator(): Promise<Backend> {
  const e = await startEmulator({ lifecycleDelayMs: 10, fundingSat: FUNDING_SAT });
  try {
    const hosting = createHostingClient({ baseUrl: e.url, token: e.token, timeoutMs: 5000 });
    const ids = {} as Record<Name, string>;
    for (const name of NAMES) ids[name] = (await hosting.createNode({ name, network: 'regtest' })).node.nodeId;
    const nodes = await waitFor(
      async () => {
        const listed = await hosting.listNodes();
        return listed.every((n) => n.status === 'RUNNING') && listed;
      },
      { timeout: 5_000, what: 'emulator nodes RUNNING' },
    );
    const invokeUrl = (name: Name) => nodes.find((n) => n.nodeId === ids[name])!.invoke_url!;
    for (const name of NAMES) expect(invokeUrl(name)).toBe(`${e.url}/nodes/${e.userId}/${ids[name]}`);
    return {
      world: e.world,
      client: (name) =>
        createNodeApiClient({ baseUrl: invokeUrl(name), credentials: { kind: 'token', token: e.nodeApiToken }, timeoutMs: 5000 }),
      pubkeyOf: (name) => e.world.pubkeyOf(ids[name]),
      served: () => new Set(e.requests.filter((r) => r.path.startsWith(`/nodes/${e.userId}/`)).map((r) => r.path.split('/')[4])),
      close: () => e.close(),
    };
  } catch (err) {
    await e.close();
    throw err;
  }
}

describe('node API client: the endpoint table', () => {
  it('defines every endpoint of both RLN OpenAPI documents (f379330 and 6887cbf) with its method and path', () => {
    const documented = [
      ...documentedEndpoints('f379330'),
      ...documentedEndpoints('6887cbf').filter(([e]) => !documentedEndpoints('f379330').some(([o]) => o === e)),
    ];
    expect(endpointNames.slice().sort()).toEqual(documented.map(([e]) => e).sort());
    // The endpoints only 6887cbf has are marked so.
    const onlyNew = documentedEndpoints('6887cbf')
      .map(([e]) => e)
      .filter((e) => !documentedEndpoints('f379330').some(([o]) => o === e));
    expect(endpointNames.filter((e) => (endpoints[e] as { since?: string }).since === '6887cbf').sort()).toEqual(onlyNew.sort());
    for (const [e, method] of documented) {
      const def = endpoints[e as EndpointName];
      expect(def.method, e).toBe(method);
      expect(def.path).toBe(`/${e}`);
      if (method === 'GET') expect(def.idempotent).toBe(true);
    }
    for (const write of [
      'sendpayment',
      'keysend',
      'sendasset',
      'sendbtc',
      'issueassetnia',
      'openchannel',
      'closechannel',
      'init',
      'unlock',
      'createutxos',
      'makerexecute',
    ] as const) {
      expect(endpoints[write].idempotent, write).toBe(false);
    }
  });
});

describe.each([
  ['a loopback NodeWorld server', loopbackWorld],
  ['the emulator, at each node’s invoke_url', emulator],
] as const)('node API client: every endpoint against %s', (_, start) => {
  const called = new Set<EndpointName>();

  /** A client that records which methods the tests used, so the last test can check all were. */
  function tracked(client: NodeApiClient): NodeApiClient {
    return new Proxy(client, {
      get(target, prop) {
        if (typeof prop === 'string' && prop in target) called.add(prop as EndpointName);
        return target[prop as EndpointName];
      },
    });
  }

  let backend: Backend;
  let alice: NodeApiClient;
  let bob: NodeApiClient;
  let carol: NodeApiClient;
  const pk = (name: Name) => backend.pubkeyOf(name);

  beforeAll(async () => {
    backend = await start();
    [alice, bob, carol] = NAMES.map((n) => tracked(backend.client(n)));
  });
  afterAll(() => backend?.close());

  it('runs the lifecycle: init (mnemonic once), unlock, lock, changepassword, backup, restore, shutdown', async () => {
    const { mnemonic } = await carol.init({ password: 'carol-password' });
    expect(mnemonic.split(' ')).toHaveLength(12);
    await carol.unlock({ password: 'carol-password', indexer_url: '127.0.0.1:50001' });
    await carol.sync();
    await carol.revoketoken({ token: 'another-token' });
    await carol.lock();
    await carol.changepassword({ old_password: 'carol-password', new_password: 'carol-password-2' });
    await carol.backup({ backup_path: '/backups/carol', password: 'carol-password-2' });
    await carol.restore({ backup_path: '/backups/carol', password: 'carol-password-2' });
    await carol.unlock({ password: 'carol-password-2', indexer_url: '127.0.0.1:50001' });
    await carol.shutdown();
    await expect(carol.nodeinfo()).rejects.toMatchObject({ rlnName: 'LockedNode' });
    await alice.init({ password: 'alice-password' });
    await alice.unlock({ password: 'alice-password', indexer_url: '127.0.0.1:50001' });
    await bob.init({ password: 'bob-password' });
    await bob.unlock({ password: 'bob-password', indexer_url: '127.0.0.1:50001' });
  });

  it('reads and moves on-chain funds: address, btcbalance, createutxos, listunspents, sendbtc, listtransactions, estimatefee, signmessage', async () => {
    const { address } = await bob.address();
    expect(address).toMatch(/^bcrt1q/);
    const balance = await alice.btcbalance({ skip_sync: false });
    expect(balance.vanilla.settled).toBe(FUNDING_SAT);
    await alice.createutxos({ num: 4, size: 32_500, fee_rate: 1 });
    await bob.createutxos({ num: 4, size: 32_500 });
    const { unspents } = await alice.listunspents({ skip_sync: false });
    expect(unspents.filter((u) => u.utxo.colorable)).toHaveLength(4);
    const { txid } = await alice.sendbtc({ amount: 10_000n, address, fee_rate: 2 });
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    backend.world.mine(1);
    const { transactions } = await bob.listtransactions({ skip_sync: false });
    expect(transactions.some((t) => t.txid === txid && t.received === 10_000)).toBe(true);
    expect((await alice.estimatefee({ blocks: 6 })).fee_rate).toBeGreaterThan(0);
    expect((await alice.signmessage({ message: 'hi' })).signed_message.length).toBeGreaterThan(10);
  });

  let nia = '';
  let digest = '';
  it('issues and reads assets: postassetmedia (multipart), getassetmedia, issueasset*, listassets, assetbalance, assetmetadata', async () => {
    const bytes = Buffer.from('an image, really');
    ({ digest } = await alice.postassetmedia({ file: bytes, mime: 'image/png', filename: 'x.png' }));
    expect(Buffer.from((await alice.getassetmedia({ digest })).bytes_hex, 'hex')).toEqual(bytes);
    nia = (await alice.issueassetnia({ ticker: 'USDT', name: 'Tether', amounts: [1000, 600], precision: 2 })).asset.asset_id;
    const cfa = await alice.issueassetcfa({ name: 'Collectible', amounts: [10], precision: 0, file_digest: digest });
    expect(cfa.asset.media?.mime).toBe('image/png');
    const uda = await alice.issueassetuda({ ticker: 'UNI', name: 'Unique', precision: 0, media_file_digest: digest });
    expect(uda.asset.token?.index).toBe(0);
    const listed = await alice.listassets({ filter_asset_schemas: ['Nia', 'Cfa', 'Uda'] });
    expect(listed.nia?.map((a) => a.asset_id)).toEqual([nia]);
    expect(listed.cfa).toHaveLength(1);
    expect(await alice.assetbalance({ asset_id: nia })).toMatchObject({ settled: 1600, spendable: 1600 });
    expect(await alice.assetmetadata({ asset_id: nia })).toMatchObject({ asset_schema: 'Nia', precision: 2, ticker: 'USDT' });
  });

  it('round-trips invoices: lninvoice, rgbinvoice, decodelninvoice, decodergbinvoice, invoicestatus', async () => {
    const ln = await bob.lninvoice({ amt_msat: 1_500_000, expiry_sec: 600 });
    expect(await alice.decodelninvoice({ invoice: ln.invoice })).toMatchObject({
      amt_msat: 1_500_000,
      payee_pubkey: pk('bob'),
      network: 'Regtest',
    });
    expect((await bob.invoicestatus({ invoice: ln.invoice })).status).toBe('Pending');
    const rgb = await bob.rgbinvoice({ asset_id: nia, assignment: { type: 'Fungible', value: 100 } });
    const decoded = await alice.decodergbinvoice({ invoice: rgb.invoice });
    expect(decoded).toMatchObject({ recipient_id: rgb.recipient_id, asset_id: nia, assignment: { type: 'Fungible', value: 100 } });
  });

  it('transfers an asset on-chain: sendasset, listtransfers, refreshtransfers, failtransfers', async () => {
    // With a proxy where the node takes one (6887cbf): an invoice with no endpoints there is paid out of band.
    const proxied = (await bob.generation('rgbinvoice')) === '6887cbf' ? { transport_endpoints: ['rpc://127.0.0.1:3000/json-rpc'] } : {};
    const rgb = await bob.rgbinvoice({ asset_id: nia, assignment: { type: 'Fungible', value: 250 }, ...proxied });
    const { txid } = await alice.sendasset({
      asset_id: nia,
      assignment: { type: 'Fungible', value: 250 },
      recipient_id: rgb.recipient_id,
      fee_rate: 1,
      min_confirmations: 1,
    });
    backend.world.mine(1);
    await alice.refreshtransfers({ skip_sync: false });
    await bob.refreshtransfers({ skip_sync: false });
    const { transfers } = await bob.listtransfers({ asset_id: nia });
    expect(transfers.find((t) => t.txid === txid)).toMatchObject({ status: 'Settled', kind: 'ReceiveBlind' });
    expect((await bob.assetbalance({ asset_id: nia })).settled).toBe(250);
    expect((await bob.failtransfers({ no_asset_only: false })).transfers_changed).toBe(true);
  });

  it('connects peers and runs channels: connectpeer, listpeers, openchannel, getchannelid, listchannels, nodeinfo, networkinfo', async () => {
    await alice.connectpeer({ peer_pubkey_and_addr: `${pk('bob')}@127.0.0.1:9735` });
    expect((await bob.listpeers()).peers.map((p) => p.pubkey)).toEqual([pk('alice')]);
    const { temporary_channel_id } = await alice.openchannel({
      peer_pubkey_and_opt_addr: pk('bob'),
      capacity_sat: 100_000,
      push_msat: 20_000_000,
      asset_id: nia,
      asset_amount: 500,
      public: true,
    });
    const { channel_id } = await alice.getchannelid({ temporary_channel_id });
    backend.world.mine(1);
    const [ch] = (await bob.listchannels()).channels;
    expect(ch).toMatchObject({
      channel_id,
      status: 'Opened',
      is_usable: true,
      asset_id: nia,
      asset_local_amount: 0,
      asset_remote_amount: 500,
      local_balance_sat: 20_000,
    });
    const info = await alice.nodeinfo();
    expect(info).toMatchObject({ num_channels: 1, num_usable_channels: 1, num_peers: 1 });
    expect(info.channel_asset_max_amount).toBe(18_446_744_073_709_551_615n);
    expect((await alice.networkinfo()).network).toBe('Regtest');
    await alice.sendonionmessage({ node_ids: [pk('bob')], tlv_type: 77, data: 'ping' });
    await alice.checkindexerurl({ indexer_url: '127.0.0.1:50001' });
    await alice.checkproxyendpoint({ proxy_endpoint: 'rpc://127.0.0.1:3000/json-rpc' });
  });

  it('pays over the channel: sendpayment, keysend, listpayments, getpayment', async () => {
    const { invoice } = await bob.lninvoice({ amt_msat: 3_000_000, expiry_sec: 3600, asset_id: nia, asset_amount: 40 });
    const paid = await alice.sendpayment({ invoice });
    expect(paid.status).toBe('Succeeded');
    const ks = await bob.keysend({ dest_pubkey: pk('alice'), amt_msat: 1_000_000n });
    expect(ks.status).toBe('Succeeded');
    const { payments } = await bob.listpayments();
    expect(payments.map((p) => [p.inbound, p.status])).toEqual([
      [true, 'Succeeded'],
      [false, 'Succeeded'],
    ]);
    expect((await alice.getpayment({ payment_hash: paid.payment_hash! })).payment).toMatchObject({ inbound: false, asset_amount: 40 });
    expect((await bob.listchannels()).channels[0]).toMatchObject({ asset_local_amount: 40, asset_remote_amount: 460 });
  });

  it('swaps over the channel: makerinit, taker, makerexecute, listswaps, getswap', async () => {
    const init = await alice.makerinit({ qty_from: 10, from_asset: nia, qty_to: 2_000_000, timeout_sec: 60 });
    await bob.taker({ swapstring: init.swapstring });
    await alice.makerexecute({ swapstring: init.swapstring, payment_secret: init.payment_secret, taker_pubkey: pk('bob') });
    expect((await alice.listswaps()).maker[0]).toMatchObject({ status: 'Succeeded', qty_from: 10 });
    expect((await bob.getswap({ payment_hash: init.payment_hash, taker: true })).swap.status).toBe('Succeeded');
  });

  it('closes the channel and disconnects: closechannel, disconnectpeer', async () => {
    const [ch] = (await alice.listchannels()).channels;
    await alice.closechannel({ channel_id: ch.channel_id, peer_pubkey: pk('bob'), force: false });
    backend.world.mine(1);
    expect((await alice.listchannels()).channels).toEqual([]);
    await alice.disconnectpeer({ peer_pubkey: pk('bob') });
    expect((await alice.listpeers()).peers).toEqual([]);
  });

  it('has exercised every client method of f379330 (the new endpoints of 6887cbf are for their own commands)', () => {
    const f379330 = endpointNames.filter((e) => (endpoints[e] as { since?: string }).since === undefined);
    expect(f379330.filter((e) => !called.has(e))).toEqual([]);
    // ...and each reached the server over HTTP (a send as /sendrgb where the node speaks 6887cbf).
    const served = backend.served();
    if (served.has('sendrgb')) served.add('sendasset');
    expect(f379330.filter((e) => !served.has(e))).toEqual([]);
  });
});
