import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetCommands } from '../../commands/asset.js';
import { invoiceCommands } from '../../commands/invoice.js';
import type { HostedNode } from '../../src/hosting/index.js';
import {
  createReadyNode,
  findCommand,
  makeContext,
  messageOf,
  runCommand,
  startEnv,
  tableOf,
  textOf,
  type TestEnv,
} from '../support/commands.js';

const cmd = (path: string) => findCommand(assetCommands, path);

describe('asset commands', () => {
  let env: TestEnv;
  let alice: HostedNode;
  let assetId: string;
  beforeAll(async () => {
    env = await startEnv();
    alice = await createReadyNode(env, 'a1', { utxos: true });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('issue-nia then list shows the amount with the precision applied', async () => {
    const issued = await runCommand(env, cmd('asset issue-nia'), {
      node: 'a1',
      ticker: 'PREC',
      name: 'Precise',
      amounts: '123.45',
      precision: '2',
    });
    const text = textOf(issued);
    expect(text).toContain('NIA asset issued · a1');
    expect(text).toContain('Issued supply: 123.45');
    const { nia } = await env.api(alice).listassets({ filter_asset_schemas: [] });
    assetId = nia!.find((a) => a.ticker === 'PREC')!.asset_id;
    expect(text).toContain(assetId);

    const list = await runCommand(env, cmd('asset list'), { node: 'a1' });
    const { headers, rows } = tableOf(list);
    const row = rows.find((r) => r[0] === 'PREC')!;
    expect(row[headers.indexOf('Spendable')]).toBe('123.45');
    expect(row[headers.indexOf('Settled')]).toBe('123.45');
    expect(row[headers.indexOf('Precision')]).toBe('2');
  });

  it('issue-nia reads amounts in display units and refuses more decimals than the precision issued', async () => {
    await expect(runCommand(env, cmd('asset issue-nia'), { node: 'a1', ticker: 'X', name: 'X', amounts: '10,1.5' })).rejects.toMatchObject({
      message: '`amounts` is not a valid amount: X has no decimals.',
    });
    await expect(
      runCommand(env, cmd('asset issue-nia'), { node: 'a1', ticker: 'Y', name: 'Y', amounts: '1.234', precision: '2' }),
    ).rejects.toThrow(/Y has 2 decimals at most/);
    const raw = await runCommand(env, cmd('asset issue-nia'), {
      node: 'a1',
      ticker: 'RAW',
      name: 'Raw',
      amounts: '12345; 5',
      precision: '2',
      raw: 'true',
    });
    expect(textOf(raw)).toContain('Issued supply: 123.50');
  });

  it('balance and metadata apply the precision', async () => {
    const b = await runCommand(env, cmd('asset balance'), { node: 'a1', asset_id: assetId });
    expect(textOf(b)).toContain('Spendable: 123.45');
    const m = await runCommand(env, cmd('asset metadata'), { node: 'a1', asset_id: assetId });
    expect(textOf(m)).toContain('Initial supply: 123.45');
    expect(textOf(m)).toContain('Ticker: PREC');
    expect(textOf(m)).toContain('Schema: NIA'); // as asset list shows it, not the API's "Nia"
  });

  it('balance, metadata and transfers take the ticker shown in asset list instead of the rgb: id', async () => {
    const b = await runCommand(env, cmd('asset balance'), { node: 'a1', asset_id: 'prec' });
    expect(textOf(b)).toContain('PREC balance · a1');
    expect(textOf(b)).toContain('Spendable: 123.45');
    expect(textOf(b)).toContain(assetId);
    expect(textOf(await runCommand(env, cmd('asset metadata'), { node: 'a1', asset_id: 'PREC' }))).toContain(`Asset id: ${assetId}`);
    expect(textOf(await runCommand(env, cmd('asset transfers'), { node: 'a1', asset_id: 'PREC' }))).toContain('PREC transfers');
    await expect(runCommand(env, cmd('asset balance'), { node: 'a1', asset_id: 'NOPE' })).rejects.toMatchObject({
      message: 'a1 has no asset with the ticker or name "NOPE".',
      hint: expect.stringContaining('asset list a1'),
    });
  });

  it('upload then media round-trips the content, usable by issue-cfa', async () => {
    const up = await runCommand(env, cmd('asset upload'), { node: 'a1', content: 'Terms of the art, v1' });
    const digest = /Digest: ([0-9a-f]{64})/.exec(textOf(up))![1];
    const media = await runCommand(env, cmd('asset media'), { node: 'a1', digest });
    expect(textOf(media)).toContain('Terms of the art, v1');
    const cfa = await runCommand(env, cmd('asset issue-cfa'), { node: 'a1', name: 'Art', amounts: '10', file_digest: digest });
    expect(textOf(cfa)).toContain('CFA asset issued · a1');
  });

  it('issue-uda issues a unique asset, one token of it (P48)', async () => {
    const r = await runCommand(env, cmd('asset issue-uda'), { node: 'a1', ticker: 'UNQ', name: 'Unique' });
    expect(textOf(r)).toContain('UDA asset issued · a1');
    // RLN's UDA has no issued_supply field: a UDA is one token, as `asset list` shows it.
    expect(textOf(r)).toContain('Issued supply: 1');
    const list = await runCommand(env, cmd('asset list'), { node: 'a1', schema: 'uda' });
    expect(tableOf(list).rows.map((r) => r[0])).toEqual(['UNQ']);
  });

  it('refuses before issuing a ticker (or a CFA name) the node already has, naming the asset and another way (P11)', async () => {
    const check = (path: string, args: Record<string, string>) =>
      cmd(path).check!(makeContext(env, cmd(path), cmd(path).args.parse(args), { node: alice }));
    const nia = await check('asset issue-nia', { node: 'a1', ticker: 'prec', name: 'Precise 2', amounts: '50', precision: '2' });
    expect(nia?.reason).toMatch(/^a1 already has an asset with the ticker "prec": PREC · "Precise" · NIA · rgb:/);
    expect(nia?.next).toContain('asset issue-nia a1 prec2');
    expect((await check('asset issue-uda', { node: 'a1', ticker: 'PREC', name: 'U' }))?.reason).toContain('ticker "PREC": PREC');
    expect((await check('asset issue-nia', { node: 'a1', ticker: 'UNQ', name: 'U', amounts: '1' }))?.reason).toContain('UDA');
    expect((await check('asset issue-cfa', { node: 'a1', name: 'art', amounts: '1' }))?.reason).toContain('the name "art": "Art" · CFA');
    // A new ticker, or a CFA whose name is new, passes.
    expect(await check('asset issue-nia', { node: 'a1', ticker: 'PREC2', name: 'Precise', amounts: '1' })).toBeUndefined();
    expect(await check('asset issue-cfa', { node: 'a1', name: 'Art 2', amounts: '1' })).toBeUndefined();
  });

  it('send delivers to an RGB invoice of another node; transfers shows it', async () => {
    const bob = await createReadyNode(env, 'a2', { utxos: true });
    const inv = await runCommand(env, findCommand(invoiceCommands, 'invoice rgb'), {
      node: 'a2',
      asset_id: assetId,
      amount: '1000',
      raw: 'true',
      transport_endpoints: 'rpc://127.0.0.1:3000/json-rpc',
    });
    // a2 does not hold PREC yet, but a1 of the same account issued it: its precision is known
    // from there, so the 1,000 base units read as 10.00 PREC (issue 26).
    expect(textOf(inv)).toContain('Amount: 10.00 PREC');
    const own = await runCommand(env, findCommand(invoiceCommands, 'invoice rgb'), {
      node: 'a1',
      asset_id: 'PREC',
      amount: '10',
      transport_endpoints: 'rpc://127.0.0.1:3000/json-rpc',
    });
    expect(textOf(own)).toContain('Amount: 10.00 PREC');
    expect(textOf(own)).toContain(`Asset: ${assetId}`);
    const { message } = messageOf(inv);
    const code = message.blocks.find((b) => b.type === 'code');
    const invoice = code && code.type === 'code' ? code.text : '';
    expect(invoice.startsWith('rgb:')).toBe(true);

    const sent = await runCommand(env, cmd('asset send'), { node: 'a1', asset_id: assetId, amount: '10 PREC', recipient_id: invoice });
    expect(textOf(sent)).toContain('Amount: 10.00 PREC');
    env.world.mine(1);
    await env.api(alice).refreshtransfers({ skip_sync: false });
    await env.api(bob).refreshtransfers({ skip_sync: false });

    const transfers = await runCommand(env, cmd('asset transfers'), { node: 'a1', asset_id: assetId });
    const { rows, headers } = tableOf(transfers);
    expect(rows.some((r) => r[headers.indexOf('Kind')] === 'Send' && r[headers.indexOf('Amount (PREC)')] === '10.00')).toBe(true);

    const refresh = await runCommand(env, cmd('asset refresh'), { node: 'a2' });
    expect(textOf(refresh)).toContain('refreshed');
    const fail = await runCommand(env, cmd('asset fail'), { node: 'a2' });
    expect(textOf(fail)).toMatch(/failed|Nothing changed/);
  });
});
