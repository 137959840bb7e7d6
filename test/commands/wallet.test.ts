import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walletCommands } from '../../commands/wallet.js';
import { shortId, thousands } from '../../src/vocabulary/format.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { createReadyNode, findCommand, runCommand, startEnv, tableOf, textOf, type TestEnv } from '../support/commands.js';

const cmd = (path: string) => findCommand(walletCommands, path);

describe('wallet commands', () => {
  let env: TestEnv;
  let node: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    node = await createReadyNode(env, 'w1');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('balance shows exactly the numbers the node API returns', async () => {
    const r = await runCommand(env, cmd('wallet balance'), { node: 'w1' });
    const b = await env.api(node).btcbalance({ skip_sync: false });
    const { rows } = tableOf(r);
    expect(rows[0]).toEqual(['vanilla', thousands(b.vanilla.settled), thousands(b.vanilla.spendable), thousands(b.vanilla.future)]);
    expect(rows[1]).toEqual(['colored', thousands(b.colored.settled), thousands(b.colored.spendable), thousands(b.colored.future)]);
    expect(BigInt(b.vanilla.spendable)).toBeGreaterThan(0n);
    expect(textOf(r)).toContain('BTC balance · w1');
  });

  it('skip_sync accepts yes/no as text', async () => {
    const r = await runCommand(env, cmd('wallet balance'), { node: 'w1', skip_sync: 'yes' });
    expect(tableOf(r).rows).toHaveLength(2);
    expect(cmd('wallet balance').args.safeParse({ node: 'w1', skip_sync: 'maybe' }).success).toBe(false);
  });

  it('address gives a new address', async () => {
    const r = await runCommand(env, cmd('wallet address'), { node: 'w1' });
    expect(textOf(r)).toMatch(/New address · w1\n\S{20,}/);
  });

  it('utxos creates colored UTXOs that unspents then lists', async () => {
    const r = await runCommand(env, cmd('wallet utxos'), { node: 'w1', num: '3', size: '20000', fee_rate: '2' });
    // What the node made, read from its outputs: how many, of what size, and the fee it paid (P18).
    expect(textOf(r)).toMatch(/Created 3 UTXOs of 20,000 sats, fee [\d,]+ sats? at 2 sat\/vB/);
    env.world.mine(1);
    const u = await runCommand(env, cmd('wallet unspents'), { node: 'w1' });
    const colorable = tableOf(u).rows.filter((row) => row[2] === 'yes');
    expect(colorable.length).toBeGreaterThanOrEqual(3);
    expect(colorable.some((row) => row[1] === '20,000')).toBe(true);
  });

  it('unspents keeps outputs of one transaction apart: each outpoint shows its vout', async () => {
    const u = await runCommand(env, cmd('wallet unspents'), { node: 'w1' });
    const shown = tableOf(u).rows.map((row) => row[0]);
    const { unspents } = await env.api(node).listunspents({ skip_sync: false });
    expect(shown.length).toBe(unspents.length);
    expect(new Set(shown).size).toBe(shown.length);
    for (const s of shown) expect(s).toMatch(/^[0-9a-f]{12}…:\d+$/);
  });

  it('transactions lists the funding transaction with amounts in sats', async () => {
    const r = await runCommand(env, cmd('wallet transactions'), { node: 'w1' });
    const { transactions } = await env.api(node).listtransactions({ skip_sync: false });
    expect(tableOf(r).rows).toHaveLength(transactions.length);
    expect(textOf(r)).toContain(thousands(10_000_000));
  });

  it('send pays an address on-chain, with the amount typed in any BTC unit', async () => {
    const other = await createReadyNode(env, 'w2');
    const { address } = await env.api(other).address();
    const r = await runCommand(env, cmd('wallet send'), { node: 'w1', address, amount: '0.0005 BTC', fee_rate: '2' });
    const text = textOf(r);
    expect(text).toContain('BTC sent · w1');
    expect(text).toContain('Amount: 50,000 sats');
    const txid = /Txid: (\S+)/.exec(text)![1];
    const got = (await env.api(other).listtransactions({ skip_sync: false })).transactions.find((t) => t.txid === txid);
    expect(Number(got?.received)).toBe(50_000);
  });

  it('transactions shows what each one gained or cost the wallet, fee included, not the change (P38)', async () => {
    const payee = await createReadyNode(env, 'w3');
    const { address } = await env.api(payee).address();
    const sent = await runCommand(env, cmd('wallet send'), { node: 'w1', address, amount: '30000 sats', fee_rate: '2' });
    const txid = /Txid: (\S+)/.exec(textOf(sent))![1];
    const tx = (await env.api(node).listtransactions({ skip_sync: false })).transactions.find((t) => t.txid === txid)!;
    // The node counts the change on both sides: what it calls sent is far more than 30,000.
    expect(Number(tx.sent) - Number(tx.fee)).toBeGreaterThan(30_000);
    const fee = Number(tx.fee);
    expect(fee).toBeGreaterThan(0);

    const ours = tableOf(await runCommand(env, cmd('wallet transactions'), { node: 'w1', limit: '100' }));
    const row = ours.rows.find((r) => r[ours.headers.indexOf('Txid')] === shortId(txid, 12))!;
    expect(row[ours.headers.indexOf('Net')]).toBe(`-${thousands(30_000 + fee)}`);
    expect(row[ours.headers.indexOf('Fee paid')]).toBe(thousands(fee));
    expect(ours.headers).not.toContain('Sent');

    const r = await runCommand(env, cmd('wallet transactions'), { node: 'w3', limit: '100' });
    const theirs = tableOf(r);
    const got = theirs.rows.find((x) => x[theirs.headers.indexOf('Txid')] === shortId(txid, 12))!;
    expect(got[theirs.headers.indexOf('Net')]).toBe('+30,000');
    // The payee paid no fee: the sender did.
    expect(got[theirs.headers.indexOf('Fee paid')]).toBe('—');
    expect(textOf(r)).toContain('fee included');
  });

  it('unspents shows RGB allocations in display units with the ticker', async () => {
    const api = env.api(node);
    await api.createutxos({ num: 2, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    env.world.mine(1);
    await api.issueassetnia({ amounts: [1_000_000_000], ticker: 'USDU', name: 'Unspent dollar', precision: 6 });
    const r = await runCommand(env, cmd('wallet unspents'), { node: 'w1', limit: '100' });
    const { headers, rows } = tableOf(r);
    const cells = rows.map((row) => row[headers.indexOf('RGB allocations')]);
    expect(cells).toContain('1,000.000000 USDU');
    expect(cells.join(' ')).not.toContain('1,000,000,000');
  });

  it('fee estimates a fee rate for the given blocks (positional)', async () => {
    expect(cmd('wallet fee').positional).toEqual(['node', 'blocks']);
    const r = await runCommand(env, cmd('wallet fee'), { node: 'w1', blocks: '3' });
    expect(textOf(r)).toMatch(/Within 3 blocks: [\d.]+ sat\/vB/);
  });

  it('sign returns the signed message', async () => {
    const r = await runCommand(env, cmd('wallet sign'), { node: 'w1', message: 'hello world' });
    const text = textOf(r);
    expect(text).toContain('Message: hello world');
    expect(text.split('\n').at(-1)!.length).toBeGreaterThan(10);
  });
});
