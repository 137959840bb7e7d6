/**
 * What the commands that move funds spend, for the approval policy and the spend limits
 * (`spend` in a definition): bitcoin in msat, and an asset in its display units (the node's precision).
 */
import { shortId } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { Spend } from '../../src/vocabulary/index.js';
import { assetIndex, resolveAssetId } from './asset-table.js';
import { assetNamed, rawAssetAmount } from './asset-amount.js';
import { nodeClient } from './node-client.js';
import { decodedInvoice } from './decoded-invoice.js';
import { typedSends } from './send-recipients.js';

type Ctx<A> = CommandContext<A>;

/** A raw asset amount in display units, with the asset's ticker (or a short id when the node does not know it). */
async function assetSpend(ctx: Ctx<unknown>, assetId: string, raw: number | bigint): Promise<Spend['asset']> {
  const { api } = nodeClient(ctx);
  const info = (await assetIndex(api)).get(assetId);
  const precision = info?.precision ?? 0;
  return { ticker: info?.label ?? shortId(assetId, 16), amount: Number(raw) / 10 ** precision };
}

/**
 * Asset amounts as typed (display units, `10 USDT`, or raw units with `raw=true`) and the asset they
 * name (by `asset`, or by the ticker in the first amount), read the way the command reads them, summed.
 */
async function typedAssetSpend(
  ctx: Ctx<unknown>,
  o: { asset?: string; amounts: string[]; raw?: boolean; arg: string },
): Promise<Spend['asset'] | undefined> {
  const named = assetNamed(o.asset, o.amounts[0]);
  if (!named || o.amounts.length === 0) return undefined;
  const { node, api } = nodeClient(ctx);
  const id = await resolveAssetId(api, node.name, named);
  let raw = 0;
  for (const amount of o.amounts) {
    raw += await rawAssetAmount(api, id, amount, { arg: o.arg, raw: o.raw, example: `\`${o.arg}="10 USDT"\`` });
  }
  return assetSpend(ctx, id, raw);
}

/** One typed amount, or none. */
const one = (amount: string | undefined): string[] => (amount === undefined ? [] : [amount]);

/** `pay send`: what the invoice asks for, as the node decodes it, or the amount given for one that names none. */
export async function invoiceSpend(ctx: Ctx<{ invoice: string; amt_msat?: number }>): Promise<Spend> {
  const d = await decodedInvoice(ctx, ctx.args.invoice);
  const asset = d.asset_id ? await assetSpend(ctx, d.asset_id, d.asset_amount ?? 0) : undefined;
  // An invoice that names no amount is paid the amount given: that is what leaves the node.
  const named = Number(d.amt_msat ?? 0);
  return {
    msat: named > 0 ? named : (ctx.args.amt_msat ?? 0),
    ...(asset ? { asset } : {}),
    ...(d.payee_pubkey ? { to: shortId(d.payee_pubkey, 20) } : {}),
    counts: true,
  };
}

/** `pay keysend`: the amount and asset given. */
export async function keysendSpend(
  ctx: Ctx<{ dest_pubkey: string; amt_msat: number; asset_id?: string; asset_amount?: string; raw?: boolean }>,
): Promise<Spend> {
  const a = ctx.args;
  const asset = await typedAssetSpend(ctx, { asset: a.asset_id, amounts: one(a.asset_amount), raw: a.raw, arg: 'asset_amount' });
  return { msat: a.amt_msat, ...(asset ? { asset } : {}), to: shortId(a.dest_pubkey, 20), counts: true };
}

/** The default sats sent with an asset to a witness recipient (the node's own default). */
export const DEFAULT_WITNESS_SAT = 1000;

/**
 * Whether an `asset send` recipient is a witness output (it is sent sats with the asset): a
 * recipient id with `:wvout:`, or an RGB invoice whose recipient type is Witness.
 */
export async function isWitnessRecipient(ctx: Ctx<unknown>, recipient: string): Promise<boolean> {
  const r = recipient.trim();
  if (!r.startsWith('rgb:') || !r.includes('/')) return /:wvout:/.test(r);
  const inv = await nodeClient(ctx).api.decodergbinvoice({ invoice: r });
  return inv.recipient_type === 'Witness' || /:wvout:/.test(inv.recipient_id ?? '');
}

/**
 * `asset send`: the asset and the sum of the amounts given, one per recipient (the ticker resolved by the
 * node), and the on-chain sats that go with it to each witness recipient (`witness_amount_sat`): they
 * leave the node too. Several recipients in one transfer count as the one send they are.
 */
export async function assetSendSpend(
  ctx: Ctx<{ asset_id: string; amount: string; recipient_id: string; raw?: boolean; witness_amount_sat?: number }>,
): Promise<Spend> {
  const a = ctx.args;
  const sends = typedSends(a);
  const asset = await typedAssetSpend(ctx, { asset: a.asset_id, amounts: sends.map((s) => s.amount), raw: a.raw, arg: 'amount' });
  let sats = 0;
  for (const s of sends) if (await isWitnessRecipient(ctx, s.recipient)) sats += a.witness_amount_sat ?? DEFAULT_WITNESS_SAT;
  const to = sends.length === 1 ? shortId(sends[0].recipient, 28) : `${sends.length} recipients`;
  return { msat: sats * 1000, ...(asset ? { asset } : {}), to, counts: true };
}

/** `wallet send`: the sats sent on-chain, to the address. */
export function walletSendSpend(ctx: Ctx<{ amount: number; address: string }>): Promise<Spend> {
  return Promise.resolve({ msat: ctx.args.amount * 1000, to: shortId(ctx.args.address, 28), counts: true });
}

/**
 * `channel open`: the capacity (and asset) the node's wallet puts into the channel. It leaves
 * the wallet on-chain like a send, so it counts against limits and takes thresholds as one.
 */
export async function channelOpenSpend(
  ctx: Ctx<{ capacity_sat: number; asset_id?: string; asset_amount?: string; raw?: boolean; peer_pubkey_and_opt_addr: string }>,
): Promise<Spend> {
  const a = ctx.args;
  const asset = await typedAssetSpend(ctx, { asset: a.asset_id, amounts: one(a.asset_amount), raw: a.raw, arg: 'asset_amount' });
  return { msat: a.capacity_sat * 1000, ...(asset ? { asset } : {}), to: shortId(a.peer_pubkey_and_opt_addr, 28), counts: true };
}
