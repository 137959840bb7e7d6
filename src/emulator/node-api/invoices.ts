import { badRequest } from './errors.js';
import { hex, lnInvoiceText, newRecipientId, nowSec, sha256 } from './ids.js';
import { type Ctx, optBool, optFungible, optInt, optString, reqString } from './input.js';
import { knownAsset } from './assets.js';
import { DEFAULT_PROXY, type LnInvoice, RGB_HTLC_MIN_MSAT, type WorldState } from './state.js';
import { freeColoredUtxo, newTransfer } from './allocations.js';

export function lninvoice({ world, node, body }: Ctx) {
  const amtMsat = optInt(body, 'amt_msat');
  const expirySec = optInt(body, 'expiry_sec') ?? 3600;
  const assetId = optString(body, 'asset_id');
  const assetAmount = optInt(body, 'asset_amount');
  if ((assetId === undefined) !== (assetAmount === undefined)) {
    throw badRequest('InvalidInvoice', 'Invalid invoice: asset_id and asset_amount go together');
  }
  if (assetId !== undefined) {
    knownAsset(world, node, assetId);
    if (amtMsat !== undefined && amtMsat < RGB_HTLC_MIN_MSAT) {
      throw badRequest('InvalidAmount', `Invalid amount: an RGB invoice needs amt_msat >= ${RGB_HTLC_MIN_MSAT}`);
    }
  }
  if (expirySec === 0) throw badRequest('InvalidInvoice', 'Invalid invoice: expiry_sec must be positive');
  const preimage = hex();
  const inv: LnInvoice = {
    invoice: lnInvoiceText(node.network, amtMsat),
    nodeId: node.nodeId,
    payee_pubkey: node.pubkey,
    payment_hash: sha256(Buffer.from(preimage, 'hex')),
    payment_secret: hex(),
    preimage,
    amt_msat: amtMsat ?? (assetId !== undefined ? RGB_HTLC_MIN_MSAT : undefined),
    asset_id: assetId,
    asset_amount: assetAmount,
    timestamp: nowSec(),
    expiry_sec: expirySec,
    network: node.network,
    status: 'Pending',
  };
  world.lnInvoices.set(inv.invoice, inv);
  return { invoice: inv.invoice };
}

export function lnInvoiceStatus(inv: LnInvoice): 'Pending' | 'Succeeded' | 'Failed' | 'Expired' {
  if (inv.status === 'Pending' && nowSec() > inv.timestamp + inv.expiry_sec) return 'Expired';
  return inv.status;
}

export function lookupLnInvoice(world: WorldState, invoice: string): LnInvoice {
  const inv = world.lnInvoices.get(invoice.trim());
  if (!inv) {
    const looksValid = /^ln(bc|tb|bcrt)[0-9a-z]*1[02-9ac-hj-np-z]+$/.test(invoice.trim());
    throw badRequest('InvalidInvoice', looksValid ? 'Invalid invoice: unknown to this emulator' : 'Invalid invoice: not a bolt11 invoice');
  }
  return inv;
}

export function decodelninvoice({ world, body }: Ctx) {
  const inv = lookupLnInvoice(world, reqString(body, 'invoice'));
  return {
    ...(inv.amt_msat !== undefined ? { amt_msat: inv.amt_msat } : {}),
    expiry_sec: inv.expiry_sec,
    timestamp: inv.timestamp,
    ...(inv.asset_id !== undefined ? { asset_id: inv.asset_id, asset_amount: inv.asset_amount } : {}),
    payment_hash: inv.payment_hash,
    payment_secret: inv.payment_secret,
    payee_pubkey: inv.payee_pubkey,
    network: inv.network,
  };
}

export function invoicestatus({ world, body }: Ctx) {
  return { status: lnInvoiceStatus(lookupLnInvoice(world, reqString(body, 'invoice'))) };
}

export function rgbinvoice(ctx: Ctx) {
  const duration = optInt(ctx.body, 'duration_seconds') ?? 86_400;
  return rgbinvoiceWith(ctx, { expiration: nowSec() + duration, endpoints: [DEFAULT_PROXY], generation: 'f379330' });
}

/**
 * An RGB invoice expiring at `expiration`, delivered through `endpoints` (f379330: the proxy the node
 * was unlocked with; 6887cbf: the request's, none meaning out of band).
 */
export function rgbinvoiceWith(
  { world, node, body }: Ctx,
  o: { expiration: number; endpoints: string[]; generation: 'f379330' | '6887cbf' },
) {
  const assetId = optString(body, 'asset_id');
  const amount = optFungible(body, 'assignment');
  const minConfirmations = optInt(body, 'min_confirmations') ?? 1;
  const witness = optBool(body, 'witness') ?? false;
  if (assetId !== undefined) knownAssetOrNew(world, assetId);
  const w = node.wallet!;
  const receiveUtxo = witness ? undefined : freeColoredUtxo(w).outpoint;
  const recipientId = newRecipientId(node.network, witness);
  const expiration = o.expiration;
  const endpoints = o.endpoints;
  const contract = assetId ? assetId.slice(4) : '~';
  const invoice = `rgb:${contract}/${amount ?? '~'}/~/${recipientId}?expiry=${expiration}${endpoints.length ? `&endpoints=${endpoints.join(',')}` : ''}`;
  const t = newTransfer(w, {
    asset_id: assetId,
    status: 'WaitingCounterparty',
    kind: witness ? 'ReceiveWitness' : 'ReceiveBlind',
    requested: amount,
    assignments: [],
    recipient_id: recipientId,
    receive_utxo: receiveUtxo,
    expiration,
    endpoints,
  });
  world.recipients.set(recipientId, {
    recipient_id: recipientId,
    nodeId: node.nodeId,
    transferIdx: t.idx,
    invoice,
    witness,
    asset_id: assetId,
    amount,
    expiration,
    network: node.network,
    endpoints,
  });
  void minConfirmations;
  return { recipient_id: recipientId, invoice, expiration_timestamp: expiration, batch_transfer_idx: t.idx };
}

/** An RGB invoice may name an asset the receiver does not hold yet; it only has to be well formed. */
function knownAssetOrNew(world: WorldState, assetId: string): void {
  if (!/^rgb:[A-Za-z0-9~_$!-]{10,}$/.test(assetId)) throw badRequest('InvalidAssetID', `Invalid asset ID: ${assetId}`);
  void world;
}

export function decodergbinvoice({ world, node, body }: Ctx) {
  const invoice = reqString(body, 'invoice').trim();
  const m = /^rgb:([^/]+)\/([^/]+)\/([^/]+)\/([^?]+)(?:\?(.*))?$/.exec(invoice);
  if (!m) throw badRequest('InvalidInvoice', 'Invalid invoice: not an RGB invoice');
  const recipientId = m[4];
  const params = new URLSearchParams(m[5] ?? '');
  const rec = world.recipients.get(recipientId);
  const assetId = rec?.asset_id ?? (m[1] !== '~' ? `rgb:${m[1]}` : undefined);
  const amount = rec?.amount ?? (/^\d+$/.test(m[2]) ? Number(m[2]) : undefined);
  const schema = assetId ? world.assets.get(assetId)?.schema : undefined;
  const expiry = rec?.expiration ?? (params.get('expiry') ? Number(params.get('expiry')) : undefined);
  const endpoints = rec?.endpoints ?? params.get('endpoints')?.split(',') ?? [];
  const network = rec?.network ?? (recipientId.startsWith('bcrt:') ? 'Regtest' : recipientId.startsWith('tb:') ? 'Testnet' : 'Mainnet');
  return {
    recipient_id: recipientId,
    recipient_type: recipientId.includes(':wvout:') ? 'Witness' : 'Blind',
    ...(schema ? { asset_schema: schema } : {}),
    ...(assetId ? { asset_id: assetId } : {}),
    assignment: amount !== undefined ? { type: 'Fungible', value: amount } : { type: 'Any' },
    network,
    ...(expiry !== undefined && Number.isFinite(expiry) ? { expiration_timestamp: expiry } : {}),
    transport_endpoints: endpoints,
    ...(node.api === '6887cbf' ? { unknown_query_params: {} } : {}),
  };
}
