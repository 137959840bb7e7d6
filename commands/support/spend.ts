/**
 * What the commands that move funds spend, for the approval policy and the spend limits
 * (`spend` in a definition): sats, and an asset in its display units (the node's precision).
 */
import { shortId } from '../../src/core/format.js';
import type { CommandContext, Spend } from '../../src/core/types.js';
import { assetIndex, resolveAssetId } from './asset-table.js';
import { nodeClient } from './node-client.js';

type Ctx<A> = CommandContext<A>;

/** A raw asset amount in display units, with the asset's ticker (or a short id when the node does not know it). */
async function assetSpend(ctx: Ctx<unknown>, assetId: string, raw: number | bigint): Promise<Spend['asset']> {
  const { api } = nodeClient(ctx);
  const info = (await assetIndex(api)).get(assetId);
  const precision = info?.precision ?? 0;
  return { ticker: info?.label ?? shortId(assetId, 16), amount: Number(raw) / 10 ** precision };
}

/** `pay send`: what the invoice asks for, as the node decodes it. */
export async function invoiceSpend(ctx: Ctx<{ invoice: string }>): Promise<Spend> {
  const { api } = nodeClient(ctx);
  const d = await api.decodelninvoice({ invoice: ctx.args.invoice });
  const asset = d.asset_id ? await assetSpend(ctx, d.asset_id, d.asset_amount ?? 0) : undefined;
  return { sats: Math.floor(Number(d.amt_msat ?? 0) / 1000), ...(asset ? { asset } : {}), ...(d.payee_pubkey ? { to: shortId(d.payee_pubkey, 20) } : {}), counts: true };
}

/** `pay keysend`: the amount and asset given. */
export async function keysendSpend(ctx: Ctx<{ dest_pubkey: string; amt_msat: number; asset_id?: string; asset_amount?: number }>): Promise<Spend> {
  const a = ctx.args;
  const asset = a.asset_id ? await assetSpend(ctx, a.asset_id, a.asset_amount ?? 0) : undefined;
  return { sats: Math.floor(a.amt_msat / 1000), ...(asset ? { asset } : {}), to: shortId(a.dest_pubkey, 20), counts: true };
}

/** `asset send`: the asset and amount given (the ticker resolved by the node). */
export async function assetSendSpend(ctx: Ctx<{ asset_id: string; amount: number; recipient_id: string }>): Promise<Spend> {
  const { node, api } = nodeClient(ctx);
  const id = await resolveAssetId(api, node.name, ctx.args.asset_id);
  return { sats: 0, asset: await assetSpend(ctx, id, ctx.args.amount), to: shortId(ctx.args.recipient_id.trim(), 28), counts: true };
}

/** `channel open`: the capacity (and asset) committed to the channel; not a send, so not counted against limits. */
export async function channelOpenSpend(ctx: Ctx<{ capacity_sat: number; asset_id?: string; asset_amount?: number; peer_pubkey_and_opt_addr: string }>): Promise<Spend> {
  const { node, api } = nodeClient(ctx);
  const a = ctx.args;
  const asset = a.asset_id ? await assetSpend(ctx, await resolveAssetId(api, node.name, a.asset_id), a.asset_amount ?? 0) : undefined;
  return { sats: a.capacity_sat, ...(asset ? { asset } : {}), to: shortId(a.peer_pubkey_and_opt_addr, 28), counts: false };
}
