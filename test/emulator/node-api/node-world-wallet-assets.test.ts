import { describe, expect, it } from 'vitest';
import { NodeWorld, LARGE_AMOUNT_OFFSET } from '../../../src/emulator/node-api/index.js';
import { err, issueNia, ok, twoNodes } from '../../support/node-world.js';

describe('NodeWorld wallet', () => {
  it('funds a new wallet and moves vanilla funds to colored UTXOs with createutxos', async () => {
    const world = new NodeWorld({ fundingSat: 1_000_000 });
    world.addNode('n1', { network: 'regtest' });
    await world.seedReadyNode('n1', 'password1');
    await err(world, 'n1', 'issueassetnia', { ticker: 'AAA', name: 'A', amounts: [5], precision: 0 }, 403, 'NoAvailableUtxos');
    await ok(world, 'n1', 'createutxos', { num: 3, size: 40_000, fee_rate: 2 });
    const b = await ok(world, 'n1', 'btcbalance', {});
    expect(b.colored.future).toBe(120_000);
    expect(b.colored.settled).toBe(0);
    expect(b.vanilla.future).toBeLessThan(1_000_000 - 120_000);
    world.mine(1);
    const mined = await ok(world, 'n1', 'btcbalance', {});
    expect(mined.colored).toEqual({ settled: 120_000, future: 120_000, spendable: 120_000 });
    const { unspents } = await ok(world, 'n1', 'listunspents', { skip_sync: false });
    expect(unspents.filter((u: { utxo: { colorable: boolean } }) => u.utxo.colorable)).toHaveLength(3);
    await err(world, 'n1', 'createutxos', { num: 3, up_to: true }, 400, 'AllocationsAlreadyAvailable');
    await err(world, 'n1', 'createutxos', { num: 1, size: 100 }, 400, 'OutputBelowDustLimit');
    await err(world, 'n1', 'createutxos', { num: 1, fee_rate: 0.5 }, 400, 'InvalidFeeRate');
    await err(world, 'n1', 'createutxos', { num: 100, size: 1_000_000 }, 403, 'InsufficientFunds');
    const { transactions } = await ok(world, 'n1', 'listtransactions', {});
    expect(transactions.map((t: { transaction_type: string }) => t.transaction_type)).toContain('CreateUtxos');
  });

  it('sends bitcoin on-chain to an address of another node, which sees it after a block', async () => {
    const world = await twoNodes({ fundingSat: 500_000 });
    const { address } = await ok(world, 'bob', 'address', {});
    expect(address).toMatch(/^bcrt1q/);
    const before = (await ok(world, 'bob', 'btcbalance', {})).vanilla;
    const { txid } = await ok(world, 'alice', 'sendbtc', { amount: 20_000, address, fee_rate: 3 });
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    const pending = (await ok(world, 'bob', 'btcbalance', {})).vanilla;
    expect(pending.future - before.future).toBe(20_000);
    expect(pending.spendable).toBe(before.spendable);
    world.mine(1);
    expect((await ok(world, 'bob', 'btcbalance', {})).vanilla.settled - before.settled).toBe(20_000);
    await err(world, 'alice', 'sendbtc', { amount: 10_000_000, address }, 403, 'InsufficientFunds');
    await err(world, 'alice', 'sendbtc', { amount: 1_000, address: 'not-an-address' }, 400, 'InvalidAddress');
  });

  it('estimates fees, signs messages and reports network and node info', async () => {
    const world = await twoNodes();
    const { fee_rate } = await ok(world, 'alice', 'estimatefee', { blocks: 7 });
    expect(fee_rate).toBeGreaterThanOrEqual(1);
    const s1 = await ok(world, 'alice', 'signmessage', { message: 'hello' });
    const s2 = await ok(world, 'alice', 'signmessage', { message: 'hello' });
    expect(s1.signed_message).toBe(s2.signed_message);
    expect((await ok(world, 'bob', 'signmessage', { message: 'hello' })).signed_message).not.toBe(s1.signed_message);
    const net = await ok(world, 'alice', 'networkinfo');
    world.mine(3);
    expect((await ok(world, 'alice', 'networkinfo')).height).toBe(net.height + 3);
    const info = await ok(world, 'alice', 'nodeinfo');
    expect(info.pubkey).toBe(world.pubkeyOf('alice'));
    expect(info).toMatchObject({ num_channels: 0, num_peers: 0, rgb_htlc_min_msat: 3_000_000 });
    const raw = (await world.handle('alice', 'GET', 'nodeinfo', undefined)).raw!;
    expect(raw).toContain('"channel_asset_max_amount":18446744073709551615');
    await ok(world, 'alice', 'checkindexerurl', { indexer_url: '127.0.0.1:50001' });
    expect((await ok(world, 'alice', 'checkindexerurl', { indexer_url: 'https://esplora.example/api' })).indexer_protocol).toBe('Esplora');
    await err(world, 'alice', 'checkindexerurl', { indexer_url: 'nonsense' }, 400, 'InvalidIndexer');
    await ok(world, 'alice', 'checkproxyendpoint', { proxy_endpoint: 'rpcs://proxy.example/json-rpc' });
    await err(world, 'alice', 'checkproxyendpoint', { proxy_endpoint: 'ftp://x' }, 400, 'InvalidProxyEndpoint');
  });

  it('answers btcbalance above 2^53 exactly in raw when asked to', async () => {
    const world = await twoNodes();
    const normal = await ok(world, 'alice', 'btcbalance', {});
    world.setLargeAmounts('alice', true);
    const r = await world.handle('alice', 'POST', 'btcbalance', {});
    const exact = BigInt(normal.vanilla.settled) + LARGE_AMOUNT_OFFSET;
    expect(r.raw).toContain(`"settled":${exact}`);
    expect(exact > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});

describe('NodeWorld assets', () => {
  it('issues NIA, CFA and UDA assets that appear in listassets (filtered) with their precision and balance', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice', [1000, 600], 2);
    const balance = await ok(world, 'alice', 'assetbalance', { asset_id: nia });
    expect(balance).toEqual({ settled: 1600, future: 1600, spendable: 1600, offchain_outbound: 0, offchain_inbound: 0 });
    const { digest } = await ok(world, 'alice', 'postassetmedia', {
      file: Buffer.from('hello media').toString('base64'),
      mime: 'text/plain',
    });
    expect((await ok(world, 'alice', 'getassetmedia', { digest })).bytes_hex).toBe(Buffer.from('hello media').toString('hex'));
    const cfa = await ok(world, 'alice', 'issueassetcfa', {
      name: 'Collectible',
      details: 'd',
      precision: 0,
      amounts: [77],
      file_digest: digest,
    });
    expect(cfa.asset.media.mime).toBe('text/plain');
    const uda = await ok(world, 'alice', 'issueassetuda', {
      ticker: 'UNI',
      name: 'Unique',
      precision: 0,
      media_file_digest: digest,
      attachments_file_digests: [digest],
    });
    expect(uda.asset.token.attachments['0'].mime).toBe('text/plain');
    const all = await ok(world, 'alice', 'listassets', { filter_asset_schemas: [] });
    expect([all.nia.length, all.cfa.length, all.uda.length]).toEqual([1, 1, 1]);
    expect(all.nia[0]).toMatchObject({ asset_id: nia, ticker: 'USDT', precision: 2, issued_supply: 1600 });
    const onlyCfa = await ok(world, 'alice', 'listassets', { filter_asset_schemas: ['Cfa'] });
    expect(Object.keys(onlyCfa)).toEqual(['cfa']);
    const meta = await ok(world, 'alice', 'assetmetadata', { asset_id: nia });
    expect(meta).toMatchObject({ asset_schema: 'Nia', precision: 2, ticker: 'USDT', initial_supply: 1600 });
    expect((await ok(world, 'alice', 'assetmetadata', { asset_id: uda.asset.asset_id })).token.index).toBe(0);
    const { transfers } = await ok(world, 'alice', 'listtransfers', { asset_id: nia });
    expect(transfers[0]).toMatchObject({ kind: 'Issuance', status: 'Settled' });
    const { unspents } = await ok(world, 'alice', 'listunspents', { skip_sync: false });
    const allocated = unspents
      .flatMap((u: { rgb_allocations: Array<{ asset_id: string; assignment: { value: number } }> }) => u.rgb_allocations)
      .filter((a: { asset_id: string }) => a.asset_id === nia)
      .reduce((s: number, a: { assignment: { value: number } }) => s + a.assignment.value, 0);
    expect(allocated).toBe(1600);
    expect((await ok(world, 'bob', 'listassets', {})).nia).toEqual([]);
  });

  it('refuses invalid issuance input and unknown assets', async () => {
    const world = await twoNodes();
    await err(world, 'alice', 'issueassetnia', { ticker: 'usdt', name: 'x', amounts: [1], precision: 0 }, 400, 'InvalidTicker');
    await err(world, 'alice', 'issueassetnia', { ticker: 'USDT', name: 'x', amounts: [], precision: 0 }, 400, 'InvalidAmount');
    await err(world, 'alice', 'issueassetnia', { ticker: 'USDT', name: 'x', amounts: [1], precision: 19 }, 400, 'InvalidPrecision');
    await err(
      world,
      'alice',
      'issueassetcfa',
      { name: 'x', amounts: [1], precision: 0, file_digest: 'ab'.repeat(32) },
      400,
      'InvalidMediaDigest',
    );
    await err(world, 'alice', 'postassetmedia', {}, 400, 'MediaFileNotProvided');
    await err(world, 'alice', 'assetbalance', { asset_id: 'nope' }, 400, 'InvalidAssetID');
    const nia = await issueNia(world, 'alice');
    await err(world, 'bob', 'assetbalance', { asset_id: nia }, 403, 'UnknownContractId');
  });
});

describe('NodeWorld invoices', () => {
  it('round-trips an LN invoice through decodelninvoice and invoicestatus', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice');
    const { invoice } = await ok(world, 'alice', 'lninvoice', { amt_msat: 3_000_000, expiry_sec: 420, asset_id: nia, asset_amount: 42 });
    expect(invoice).toMatch(/^lnbcrt/);
    const decoded = await ok(world, 'bob', 'decodelninvoice', { invoice });
    expect(decoded).toMatchObject({
      amt_msat: 3_000_000,
      expiry_sec: 420,
      asset_id: nia,
      asset_amount: 42,
      payee_pubkey: world.pubkeyOf('alice'),
      network: 'Regtest',
    });
    expect((await ok(world, 'alice', 'invoicestatus', { invoice })).status).toBe('Pending');
    const plain = await ok(world, 'alice', 'lninvoice', { expiry_sec: 1 });
    expect((await ok(world, 'alice', 'decodelninvoice', { invoice: plain.invoice })).amt_msat).toBeUndefined();
    await err(world, 'alice', 'decodelninvoice', { invoice: 'lnbcrt1garbage' }, 400, 'InvalidInvoice');
    await err(world, 'alice', 'lninvoice', { asset_id: nia }, 400, 'InvalidInvoice');
  });

  it('round-trips an RGB invoice through decodergbinvoice, and failtransfers fails it', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice');
    const r = await ok(world, 'bob', 'rgbinvoice', {
      asset_id: nia,
      assignment: { type: 'Fungible', value: 10 },
      duration_seconds: 600,
      min_confirmations: 1,
      witness: false,
    });
    const decoded = await ok(world, 'alice', 'decodergbinvoice', { invoice: r.invoice });
    expect(decoded).toMatchObject({
      recipient_id: r.recipient_id,
      recipient_type: 'Blind',
      asset_id: nia,
      asset_schema: 'Nia',
      assignment: { type: 'Fungible', value: 10 },
      network: 'Regtest',
      expiration_timestamp: r.expiration_timestamp,
    });
    const witness = await ok(world, 'bob', 'rgbinvoice', { witness: true, min_confirmations: 1 });
    expect((await ok(world, 'bob', 'decodergbinvoice', { invoice: witness.invoice })).recipient_type).toBe('Witness');
    expect((await ok(world, 'bob', 'failtransfers', { batch_transfer_idx: r.batch_transfer_idx })).transfers_changed).toBe(true);
    // Failed now (bob holds no nia, so f379330 cannot list the invoice's transfer by asset): a second fail is refused.
    await err(world, 'bob', 'failtransfers', { batch_transfer_idx: r.batch_transfer_idx }, 403, 'CannotFailBatchTransfer');
    await err(
      world,
      'alice',
      'sendasset',
      {
        asset_id: nia,
        assignment: { type: 'Fungible', value: 10 },
        recipient_id: r.recipient_id,
        donation: false,
        fee_rate: 2,
        min_confirmations: 1,
        transport_endpoints: [],
        skip_sync: false,
      },
      400,
      'InvalidRecipientID',
    );
    await err(world, 'alice', 'decodergbinvoice', { invoice: 'not an invoice' }, 400, 'InvalidInvoice');
  });
});
