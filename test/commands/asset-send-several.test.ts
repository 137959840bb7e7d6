/**
 * `asset send` to several recipients in one transfer, on nodes of the latest image (6887cbf), against the
 * emulator: one `/sendrgb` with every recipient in its `recipient_map`, one transaction, each recipient
 * with its amount in the confirmation and in what limits and approvals count (the sum).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetCommands } from '../../commands/asset.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { inlineToPlain } from '../../src/vocabulary/index.js';
import { createReadyNode, findCommand, makeContext, runCommand, startEnv, tableOf, textOf, type TestEnv } from '../support/commands.js';

const cmd = (path: string) => findCommand(assetCommands, path);
const PROXY = 'rpc://127.0.0.1:3000/json-rpc';

describe('asset send to several recipients in one transfer', () => {
  let env: TestEnv;
  let sender: HostedNode;
  const receivers: HostedNode[] = [];
  const invoices: string[] = [];
  const bodies: unknown[] = [];
  beforeAll(async () => {
    env = await startEnv();
    sender = await createReadyNode(env, 'm0', { utxos: true });
    for (const name of ['m1', 'm2']) receivers.push(await createReadyNode(env, name, { utxos: true }));
    await env.api(sender).issueassetnia({ amounts: [100_000], ticker: 'MUL', name: 'Multi', precision: 2 });
    for (const r of receivers) {
      invoices.push((await env.api(r).rgbinvoice({ min_confirmations: 1, witness: false, transport_endpoints: [PROXY] })).invoice);
    }
    const handle = env.world.handle.bind(env.world);
    env.world.handle = async (nodeId, method, endpoint, body) => {
      if (/send/.test(endpoint)) bodies.push({ endpoint, body });
      return handle(nodeId, method, endpoint, body);
    };
  });
  afterAll(async () => {
    await env?.close();
  });

  const args = () => ({ node: 'm0', asset_id: 'MUL', amount: '10; 5 MUL', recipient_id: invoices.join('; ') });
  const ctx = (a: Record<string, string>) => makeContext(env, cmd('asset send'), cmd('asset send').args.parse(a), { node: sender });

  it('confirms each recipient with its amount, and counts the sum for limits and approvals', async () => {
    const def = cmd('asset send');
    expect(await def.check!(ctx(args()))).toBeUndefined();
    const preview = (await def.preview!(ctx(args()))).map((f) => `${f.label}: ${inlineToPlain(f.value)}`);
    expect(preview[0]).toBe('Sends: 15.00 MUL to 2 recipients, in one transfer');
    expect(preview[1]).toMatch(/^To \(1\): \S+ · 10\.00 MUL \(an invoice\)$/);
    expect(preview[2]).toMatch(/^To \(2\): \S+ · 5\.00 MUL \(an invoice\)$/);
    expect(await def.spend!(ctx(args()))).toEqual({ msat: 0, asset: { ticker: 'MUL', amount: 15 }, to: '2 recipients', counts: true });
  });

  it('refuses amounts that do not match the recipients, and a recipient given twice', async () => {
    await expect(cmd('asset send').check!(ctx({ ...args(), amount: '10' }))).rejects.toThrow(
      '2 recipient(s) but 1 amount(s): each recipient needs its own amount.',
    );
    await expect(cmd('asset send').check!(ctx({ ...args(), recipient_id: `${invoices[0]}; ${invoices[0]}` }))).rejects.toThrow(
      'The same recipient is given twice.',
    );
  });

  it('sends to both in one /sendrgb, one transaction; each receives its amount', async () => {
    const text = textOf(await runCommand(env, cmd('asset send'), args()));
    expect(text).toContain('Amount: 15.00 MUL');
    expect(text).toContain('2 recipients, in one transfer');
    expect(bodies).toHaveLength(1);
    const sent = bodies[0] as { endpoint: string; body: { recipient_map: Record<string, Array<{ assignment: { value: number } }>> } };
    expect(sent.endpoint).toBe('sendrgb');
    expect(Object.values(sent.body.recipient_map)[0].map((r) => r.assignment.value)).toEqual([1000, 500]);
    env.world.mine(1);
    for (const name of ['m0', 'm1', 'm2']) await runCommand(env, cmd('asset refresh'), { node: name });
    const settled = async (name: string) => {
      const rows = tableOf(await runCommand(env, cmd('asset list'), { node: name }));
      return rows.rows.find((r) => r[0] === 'MUL')?.[rows.headers.indexOf('Settled')];
    };
    expect([await settled('m1'), await settled('m2'), await settled('m0')]).toEqual(['10.00', '5.00', '985.00']);
    const txids = new Set((await env.api(sender).listtransfers({})).transfers.filter((t) => t.kind === 'Send').map((t) => t.txid));
    expect(txids.size).toBe(1);
  });
});
