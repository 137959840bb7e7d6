/**
 * A payment or a send is confirmed knowing what it does: the confirmation shows the amount,
 * the asset with its precision and the payee, decoded by the node; an invoice the node cannot
 * decode, or one for another asset, is refused before anything can be confirmed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { testDispatcher } from '../support/dispatcher.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payCommands } from '../../commands/pay.js';
import { assetCommands } from '../../commands/asset.js';
import { createRegistry, type CoreDispatcher, type Reply } from '../../src/engine/index.js';
import { formatSats, inlineToPlain, msatToSat, shortId, thousands, withPrecision } from '../../src/vocabulary/index.js';
import { openDatabase } from '../../src/store/index.js';
import { createReadyNode, startEnv, type TestEnv } from '../support/commands.js';
import type { HostedNode } from '../../src/hosting/index.js';

const place = { platform: 'slack' as const, channelId: 'CPAY', workspaceId: 'T1' };
const admin = { platform: 'slack' as const, userId: 'UADMIN' };

function fieldsOf(r: Reply): Record<string, string> {
  if (r.kind !== 'message') return {};
  const out: Record<string, string> = {};
  for (const b of r.message.blocks) if (b.type === 'fields') for (const f of b.fields) out[f.label] = inlineToPlain(f.value);
  return out;
}

describe('confirmations show what a payment or a send does', () => {
  let env: TestEnv;
  let dispatcher: CoreDispatcher;
  let dir: string;
  let payer: HostedNode;
  let payee: HostedNode;
  beforeAll(async () => {
    env = await startEnv();
    dir = mkdtempSync(join(tmpdir(), 'rln-preview-'));
    dispatcher = testDispatcher({
      db: openDatabase(join(dir, 'bot.db')),
      registry: createRegistry([...payCommands, ...assetCommands]),
      services: env.services,
      admins: ['slack:UADMIN'],
      nodeCacheMs: 0,
    });
    payer = await createReadyNode(env, 'payer', { utxos: true });
    payee = await createReadyNode(env, 'payee', { utxos: true });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const typed = (text: string) => dispatcher.dispatch({ via: 'typed', actor: admin, place, text });
  const hasConfirm = (r: Reply) => r.kind === 'message' && (r.message.buttons ?? []).some((b) => b.label === 'Confirm');

  it("pay send: the amount and payee come from the node's decoding of the invoice", async () => {
    const { invoice } = await env.api(payee).lninvoice({ amt_msat: 3_000_000, expiry_sec: 600 });
    const decoded = await env.api(payer).decodelninvoice({ invoice });
    const r = await typed(`pay send payer ${invoice}`);
    expect(hasConfirm(r)).toBe(true);
    const f = fieldsOf(r);
    expect(f.Amount).toBe(`${formatSats(msatToSat(decoded.amt_msat!))} (${thousands(decoded.amt_msat!)} msat)`);
    // The payee is one of our nodes: named beside its pubkey.
    expect(f.Payee).toBe(`payee (our node) ${shortId(decoded.payee_pubkey!, 20)}`);
  });

  it('pay send: an invoice the node cannot decode is refused before any confirmation', async () => {
    const forged = `lnbcrt1${'q'.repeat(60)}`;
    const r = await typed(`pay send payer ${forged}`);
    expect(r.kind).toBe('message');
    expect(hasConfirm(r)).toBe(false);
    expect(r.kind === 'message' && r.message.tone).toBe('danger');
  });

  it('pay keysend: an asset without its amount is refused before any confirmation', async () => {
    const pubkey = (await env.api(payee).nodeinfo()).pubkey;
    const r = await typed(`pay keysend payer ${pubkey} 3000 sats asset_id=rgb:someasset`);
    expect(hasConfirm(r)).toBe(false);
    expect(JSON.stringify(r)).toMatch(/asset_id and asset_amount go together/);
  });

  it("asset send: the amount is shown with the asset's precision and ticker", async () => {
    const api = env.api(payer);
    const asset = await api.issueassetnia({ ticker: 'PRV', name: 'Preview', amounts: [100_000], precision: 2 });
    const r = await typed(`asset send payer PRV 123.45 PRV utxob:someblindedrecipient transport_endpoints=rpc://127.0.0.1/json-rpc`);
    expect(hasConfirm(r)).toBe(true);
    expect(fieldsOf(r).Sends).toBe(`${withPrecision(12345, asset.asset.precision)} PRV`);
  });

  it('asset send: an RGB invoice for another asset is refused before any confirmation', async () => {
    const api = env.api(payer);
    await api.issueassetnia({ ticker: 'OTH', name: 'Other', amounts: [1_000], precision: 0 });
    const mine = (await api.listassets({ filter_asset_schemas: [] })).nia!.find((a) => a.ticker === 'OTH')!;
    const { invoice } = await env.api(payee).rgbinvoice({ asset_id: mine.asset_id, min_confirmations: 1, witness: false });
    const r = await typed(`asset send payer PRV 100 ${invoice}`);
    expect(hasConfirm(r)).toBe(false);
    expect(JSON.stringify(r)).toMatch(/asks for/);
  });
});
