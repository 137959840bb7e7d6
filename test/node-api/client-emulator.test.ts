import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createNodeApiClient, NodeApiError, type NodeApiClient } from '../../src/node-api/index.js';
import { waitFor } from '../support/wait-for.js';

let e: Emulator;
const nodes: Record<string, { nodeId: string; invoke_url: string; client: NodeApiClient }> = {};

beforeAll(async () => {
  e = await startEmulator({ lifecycleDelayMs: 10, autoMineMs: 20, fundingSat: 3_000_000 });
  for (const name of ['ann', 'ben']) {
    const res = await fetch(`${e.url}/api/nodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, network: 'regtest' }),
    });
    const { data } = (await res.json()) as { data: { nodeId: string; invoke_url: string } };
    nodes[name] = {
      ...data,
      client: createNodeApiClient({ baseUrl: data.invoke_url, credentials: { kind: 'token', token: e.nodeApiToken }, retryBaseMs: 5 }),
    };
  }
  await waitFor(() => e.nodes().every((n) => n.status === 'RUNNING'), { timeout: 4_000, what: 'nodes RUNNING' });
});
afterAll(() => e?.close());

describe('node API client against the emulator', () => {
  it('runs init, unlock and a two-node channel, payment and asset flow at the invoke_url', async () => {
    const { ann, ben } = nodes;
    await expect(ann.client.btcbalance({ skip_sync: false })).rejects.toMatchObject({ rlnName: 'NotInitialized' });
    for (const [n, pw] of [
      [ann, 'ann-password'],
      [ben, 'ben-password'],
    ] as const) {
      await n.client.init({ password: pw });
      const locked = await n.client.nodeinfo().catch((x: unknown) => x);
      expect(locked).toBeInstanceOf(NodeApiError);
      expect((locked as NodeApiError).hint).toContain('node unlock');
      await n.client.unlock({ password: pw, indexer_url: '127.0.0.1:50001' });
      await n.client.createutxos({ num: 3 });
    }
    const annInfo = await ann.client.nodeinfo();
    const benInfo = await ben.client.nodeinfo();
    expect(annInfo.channel_asset_max_amount).toBe(18_446_744_073_709_551_615n);
    const { digest } = await ann.client.postassetmedia({ file: Buffer.from('logo'), mime: 'image/png' });
    const nia = (await ann.client.issueassetnia({ ticker: 'GOLD', name: 'Gold', amounts: [5000], precision: 3 })).asset;
    expect(nia.precision).toBe(3);
    await ann.client.issueassetcfa({ name: 'Art', amounts: [1], precision: 0, file_digest: digest });
    await ann.client.connectpeer({ peer_pubkey_and_addr: `${benInfo.pubkey}@127.0.0.1:9735` });
    await ann.client.openchannel({
      peer_pubkey_and_opt_addr: benInfo.pubkey,
      capacity_sat: 100_000,
      push_msat: 0,
      asset_id: nia.asset_id,
      asset_amount: 1000,
    });
    const opened = await waitFor(async () => (await ben.client.listchannels()).channels.find((c) => c.status === 'Opened'), {
      timeout: 4_000,
      what: 'channel Opened (auto-mined)',
    });
    expect(opened).toMatchObject({ asset_id: nia.asset_id, asset_remote_amount: 1000, peer_pubkey: annInfo.pubkey });
    const { invoice } = await ben.client.lninvoice({ amt_msat: 3_000_000, expiry_sec: 3600, asset_id: nia.asset_id, asset_amount: 250 });
    expect((await ann.client.sendpayment({ invoice })).status).toBe('Succeeded');
    expect(await ben.client.assetbalance({ asset_id: nia.asset_id })).toMatchObject({ offchain_outbound: 250, offchain_inbound: 750 });
    expect((await ben.client.listpayments()).payments[0]).toMatchObject({ inbound: true, asset_amount: 250, status: 'Succeeded' });
  });

  it('parses an emulator btcbalance above 2^53 exactly', async () => {
    const before = await nodes.ann.client.btcbalance({ skip_sync: false });
    e.world.setLargeAmounts(nodes.ann.nodeId, true);
    const big = await nodes.ann.client.btcbalance({ skip_sync: false });
    e.world.setLargeAmounts(nodes.ann.nodeId, false);
    expect(typeof big.vanilla.future).toBe('bigint');
    expect(big.vanilla.future).toBe(BigInt(before.vanilla.future) + 2n ** 53n + 1n);
  });
});
