import { badRequest, forbidden, notFound } from './errors.js';
import { hex, isHex32, isPubkey, nowSec, sha256 } from './ids.js';
import { type Ctx, optInt, optString, reqInt, reqString } from './input.js';
import { lnInvoiceStatus, lookupLnInvoice } from './invoices.js';
import { type NodeState, type Payment, RGB_HTLC_MIN_MSAT, type WorldState } from './state.js';
import { channelsOf, isUsable, outboundMsat, peerOf } from './channel-views.js';

interface Route {
  amtMsat: number;
  assetId?: string;
  assetAmount?: number;
}

/**
 * Moves a payment over a direct, usable channel between payer and payee (the emulator does not route over hops).
 * Returns false when no channel can carry it.
 */
export function pushOverChannel(world: WorldState, from: NodeState, to: NodeState, r: Route): boolean {
  const c = channelsOf(world, from.nodeId).find(
    (ch) =>
      peerOf(ch, from.nodeId) === to.nodeId &&
      isUsable(world, ch) &&
      outboundMsat(ch, from.nodeId) >= r.amtMsat &&
      (r.assetId === undefined || (ch.asset_id === r.assetId && (ch.assetAmt[from.nodeId] ?? 0) >= (r.assetAmount ?? 0))),
  );
  if (!c) return false;
  c.msat[from.nodeId] -= r.amtMsat;
  c.msat[to.nodeId] = (c.msat[to.nodeId] ?? 0) + r.amtMsat;
  if (r.assetId !== undefined && r.assetAmount) {
    c.assetAmt[from.nodeId] -= r.assetAmount;
    c.assetAmt[to.nodeId] = (c.assetAmt[to.nodeId] ?? 0) + r.assetAmount;
  }
  return true;
}

function record(node: NodeState, p: Omit<Payment, 'created_at' | 'updated_at'>): Payment {
  const ts = nowSec();
  const payment = { ...p, created_at: ts, updated_at: ts };
  node.wallet!.payments.push(payment);
  return payment;
}

export function sendpayment({ world, node, body }: Ctx) {
  const inv = lookupLnInvoice(world, reqString(body, 'invoice'));
  const amtOverride = optInt(body, 'amt_msat');
  if (inv.network !== node.network) throw badRequest('InvalidInvoice', 'Invalid invoice: network mismatch');
  if (inv.nodeId === node.nodeId) throw badRequest('InvalidInvoice', 'Invalid invoice: cannot pay an invoice of this node');
  const status = lnInvoiceStatus(inv);
  if (status === 'Succeeded') throw forbidden('DuplicatePayment', 'The invoice has already been paid');
  if (status === 'Expired') throw badRequest('InvalidInvoice', 'Invalid invoice: expired');
  const amtMsat = inv.amt_msat ?? amtOverride;
  if (amtMsat === undefined || amtMsat === 0) throw badRequest('InvalidAmount', 'Invalid amount: the invoice has no amount, give amt_msat');
  const payee = world.nodes.get(inv.nodeId);
  const ok = !!payee && pushOverChannel(world, node, payee, { amtMsat, assetId: inv.asset_id, assetAmount: inv.asset_amount });
  const result = ok ? 'Succeeded' : 'Failed';
  const base = {
    amt_msat: amtMsat,
    asset_id: inv.asset_id,
    asset_amount: inv.asset_amount,
    payment_hash: inv.payment_hash,
    payee_pubkey: inv.payee_pubkey,
  };
  record(node, { ...base, inbound: false, status: result });
  if (ok) {
    inv.status = 'Succeeded';
    record(payee, { ...base, inbound: true, status: 'Succeeded', preimage: inv.preimage });
  }
  return { payment_hash: inv.payment_hash, payment_secret: inv.payment_secret, status: result };
}

export function keysend({ world, node, body }: Ctx) {
  const dest = reqString(body, 'dest_pubkey');
  const amtMsat = reqInt(body, 'amt_msat');
  const assetId = optString(body, 'asset_id');
  const assetAmount = optInt(body, 'asset_amount');
  if (!isPubkey(dest)) throw badRequest('InvalidPubkey', 'Invalid pubkey');
  if ((assetId === undefined) !== (assetAmount === undefined))
    throw badRequest('InvalidAmount', 'Invalid amount: asset_id and asset_amount go together');
  if (assetId !== undefined && amtMsat < RGB_HTLC_MIN_MSAT)
    throw badRequest('InvalidAmount', `Invalid amount: an RGB keysend needs amt_msat >= ${RGB_HTLC_MIN_MSAT}`);
  if (amtMsat === 0) throw badRequest('InvalidAmount', 'Invalid amount: amt_msat must be positive');
  const payee = world.nodeByPubkey(dest);
  const preimage = hex();
  const paymentHash = sha256(Buffer.from(preimage, 'hex'));
  const ok = !!payee && payee.nodeId !== node.nodeId && pushOverChannel(world, node, payee, { amtMsat, assetId, assetAmount });
  const status = ok ? 'Succeeded' : 'Failed';
  const base = { amt_msat: amtMsat, asset_id: assetId, asset_amount: assetAmount, payment_hash: paymentHash, payee_pubkey: dest };
  record(node, { ...base, inbound: false, status, preimage });
  if (ok) record(payee, { ...base, inbound: true, status: 'Succeeded', preimage });
  return { payment_hash: paymentHash, payment_preimage: preimage, status };
}

function paymentJson(p: Payment) {
  return {
    amt_msat: p.amt_msat,
    ...(p.asset_id !== undefined ? { asset_id: p.asset_id, asset_amount: p.asset_amount } : {}),
    payment_hash: p.payment_hash,
    inbound: p.inbound,
    status: p.status,
    created_at: p.created_at,
    updated_at: p.updated_at,
    payee_pubkey: p.payee_pubkey,
  };
}

export function listpayments({ node }: Ctx) {
  return { payments: node.wallet!.payments.map(paymentJson) };
}

export function getpayment({ node, body }: Ctx) {
  const hash = reqString(body, 'payment_hash');
  if (!isHex32(hash)) throw badRequest('InvalidPaymentHash', 'Invalid payment hash');
  const p = [...node.wallet!.payments].reverse().find((x) => x.payment_hash === hash);
  if (!p) throw notFound('PaymentNotFound', `Payment with hash ${hash} not found`);
  return { payment: paymentJson(p) };
}
