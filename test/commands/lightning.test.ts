import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelCommands } from '../../commands/channel.js';
import { invoiceCommands, invoiceKind } from '../../commands/invoice.js';
import { netCommands } from '../../commands/net.js';
import { payCommands } from '../../commands/pay.js';
import { peerCommands } from '../../commands/peer.js';
import { swapCommands } from '../../commands/swap.js';
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
import { resolvePubkey } from '../../commands/support/our-nodes.js';

const all = [...channelCommands, ...invoiceCommands, ...netCommands, ...payCommands, ...peerCommands, ...swapCommands];
const cmd = (path: string) => findCommand(all, path);

function codeOf(r: Awaited<ReturnType<typeof runCommand>>): string {
  const b = messageOf(r).message.blocks.find((x) => x.type === 'code');
  return b && b.type === 'code' ? b.text : '';
}

describe('lightning commands between two emulated nodes', () => {
  let env: TestEnv;
  let alice: HostedNode;
  let bob: HostedNode;
  let bobPubkey: string;
  beforeAll(async () => {
    env = await startEnv();
    alice = await createReadyNode(env, 'alice', { utxos: true });
    bob = await createReadyNode(env, 'bob', { utxos: true });
    bobPubkey = (await env.api(bob).nodeinfo()).pubkey!;
  });
  afterAll(async () => {
    await env?.close();
  });

  it('peer connect, list and net info', async () => {
    const c = await runCommand(env, cmd('peer connect'), { node: 'alice', peer_pubkey_and_addr: `${bobPubkey}@bob.peer.invalid:9735` });
    expect(textOf(c)).toContain('Peer connected · alice');
    const l = await runCommand(env, cmd('peer list'), { node: 'alice' });
    // Our own node is named beside its pubkey.
    expect(tableOf(l).headers).toEqual(['Pubkey', 'Our node']);
    expect(tableOf(l).rows).toContainEqual([bobPubkey, 'bob']);
    const n = await runCommand(env, cmd('net info'), { node: 'alice' });
    expect(textOf(n)).toMatch(/Network: Regtest/);
    expect(textOf(n)).toMatch(/Height: [\d,]+/);
  });

  it('peer connect takes another node of the account by name; a bare pubkey is refused with what to give', async () => {
    const byName = await runCommand(env, cmd('peer connect'), { node: 'bob', peer_pubkey_and_addr: 'alice' });
    const alicePubkey = (await env.api(alice).nodeinfo()).pubkey;
    expect(textOf(byName)).toContain(`Peer connected · bob\nalice ${alicePubkey}@`);
    expect((await env.api(bob).listpeers()).peers.map((p) => p.pubkey)).toContain(alicePubkey);
    await expect(runCommand(env, cmd('peer connect'), { node: 'bob', peer_pubkey_and_addr: alicePubkey })).rejects.toMatchObject({
      message: expect.stringContaining('the node also needs the peer’s address'),
      hint: expect.stringContaining('peer connect alice bob'),
    });
    await expect(runCommand(env, cmd('peer connect'), { node: 'bob', peer_pubkey_and_addr: 'nobody' })).rejects.toMatchObject({
      message: expect.stringContaining('neither pubkey@host:port nor a node of this account'),
    });
  });

  it('channel open then list shows the channel with capacity and local/remote', async () => {
    const open = await runCommand(env, cmd('channel open'), {
      node: 'alice',
      peer_pubkey_and_opt_addr: bobPubkey,
      capacity_sat: '100000',
      push_msat: '10000000',
    });
    expect(textOf(open)).toContain('Capacity: 100,000 sats');
    const temp = /Temporary id: ([0-9a-f]{64})/.exec(textOf(open))![1];
    env.world.mine(6);

    const list = await runCommand(env, cmd('channel list'), { node: 'alice' });
    const { headers, rows } = tableOf(list);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row[headers.indexOf('State')]).toContain('Opened');
    expect(row[headers.indexOf('Capacity (sat)')]).toBe('100,000');
    // The peer is our own bob: named beside its pubkey.
    expect(row[headers.indexOf('Peer')]).toMatch(new RegExp(`^bob \\(${bobPubkey.slice(0, 6)}`));
    const { channels } = await env.api(alice).listchannels();
    const sats = (msat: number | bigint) => (BigInt(msat) / 1000n).toLocaleString('en-US');
    expect(row[headers.indexOf('Local (sat)')]).toBe(sats(channels[0].outbound_balance_msat));
    expect(row[headers.indexOf('Remote (sat)')]).toBe(sats(channels[0].inbound_balance_msat));
    expect(BigInt(channels[0].inbound_balance_msat)).toBeLessThanOrEqual(10_000_000n);

    const id = await runCommand(env, cmd('channel id'), { node: 'alice', temporary_channel_id: temp });
    expect(textOf(id)).toContain(channels[0].channel_id);
  });

  it('invoice ln then decode round-trips amount and payee', async () => {
    const inv = await runCommand(env, cmd('invoice ln'), { node: 'bob', amt_msat: '3000000', expiry_sec: '600' });
    const invoice = codeOf(inv);
    expect(invoiceKind(invoice)).toBe('ln');
    const dec = await runCommand(env, cmd('invoice decode'), { node: 'alice', invoice });
    const text = textOf(dec);
    expect(text).toContain('Amount: 3,000 sats (3,000,000 msat)');
    expect(text).toContain(bobPubkey);
    expect(text).toContain('Expires in: 10m');
    expect(textOf(inv)).toContain('Expires in: 10m');
  });

  it('pay send moves the balances and the invoice becomes Succeeded', async () => {
    const before = (await env.api(alice).listchannels()).channels[0];
    const inv = await runCommand(env, cmd('invoice ln'), { node: 'bob', amt_msat: '5000000' });
    const invoice = codeOf(inv);
    // What is not an invoice is refused by the arguments, before any confirmation is asked.
    expect(cmd('pay send').args.safeParse({ node: 'alice', invoice: 'garbage' }).success).toBe(false);
    expect(cmd('pay send').args.safeParse({ node: 'alice', invoice: invoice.slice(0, 30) + ' ' + invoice.slice(30) }).success).toBe(false);
    expect(cmd('pay send').args.parse({ node: 'alice', invoice: ` lightning:${invoice} ` }).invoice).toBe(invoice);
    const paid = await runCommand(env, cmd('pay send'), { node: 'alice', invoice });
    expect(textOf(paid)).toContain('Amount: 5,000 sats');
    await new Promise((r) => setTimeout(r, 20));
    const after = (await env.api(alice).listchannels()).channels[0];
    expect(BigInt(before.outbound_balance_msat) - BigInt(after.outbound_balance_msat)).toBe(5_000_000n);
    expect(BigInt(after.inbound_balance_msat) - BigInt(before.inbound_balance_msat)).toBe(5_000_000n);

    const st = await runCommand(env, cmd('invoice status'), { node: 'bob', invoice });
    expect(textOf(st)).toContain('Status: Succeeded');
    const list = await runCommand(env, cmd('pay list'), { node: 'alice' });
    expect(tableOf(list).rows.some((r) => r[0] === 'out' && r[2] === '5,000')).toBe(true);
    const bobList = await runCommand(env, cmd('pay list'), { node: 'bob' });
    expect(tableOf(bobList).rows.some((r) => r[0] === 'in' && r[2] === '5,000')).toBe(true);
  });

  it('pay keysend pays a pubkey directly', async () => {
    const r = await runCommand(env, cmd('pay keysend'), { node: 'alice', dest_pubkey: bobPubkey, amt_msat: '2000000' });
    expect(textOf(r)).toContain('Amount: 2,000 sats (2,000,000 msat)');
    expect(messageOf(r).message.tone).not.toBe('danger');
  });

  it('swap maker-init, taker, and list on both sides', async () => {
    const { asset } = await env.api(alice).issueassetnia({ amounts: [1000], ticker: 'SWP', name: 'Swap', precision: 0 });
    const init = await runCommand(env, cmd('swap maker-init'), {
      node: 'alice',
      qty_from: '3000 sat',
      qty_to: '10',
      to_asset: asset.asset_id,
    });
    const swapstring = codeOf(init);
    expect(swapstring).toContain(asset.asset_id);
    expect(textOf(init)).toContain('Gives: 3,000 sats (3,000,000 msat)');
    expect(textOf(init)).toContain('Gets: 10 SWP');
    expect(textOf(init)).toContain('Valid for: 1h');
    const taken = await runCommand(env, cmd('swap taker'), { node: 'bob', swapstring });
    expect(textOf(taken)).toContain(bobPubkey);
    expect(textOf(taken)).toContain('swap maker-execute <maker node> <swapstring> <payment_secret>');

    const aliceList = await runCommand(env, cmd('swap list'), { node: 'alice' });
    expect(textOf(aliceList)).toContain('1 as maker · 0 as taker');
    const row = tableOf(aliceList).rows[0];
    expect(row[0]).toBe('maker');
    // Bitcoin in sats, as maker-init said it (P41).
    expect(row[2]).toBe('3,000 sats (3,000,000 msat)');
    expect(row[3]).toBe('10 SWP');
    const bobList = await runCommand(env, cmd('swap list'), { node: 'bob' });
    expect(textOf(bobList)).toContain('0 as maker · 1 as taker');
  });

  it('channel close then list shows it closing or gone', async () => {
    const ch = (await env.api(alice).listchannels()).channels[0];
    const r = await runCommand(env, cmd('channel close'), { node: 'alice', channel_id: ch.channel_id, peer_pubkey: bobPubkey });
    expect(textOf(r)).toContain(ch.channel_id);
    const list = await runCommand(env, cmd('channel list'), { node: 'alice' });
    const text = textOf(list);
    expect(text.includes('Closing') || text.includes('No channels')).toBe(true);
  });

  it('an asset channel shows its asset amounts with the precision applied', async () => {
    const { asset } = await env.api(alice).issueassetnia({ amounts: [100_000], ticker: 'CHN', name: 'Channel coin', precision: 2 });
    env.world.mine(1);
    // The ticker is resolved and the amount named from one asset listing.
    let listings = 0;
    const nodeApi = env.services.nodeApi.bind(env.services);
    env.services.nodeApi = (node) => {
      const client = nodeApi(node);
      const listassets = client.listassets.bind(client);
      client.listassets = (...a) => (listings++, listassets(...a));
      return client;
    };
    const opened = await runCommand(env, cmd('channel open'), {
      node: 'alice',
      peer_pubkey_and_opt_addr: `${bobPubkey}@bob.peer.invalid:9735`,
      capacity_sat: '50000',
      asset_id: 'CHN',
      asset_amount: '50',
    }).finally(() => (env.services.nodeApi = nodeApi));
    expect(textOf(opened)).toContain('Asset: 50.00 CHN');
    expect(listings).toBe(1);
    expect(asset.asset_id).toMatch(/^rgb:/);
    env.world.mine(6);
    const list = await runCommand(env, cmd('channel list'), { node: 'alice' });
    const { headers, rows } = tableOf(list);
    const row = rows.find((r) => r[headers.indexOf('Asset local / remote')].includes('CHN'));
    expect(row?.[headers.indexOf('Asset local / remote')]).toBe('50.00 / 0.00 CHN');
  });

  it('net check-indexer and check-proxy answer', async () => {
    const i = await runCommand(env, cmd('net check-indexer'), { node: 'alice', indexer_url: '127.0.0.1:50001' }).catch((e) => e);
    const p = await runCommand(env, cmd('net check-proxy'), { node: 'alice', proxy_endpoint: 'rpc://127.0.0.1:3000/json-rpc' }).catch(
      (e) => e,
    );
    for (const r of [i, p]) {
      if (r instanceof Error) expect((r as { rlnName?: string }).rlnName).toBeTruthy();
      else expect(textOf(r)).toMatch(/OK/);
    }
  });
});

describe('channel close from what channel list shows', () => {
  let env: TestEnv;
  let bobPubkey: string;
  beforeAll(async () => {
    env = await startEnv();
    await createReadyNode(env, 'alice', { utxos: true });
    const bob = await createReadyNode(env, 'bob', { utxos: true });
    bobPubkey = (await env.api(bob).nodeinfo()).pubkey!;
    await runCommand(env, cmd('peer connect'), { node: 'alice', peer_pubkey_and_addr: `${bobPubkey}@bob.peer.invalid:9735` });
    // By name: the bot finds bob's pubkey and peer address itself.
    const opened = await runCommand(env, cmd('channel open'), { node: 'alice', peer_pubkey_and_opt_addr: 'bob', capacity_sat: '100000' });
    expect(textOf(opened)).toContain('Channel opening · alice');
    expect(textOf(opened)).toContain(`Peer: bob ${bobPubkey.slice(0, 20)}`);
    env.world.mine(6);
  });
  afterAll(async () => {
    await env?.close();
  });

  it('refuses an id that matches no channel, saying where to look', async () => {
    await expect(runCommand(env, cmd('channel close'), { node: 'alice', channel_id: 'deadbeefdeadbeef' })).rejects.toMatchObject({
      message: expect.stringContaining('alice has no channel deadbeefdeadbeef'),
    });
  });

  it('closes by the shortened id from the list (with its …) and finds the peer itself', async () => {
    const list = await runCommand(env, cmd('channel list'), { node: 'alice' });
    const { headers, rows } = tableOf(list);
    const shown = rows[0][headers.indexOf('Channel')];
    expect(shown).toMatch(/…$/);
    expect(textOf(list)).toContain('channel close alice <channel>');
    const r = await runCommand(env, cmd('channel close'), { node: 'alice', channel_id: shown });
    const full = (await env.api((await env.services.hosting.listNodes()).find((n) => n.name === 'alice')!).listchannels()).channels[0];
    expect(textOf(r)).toContain('Channel closing · alice');
    expect(textOf(r)).toContain(bobPubkey);
    if (full) expect(full.status).toBe('Closing');
  });
});

describe('our nodes by name where a pubkey is asked', () => {
  it('refuses a name that matches two nodes, listing both, and resolves the exact one', async () => {
    const env = await startEnv();
    try {
      const upper = await createReadyNode(env, 'Twin');
      const lower = await createReadyNode(env, 'twin');
      const ctx = makeContext(env, findCommand(peerCommands, 'peer disconnect'), { node: 'Twin', peer_pubkey: 'TWIN' }, { node: upper });
      await expect(resolvePubkey(ctx, 'TWIN', 'peer_pubkey')).rejects.toMatchObject({
        message: `"TWIN" matches 2 nodes: Twin (${upper.nodeId}), twin (${lower.nodeId}).`,
      });
      const exact = await resolvePubkey(ctx, 'twin', 'peer_pubkey');
      expect(exact).toEqual({ pubkey: (await env.api(lower).nodeinfo()).pubkey, name: 'twin' });
    } finally {
      await env.close();
    }
  });
});
