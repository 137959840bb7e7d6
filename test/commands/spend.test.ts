/**
 * What the commands that move funds spend, read from the emulated node: an asset in its display
 * units (the node's precision), an invoice's sats and asset, a channel's capacity (not a send).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetCommands } from '../../commands/asset.js';
import { invoiceCommands } from '../../commands/invoice.js';
import { channelCommands } from '../../commands/channel.js';
import { assetSendSpend, channelOpenSpend, invoiceSpend } from '../../commands/support/spend.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { openDatabase } from '../../src/store/index.js';
import { createPolicy, createRoleService } from '../../src/access/index.js';
import { createReadyNode, findCommand, makeContext, messageOf, runCommand, startEnv, textOf, type TestEnv } from '../support/commands.js';

describe('what a send spends', () => {
  let env: TestEnv;
  let alice: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    alice = await createReadyNode(env, 's1', { utxos: true });
    await createReadyNode(env, 's2', { utxos: true });
    await runCommand(env, findCommand(assetCommands, 'asset issue-nia'), {
      node: 's1',
      ticker: 'PREC',
      name: 'Precise',
      amounts: '100000',
      precision: '2',
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('counts an asset send in the asset’s display units, so a threshold in PREC applies as people read it', async () => {
    const def = findCommand(assetCommands, 'asset send');
    const spend = await assetSendSpend(
      makeContext(env, def, { node: 's1', asset_id: 'PREC', amount: '15', recipient_id: 'utxob:abc' }, { node: alice }),
    );
    expect(spend).toMatchObject({ msat: 0, asset: { ticker: 'PREC', amount: 15 }, counts: true });
    // The same send typed in raw units, as the command itself reads it with raw=true.
    const raw = await assetSendSpend(
      makeContext(env, def, { node: 's1', asset_id: 'PREC', amount: '1500', raw: true, recipient_id: 'utxob:abc' }, { node: alice }),
    );
    expect(raw.asset).toEqual(spend.asset);
    const db = openDatabase(':memory:');
    const policy = createPolicy({ db, now: Date.now, access: createRoleService(db), approvalPolicy: 'asset.send > 10 PREC' });
    expect(await policy.approvalNeeded('asset send', spend)).toBe('asset.send above 10 PREC needs a second person');
    expect(await policy.approvalNeeded('asset send', { ...spend, asset: { ticker: 'PREC', amount: 9.99 } })).toBeUndefined();
  });

  it('reads a Lightning invoice’s amount and payee as the node decodes it', async () => {
    const inv = await runCommand(env, findCommand(invoiceCommands, 'invoice ln'), { node: 's2', amt_msat: '3000000' });
    const code = messageOf(inv).message.blocks.find((b) => b.type === 'code');
    const invoice = code && code.type === 'code' ? code.text : '';
    expect(textOf(inv)).toContain('3,000');
    const spend = await invoiceSpend(makeContext(env, findCommand(invoiceCommands, 'invoice decode'), { invoice }, { node: alice }));
    expect(spend).toMatchObject({ msat: 3_000_000, counts: true });
    expect(spend.to).toMatch(/^[0-9a-f]{10}/);
  });

  it('reads a channel open as sats leaving the wallet: counted against limits like a send', async () => {
    const def = findCommand(channelCommands, 'channel open');
    const spend = await channelOpenSpend(
      makeContext(
        env,
        def,
        { node: 's1', peer_pubkey_and_opt_addr: 's2', capacity_sat: 250_000, push_msat: 0, public: true, with_anchors: true },
        { node: alice },
      ),
    );
    expect(spend).toEqual({ msat: 250_000_000, to: 's2', counts: true });
  });

  it('counts the sats an asset send gives a witness recipient (witness_amount_sat), not only the asset', async () => {
    const def = findCommand(assetCommands, 'asset send');
    const args = { node: 's1', asset_id: 'PREC', amount: '1', recipient_id: 'bcrt:wvout:abcdef', witness_amount_sat: 1_000_000 };
    expect(await assetSendSpend(makeContext(env, def, args, { node: alice }))).toMatchObject({
      msat: 1_000_000_000,
      asset: { ticker: 'PREC', amount: 1 },
      counts: true,
    });
    // Without witness_amount_sat the node sends its default 1000 sats; a blinded UTXO gets none.
    expect(await assetSendSpend(makeContext(env, def, { ...args, witness_amount_sat: undefined }, { node: alice }))).toMatchObject({
      msat: 1_000_000,
    });
    expect(await assetSendSpend(makeContext(env, def, { ...args, recipient_id: 'bcrt:utxob:abcdef' }, { node: alice }))).toMatchObject({
      msat: 0,
    });
  });
});
