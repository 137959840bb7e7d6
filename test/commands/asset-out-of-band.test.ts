/**
 * `asset deliver` on nodes of the latest image (6887cbf), against the emulator: the receiver is given
 * an out-of-band consignment read from the sending node, and each transfer it changed is labelled with
 * its amount. 6887cbf lists transfers across every asset without their asset_id, so the amount is found
 * through the asset whose own list holds the transfer (as `asset ack`'s confirmation finds the send).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetOutOfBandCommands } from '../../commands/asset-out-of-band.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { createReadyNode, findCommand, runCommand, startEnv, textOf, type TestEnv } from '../support/commands.js';

const cmd = (path: string) => findCommand(assetOutOfBandCommands, path);

describe('asset deliver', () => {
  let env: TestEnv;
  let sender: HostedNode;
  let receiver: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    sender = await createReadyNode(env, 'o1', { utxos: true });
    receiver = await createReadyNode(env, 'o2', { utxos: true });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("labels each transfer the consignment changed with the amount and the asset's ticker", async () => {
    const from = env.api(sender);
    const { asset } = await from.issueassetnia({ amounts: [100_000], ticker: 'OOB', name: 'Out of band', precision: 2 });
    const invoice = await env.api(receiver).rgbinvoice({
      asset_id: asset.asset_id,
      assignment: { type: 'Fungible', value: 1_200 },
      min_confirmations: 1,
      witness: false,
      transport_endpoints: [],
    });
    const { txid } = await from.sendrgb({
      recipient_map: {
        [asset.asset_id]: [{ recipient_id: invoice.recipient_id, assignment: { type: 'Fungible', value: 1_200 }, transport_endpoints: [] }],
      },
      fee_rate: 2,
      min_confirmations: 1,
      donation: false,
      expiration_timestamp: Math.floor(Date.now() / 1000) + 3600,
    });
    // What the fix works around: the list across every asset names no asset.
    const { transfers } = await env.api(receiver).listtransfers({});
    expect(transfers.find((t) => t.recipient_id === invoice.recipient_id)?.asset_id ?? undefined).toBeUndefined();

    const text = textOf(await runCommand(env, cmd('asset deliver'), { node: 'o2', from: 'o1', asset_id: 'OOB', txid }));
    expect(text).toContain('Consignment accepted · o2');
    expect(text).toMatch(/Transfer \d+: 12\.00 OOB/);
    expect(text).toContain(`asset ack o1 ${invoice.recipient_id}`);
  });
});
