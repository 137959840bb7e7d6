/**
 * `asset issue-ifa` and `asset inflate` on a node of the latest image (6887cbf), against the emulator:
 * supply and max supply in display units, the confirmation's facts, inflation up to the max supply and
 * refused past it, the spend approvals see (and limits do not count), and an NIA that cannot inflate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetCommands } from '../../commands/asset.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { inlineToPlain } from '../../src/vocabulary/index.js';
import { allCommands } from '../../commands/index.js';
import { createRegistry, renderHelp } from '../../src/engine/index.js';
import { createReadyNode, findCommand, makeContext, runCommand, startEnv, tableOf, textOf, type TestEnv } from '../support/commands.js';

const cmd = (path: string) => findCommand(assetCommands, path);

describe('IFA assets: asset issue-ifa and asset inflate', () => {
  let env: TestEnv;
  let node: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    node = await createReadyNode(env, 'f1', { utxos: true });
  });
  afterAll(async () => {
    await env?.close();
  });

  /** The context the dispatcher gives a command's check, spend and preview. */
  const ctxFor = (path: string, args: Record<string, string>) => makeContext(env, cmd(path), cmd(path).args.parse(args), { node });
  const fieldsText = (fields: { label: string; value: string | Parameters<typeof inlineToPlain>[0] }[]) =>
    fields.map((f) => `${f.label}: ${inlineToPlain(f.value)}`).join('\n');

  it('`/rln asset help` lists both', () => {
    const help = renderHelp(createRegistry(allCommands), 'asset');
    const table = help.blocks.find((b) => b.type === 'table');
    const rows = table && table.type === 'table' ? table.table.rows.map((r) => r[0]) : [];
    expect(rows.some((r) => r.startsWith('/rln asset issue-ifa <node> <ticker> <name> <amounts>'))).toBe(true);
    expect(rows.some((r) => r.startsWith('/rln asset inflate <node> <asset_id> <amounts>'))).toBe(true);
  });

  it('issue-ifa confirms the supply now, the inflation rights and the max supply, then issues it', async () => {
    const args = { node: 'f1', ticker: 'USDX', name: 'Dollar X', amounts: '1000', inflation: '300; 200', precision: '2' };
    const def = cmd('asset issue-ifa');
    expect(def.confirm).toBe('button');
    expect(await def.check!(ctxFor('asset issue-ifa', args))).toBeUndefined();
    const preview = fieldsText(await def.preview!(ctxFor('asset issue-ifa', args)));
    expect(preview).toContain('Issues now: 1,000.00 USDX (1 allocation(s))');
    expect(preview).toContain('Can inflate by: 500.00 USDX');
    expect(preview).toContain('Max supply: 1,500.00 USDX (cannot be raised later)');

    const text = textOf(await runCommand(env, def, args));
    expect(text).toContain('IFA asset issued · f1');
    expect(text).toContain('Issued supply: 1,000.00');
    expect(text).toContain('Max supply: 1,500.00');
    const list = tableOf(await runCommand(env, cmd('asset list'), { node: 'f1', schema: 'ifa' }));
    expect(list.rows.map((r) => [r[0], r[1], r[list.headers.indexOf('Spendable')]])).toEqual([['USDX', 'IFA', '1,000.00']]);
  });

  it('inflate issues more up to the max supply, spendable once mined, and is refused past it before any confirmation', async () => {
    const def = cmd('asset inflate');
    expect(def.role).toBe('admin');
    const over = await def.check!(ctxFor('asset inflate', { node: 'f1', asset_id: 'USDX', amounts: '500.01' }));
    expect(over?.reason).toBe('Inflating USDX by 500.01 would pass its max supply of 1,500.00 (1,000.00 known in circulation).');
    expect(over?.next).toBe('Inflate by 500.00 USDX at most.');

    const args = { node: 'f1', asset_id: 'USDX', amounts: '120 USDX' };
    expect(await def.check!(ctxFor('asset inflate', args))).toBeUndefined();
    // Approvals see the amount (asset.inflate > 1000 *); no spend limit counts it: nothing leaves the node.
    expect(await def.spend!(ctxFor('asset inflate', args))).toEqual({
      msat: 0,
      asset: { ticker: 'USDX', amount: 120 },
      to: 'new supply',
      counts: false,
    });
    const preview = fieldsText(await def.preview!(ctxFor('asset inflate', args)));
    expect(preview).toContain('Issues: 120.00 USDX more (1 allocation(s))');
    expect(preview).toContain('Known circulating: 1,000.00 USDX → 1,120.00 USDX');

    const text = textOf(await runCommand(env, def, args));
    expect(text).toContain('USDX inflated · f1');
    expect(text).toContain('Known circulating: 1,120.00 USDX');
    env.world.mine(1);
    await runCommand(env, cmd('asset refresh'), { node: 'f1' });
    expect(textOf(await runCommand(env, cmd('asset balance'), { node: 'f1', asset_id: 'USDX' }))).toContain('Spendable: 1,120.00');
    const transfers = tableOf(await runCommand(env, cmd('asset transfers'), { node: 'f1', asset_id: 'USDX' }));
    expect(transfers.rows.some((r) => r[1] === 'Inflation' && r[3] === '120.00')).toBe(true);
  });

  it('inflate refuses an asset that is not IFA, saying what it is', async () => {
    await runCommand(env, cmd('asset issue-nia'), { node: 'f1', ticker: 'FIX', name: 'Fixed', amounts: '10' });
    await expect(cmd('asset inflate').check!(ctxFor('asset inflate', { node: 'f1', asset_id: 'FIX', amounts: '1' }))).rejects.toThrow(
      'FIX is a NIA asset: only IFA assets can be inflated.',
    );
  });

  it('issue-ifa refuses a ticker the node already has before any confirmation (P11)', async () => {
    const r = await cmd('asset issue-ifa').check!(ctxFor('asset issue-ifa', { node: 'f1', ticker: 'USDX', name: 'Again', amounts: '5' }));
    expect(r?.reason).toContain('f1 already has an asset with the ticker "USDX": USDX · "Dollar X" · IFA');
  });
});
