import { describe, expect, it } from 'vitest';
import { err, issueNia, ok, openChannel, twoNodes, type Any } from '../../support/node-world.js';

describe('NodeWorld peers and channels between two nodes', () => {
  it('connects by pubkey@host:port, lists peers on both sides and disconnects', async () => {
    const world = await twoNodes();
    const bob = world.pubkeyOf('bob');
    await err(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: bob }, 400, 'InvalidPeerInfo');
    await err(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: `02${'ab'.repeat(32)}@127.0.0.1:9735` }, 500, 'FailedPeerConnection');
    await err(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: 'xyz@127.0.0.1:9735' }, 400, 'InvalidPubkey');
    await ok(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: `${bob}@127.0.0.1:9735` });
    expect((await ok(world, 'alice', 'listpeers')).peers).toEqual([{ pubkey: bob }]);
    expect((await ok(world, 'bob', 'listpeers')).peers).toEqual([{ pubkey: world.pubkeyOf('alice') }]);
    await ok(world, 'alice', 'sendonionmessage', { node_ids: [bob], tlv_type: 77, data: 'hi' });
    await err(world, 'alice', 'sendonionmessage', { node_ids: [bob], tlv_type: 3, data: 'hi' }, 400, 'InvalidTlvType');
    await ok(world, 'alice', 'disconnectpeer', { peer_pubkey: bob });
    expect((await ok(world, 'bob', 'listpeers')).peers).toEqual([]);
  });

  it('opens a channel Opening -> Opened after a block, visible on both sides with balances', async () => {
    const world = await twoNodes();
    await ok(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: `${world.pubkeyOf('bob')}@127.0.0.1:9735` });
    await err(world, 'alice', 'openchannel', { peer_pubkey_and_opt_addr: world.pubkeyOf('bob'), capacity_sat: 1000 }, 400, 'InvalidAmount');
    await err(
      world,
      'alice',
      'openchannel',
      { peer_pubkey_and_opt_addr: world.pubkeyOf('bob'), capacity_sat: 16_000_000 },
      403,
      'InsufficientFunds',
    );
    const { temporary_channel_id } = await ok(world, 'alice', 'openchannel', {
      peer_pubkey_and_opt_addr: world.pubkeyOf('bob'),
      capacity_sat: 50_000,
      push_msat: 5_000_000,
      public: true,
    });
    const opening = (await ok(world, 'alice', 'listchannels')).channels[0];
    expect(opening).toMatchObject({ status: 'Opening', ready: false, is_usable: false, capacity_sat: 50_000 });
    const { channel_id } = await ok(world, 'alice', 'getchannelid', { temporary_channel_id });
    expect(channel_id).toBe(opening.channel_id);
    await err(world, 'alice', 'getchannelid', { temporary_channel_id: 'ab'.repeat(32) }, 404, 'UnknownTemporaryChannelId');
    world.mine(1);
    const a = (await ok(world, 'alice', 'listchannels')).channels[0];
    const b = (await ok(world, 'bob', 'listchannels')).channels[0];
    expect(a).toMatchObject({
      status: 'Opened',
      is_usable: true,
      local_balance_sat: 45_000,
      peer_pubkey: world.pubkeyOf('bob'),
      peer_alias: 'bob',
    });
    expect(b).toMatchObject({ channel_id, status: 'Opened', local_balance_sat: 5_000, peer_pubkey: world.pubkeyOf('alice') });
    expect(a.outbound_balance_msat + b.inbound_balance_msat).toBeGreaterThan(0);
    expect(typeof a.short_channel_id).toBe('number');
    const info = await ok(world, 'alice', 'nodeinfo');
    expect(info).toMatchObject({ num_channels: 1, num_usable_channels: 1, num_peers: 1, local_balance_sat: 45_000 });
  });

  it('pays an LN invoice over the channel, moving balances and listing the payment on both sides', async () => {
    const world = await twoNodes();
    const { channel } = await openChannel(world);
    const { invoice } = await ok(world, 'bob', 'lninvoice', { amt_msat: 2_000_000, expiry_sec: 600 });
    const paid = await ok(world, 'alice', 'sendpayment', { invoice });
    expect(paid.status).toBe('Succeeded');
    expect((await ok(world, 'bob', 'invoicestatus', { invoice })).status).toBe('Succeeded');
    await err(world, 'alice', 'sendpayment', { invoice }, 403, 'DuplicatePayment');
    const a = (await ok(world, 'alice', 'listchannels')).channels[0];
    const b = (await ok(world, 'bob', 'listchannels')).channels[0];
    expect(a.local_balance_sat).toBe(channel.local_balance_sat - 2_000);
    expect(b.local_balance_sat).toBe(10_000 + 2_000);
    const out = (await ok(world, 'alice', 'listpayments')).payments;
    const inn = (await ok(world, 'bob', 'listpayments')).payments;
    expect(out).toEqual([
      expect.objectContaining({ inbound: false, status: 'Succeeded', amt_msat: 2_000_000, payment_hash: paid.payment_hash }),
    ]);
    expect(inn).toEqual([expect.objectContaining({ inbound: true, status: 'Succeeded', amt_msat: 2_000_000 })]);
    expect((await ok(world, 'bob', 'getpayment', { payment_hash: paid.payment_hash })).payment.inbound).toBe(true);
    await err(world, 'bob', 'getpayment', { payment_hash: 'cd'.repeat(32) }, 404, 'PaymentNotFound');

    const ks = await ok(world, 'bob', 'keysend', { dest_pubkey: world.pubkeyOf('alice'), amt_msat: 1_000_000 });
    expect(ks.status).toBe('Succeeded');
    expect((await ok(world, 'alice', 'listchannels')).channels[0].local_balance_sat).toBe(channel.local_balance_sat - 1_000);
    const tooMuch = await ok(world, 'alice', 'keysend', { dest_pubkey: world.pubkeyOf('bob'), amt_msat: 500_000_000 });
    expect(tooMuch.status).toBe('Failed');
    expect((await ok(world, 'alice', 'listpayments')).payments.at(-1).status).toBe('Failed');
  });

  it('opens an asset channel and pays RGB invoices over it, moving asset amounts on both sides', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice', [1000], 0);
    await err(
      world,
      'alice',
      'openchannel',
      { peer_pubkey_and_opt_addr: `${world.pubkeyOf('bob')}@h:1`, capacity_sat: 50_000, asset_id: nia, asset_amount: 5000 },
      403,
      'InsufficientAssets',
    );
    const { channel } = await openChannel(world, { capacity_sat: 50_000, asset_id: nia, asset_amount: 400 });
    expect(channel).toMatchObject({ asset_id: nia, asset_local_amount: 400, asset_remote_amount: 0 });
    expect(await ok(world, 'alice', 'assetbalance', { asset_id: nia })).toMatchObject({
      settled: 600,
      offchain_outbound: 400,
      offchain_inbound: 0,
    });
    const { invoice } = await ok(world, 'bob', 'lninvoice', { amt_msat: 3_000_000, asset_id: nia, asset_amount: 150 });
    expect((await ok(world, 'alice', 'sendpayment', { invoice })).status).toBe('Succeeded');
    const b = (await ok(world, 'bob', 'listchannels')).channels[0];
    expect(b).toMatchObject({ asset_local_amount: 150, asset_remote_amount: 250 });
    expect(await ok(world, 'bob', 'assetbalance', { asset_id: nia })).toMatchObject({
      settled: 0,
      offchain_outbound: 150,
      offchain_inbound: 250,
    });
    const ks = await ok(world, 'bob', 'keysend', {
      dest_pubkey: world.pubkeyOf('alice'),
      amt_msat: 3_000_000,
      asset_id: nia,
      asset_amount: 50,
    });
    expect(ks.status).toBe('Succeeded');
    expect((await ok(world, 'alice', 'listchannels')).channels[0]).toMatchObject({ asset_local_amount: 300, asset_remote_amount: 100 });
    expect((await ok(world, 'bob', 'listpayments')).payments.map((p: Any) => [p.inbound, p.asset_amount])).toEqual([
      [true, 150],
      [false, 50],
    ]);
  });

  it('closes a channel, returning the balances (and assets) on-chain after a block', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice', [1000], 0);
    const { channel } = await openChannel(world, { capacity_sat: 50_000, asset_id: nia, asset_amount: 400, push_msat: 0 });
    const { invoice } = await ok(world, 'bob', 'lninvoice', { amt_msat: 3_000_000, asset_id: nia, asset_amount: 100 });
    await ok(world, 'alice', 'sendpayment', { invoice });
    const bobBefore = (await ok(world, 'bob', 'btcbalance', {})).colored.settled;
    await err(world, 'alice', 'closechannel', { channel_id: 'ef'.repeat(32), peer_pubkey: world.pubkeyOf('bob') }, 404, 'UnknownChannelId');
    await ok(world, 'alice', 'closechannel', { channel_id: channel.channel_id, peer_pubkey: world.pubkeyOf('bob'), force: false });
    expect((await ok(world, 'bob', 'listchannels')).channels[0].status).toBe('Closing');
    world.mine(1);
    expect((await ok(world, 'alice', 'listchannels')).channels).toEqual([]);
    expect((await ok(world, 'bob', 'listchannels')).channels).toEqual([]);
    expect(await ok(world, 'alice', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 900, offchain_outbound: 0 });
    expect(await ok(world, 'bob', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 100 });
    expect((await ok(world, 'bob', 'btcbalance', {})).colored.settled - bobBefore).toBe(3_000);
  });
});

describe('NodeWorld on-chain RGB transfers', () => {
  it('sends an asset to an RGB invoice of another node: pending on both, settled after a block and a refresh', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice', [1000, 600], 2);
    const inv = await ok(world, 'bob', 'rgbinvoice', {
      asset_id: nia,
      assignment: { type: 'Fungible', value: 700 },
      min_confirmations: 1,
      witness: false,
    });
    await err(
      world,
      'alice',
      'sendasset',
      {
        asset_id: nia,
        assignment: { type: 'Fungible', value: 99_999 },
        recipient_id: inv.recipient_id,
        donation: false,
        fee_rate: 2,
        min_confirmations: 1,
        transport_endpoints: ['rpc://127.0.0.1:3000/json-rpc'],
        skip_sync: false,
      },
      403,
      'InsufficientAssets',
    );
    const { txid } = await ok(world, 'alice', 'sendasset', {
      asset_id: nia,
      assignment: { type: 'Fungible', value: 700 },
      recipient_id: inv.recipient_id,
      donation: false,
      fee_rate: 2,
      min_confirmations: 1,
      transport_endpoints: ['rpc://127.0.0.1:3000/json-rpc'],
      skip_sync: false,
    });
    await err(
      world,
      'alice',
      'sendasset',
      {
        asset_id: nia,
        assignment: { type: 'Fungible', value: 1 },
        recipient_id: inv.recipient_id,
        donation: false,
        fee_rate: 2,
        min_confirmations: 1,
        transport_endpoints: ['rpc://127.0.0.1:3000/json-rpc'],
        skip_sync: false,
      },
      403,
      'RecipientIDAlreadyUsed',
    );
    const sent = (await ok(world, 'alice', 'listtransfers', { asset_id: nia })).transfers.find((t: Any) => t.kind === 'Send');
    const got = (await ok(world, 'bob', 'listtransfers', { asset_id: nia })).transfers[0];
    expect(sent).toMatchObject({ status: 'WaitingConfirmations', txid, recipient_id: inv.recipient_id });
    expect(got).toMatchObject({
      status: 'WaitingConfirmations',
      txid,
      kind: 'ReceiveBlind',
      assignments: [{ type: 'Fungible', value: 700 }],
    });
    expect(await ok(world, 'alice', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 1600, future: 900, spendable: 600 });
    expect(await ok(world, 'bob', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 0, future: 700 });
    await ok(world, 'bob', 'refreshtransfers', { skip_sync: false });
    expect((await ok(world, 'bob', 'listtransfers', { asset_id: nia })).transfers[0].status).toBe('WaitingConfirmations');
    world.mine(1);
    await ok(world, 'alice', 'refreshtransfers', { skip_sync: false });
    await ok(world, 'bob', 'refreshtransfers', { skip_sync: false });
    expect(await ok(world, 'alice', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 900, future: 900, spendable: 900 });
    expect(await ok(world, 'bob', 'assetbalance', { asset_id: nia })).toMatchObject({ settled: 700, future: 700, spendable: 700 });
    expect((await ok(world, 'bob', 'listassets', { filter_asset_schemas: ['Nia'] })).nia[0]).toMatchObject({ asset_id: nia, precision: 2 });
    expect((await ok(world, 'bob', 'listtransfers', { asset_id: nia })).transfers[0].status).toBe('Settled');
  });
});

describe('NodeWorld swaps', () => {
  it('swaps an asset for bitcoin between maker and taker over their channels', async () => {
    const world = await twoNodes();
    const nia = await issueNia(world, 'alice', [1000], 0);
    await openChannel(world, { capacity_sat: 100_000, asset_id: nia, asset_amount: 500, push_msat: 40_000_000 });
    const init = await ok(world, 'alice', 'makerinit', { qty_from: 50, from_asset: nia, qty_to: 4_000_000, timeout_sec: 100 });
    expect(init.swapstring).toContain(init.payment_hash);
    await err(
      world,
      'alice',
      'makerexecute',
      { swapstring: init.swapstring, payment_secret: init.payment_secret, taker_pubkey: world.pubkeyOf('bob') },
      403,
      'InvalidSwap',
    );
    await ok(world, 'bob', 'taker', { swapstring: init.swapstring });
    await err(
      world,
      'alice',
      'makerexecute',
      { swapstring: init.swapstring, payment_secret: 'ab'.repeat(32), taker_pubkey: world.pubkeyOf('bob') },
      400,
      'InvalidPaymentSecret',
    );
    await ok(world, 'alice', 'makerexecute', {
      swapstring: init.swapstring,
      payment_secret: init.payment_secret,
      taker_pubkey: world.pubkeyOf('bob'),
    });
    const maker = await ok(world, 'alice', 'listswaps');
    const taker = await ok(world, 'bob', 'listswaps');
    expect(maker.maker).toEqual([expect.objectContaining({ status: 'Succeeded', qty_from: 50, from_asset: nia, qty_to: 4_000_000 })]);
    expect(taker.taker).toEqual([expect.objectContaining({ status: 'Succeeded', payment_hash: init.payment_hash })]);
    expect((await ok(world, 'bob', 'getswap', { payment_hash: init.payment_hash, taker: true })).swap.status).toBe('Succeeded');
    await err(world, 'bob', 'getswap', { payment_hash: init.payment_hash, taker: false }, 404, 'SwapNotFound');
    expect((await ok(world, 'bob', 'listchannels')).channels[0]).toMatchObject({ asset_local_amount: 50, asset_remote_amount: 450 });
    await err(world, 'bob', 'taker', { swapstring: 'garbage' }, 400, 'InvalidSwapString');
  });
});
