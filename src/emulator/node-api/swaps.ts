import { badRequest, forbidden, notFound } from './errors.js';
import { hex, isPubkey, nowSec, sha256 } from './ids.js';
import { type Ctx, optBool, optInt, optString, reqInt, reqString } from './input.js';
import { checkAssetId } from './assets.js';
import { pushOverChannel } from './payments.js';
import { RGB_HTLC_MIN_MSAT, type Swap, type NodeState, type WorldState } from './state.js';
import { channelsOf, isUsable, outboundMsat, peerOf } from './channel-views.js';

/**
 * Swap semantics in the emulator: the maker gives `qty_from` of `from_asset` and receives `qty_to` of `to_asset`.
 * A missing asset means BTC, counted in msat. Both legs move over direct channels between maker and taker.
 */
function parseSwapstring(s: string) {
  const m = /^(\d+)\/([^/]+)\/(\d+)\/([^/]+)\/(\d+)\/([0-9a-f]{64})$/.exec(s.trim());
  if (!m) throw badRequest('InvalidSwapString', `Invalid swap string: ${s}`);
  const asset = (x: string) => (x === 'btc' ? undefined : x);
  return {
    qty_from: Number(m[1]),
    from_asset: asset(m[2]),
    qty_to: Number(m[3]),
    to_asset: asset(m[4]),
    expires_at: Number(m[5]),
    payment_hash: m[6],
  };
}

/** `/decodeswapstring` (6887cbf, RLN 8694898): what a swap string offers, without the node's state. */
export function decodeswapstring({ body }: Ctx) {
  const text = reqString(body, 'swapstring');
  let s;
  try {
    s = parseSwapstring(text);
  } catch {
    throw badRequest('InvalidSwapString', `Invalid swap string '${text}': expected qty/asset/qty/asset/expiry/payment_hash`);
  }
  return {
    qty_from: s.qty_from,
    qty_to: s.qty_to,
    from_asset: s.from_asset ?? null,
    to_asset: s.to_asset ?? null,
    expiry: s.expires_at,
    payment_hash: s.payment_hash,
  };
}

export function makerinit({ world, node, body }: Ctx) {
  const qtyFrom = reqInt(body, 'qty_from');
  const qtyTo = reqInt(body, 'qty_to');
  const fromAsset = optString(body, 'from_asset');
  const toAsset = optString(body, 'to_asset');
  const timeout = optInt(body, 'timeout_sec') ?? 120;
  if (qtyFrom === 0 || qtyTo === 0) throw badRequest('InvalidAmount', 'Invalid amount: quantities must be positive');
  if (fromAsset === undefined && toAsset === undefined)
    throw badRequest('InvalidSwap', 'Invalid swap: at least one side must be an RGB asset');
  if (fromAsset !== undefined) checkAssetId(fromAsset);
  if (toAsset !== undefined) checkAssetId(toAsset);
  if (fromAsset === toAsset) throw badRequest('InvalidSwap', 'Invalid swap: both sides are the same asset');
  const secret = hex();
  const paymentHash = sha256(Buffer.from(secret, 'hex'));
  const expiresAt = nowSec() + timeout;
  const swapstring = `${qtyFrom}/${fromAsset ?? 'btc'}/${qtyTo}/${toAsset ?? 'btc'}/${expiresAt}/${paymentHash}`;
  const swap: Swap = {
    qty_from: qtyFrom,
    qty_to: qtyTo,
    from_asset: fromAsset,
    to_asset: toAsset,
    payment_hash: paymentHash,
    payment_secret: secret,
    status: 'Waiting',
    requested_at: nowSec(),
    expires_at: expiresAt,
    swapstring,
  };
  node.makerSwaps.push(swap);
  world.swapsByHash.set(paymentHash, { maker: node.nodeId, swap });
  return { payment_hash: paymentHash, payment_secret: secret, swapstring };
}

export function taker({ world, node, body }: Ctx) {
  const swapstring = reqString(body, 'swapstring').trim();
  const s = parseSwapstring(swapstring);
  if (s.expires_at < nowSec()) throw forbidden('ExpiredSwapOffer', 'The swap offer has expired');
  const known = world.swapsByHash.get(s.payment_hash);
  if (known?.maker === node.nodeId) throw badRequest('InvalidSwap', 'Invalid swap: the maker cannot take its own swap');
  if (node.takerSwaps.some((x) => x.payment_hash === s.payment_hash)) throw forbidden('InvalidSwap', 'Swap already accepted');
  node.takerSwaps.push({ ...s, payment_secret: '', status: 'Waiting', requested_at: nowSec(), swapstring });
  return {};
}

function legOk(world: WorldState, from: NodeState, to: NodeState, asset: string | undefined, qty: number): boolean {
  return channelsOf(world, from.nodeId).some(
    (c) =>
      peerOf(c, from.nodeId) === to.nodeId &&
      isUsable(world, c) &&
      (asset === undefined
        ? outboundMsat(c, from.nodeId) >= qty
        : c.asset_id === asset && (c.assetAmt[from.nodeId] ?? 0) >= qty && outboundMsat(c, from.nodeId) >= RGB_HTLC_MIN_MSAT),
  );
}

function move(world: WorldState, from: NodeState, to: NodeState, asset: string | undefined, qty: number): void {
  if (asset === undefined) pushOverChannel(world, from, to, { amtMsat: qty });
  else pushOverChannel(world, from, to, { amtMsat: RGB_HTLC_MIN_MSAT, assetId: asset, assetAmount: qty });
}

export function makerexecute({ world, node, body }: Ctx) {
  const swapstring = reqString(body, 'swapstring');
  const secret = reqString(body, 'payment_secret');
  const takerPubkey = reqString(body, 'taker_pubkey');
  const s = parseSwapstring(swapstring);
  if (!isPubkey(takerPubkey)) throw badRequest('InvalidPubkey', 'Invalid pubkey');
  const mine = node.makerSwaps.find((x) => x.payment_hash === s.payment_hash);
  if (!mine) throw notFound('SwapNotFound', 'Swap not found');
  if (mine.payment_secret !== secret) throw badRequest('InvalidPaymentSecret', 'Invalid payment secret');
  if (mine.status !== 'Waiting') throw forbidden('InvalidSwap', `Invalid swap: it is ${mine.status}`);
  const now = nowSec();
  if (mine.expires_at < now) {
    mine.status = 'Expired';
    throw forbidden('ExpiredSwapOffer', 'The swap offer has expired');
  }
  const takerNode = world.nodeByPubkey(takerPubkey);
  const theirs = takerNode?.takerSwaps.find((x) => x.payment_hash === s.payment_hash);
  if (!takerNode || !theirs) throw forbidden('InvalidSwap', 'Invalid swap: the taker has not accepted it (call taker first)');
  mine.initiated_at = now;
  theirs.initiated_at = now;
  if (!legOk(world, node, takerNode, mine.from_asset, mine.qty_from) || !legOk(world, takerNode, node, mine.to_asset, mine.qty_to)) {
    mine.status = 'Failed';
    theirs.status = 'Failed';
    throw forbidden('InsufficientCapacity', 'Not enough outbound liquidity or assets in the channels between maker and taker');
  }
  move(world, node, takerNode, mine.from_asset, mine.qty_from);
  move(world, takerNode, node, mine.to_asset, mine.qty_to);
  for (const x of [mine, theirs]) {
    x.status = 'Succeeded';
    x.completed_at = now;
  }
  return {};
}

function swapJson(s: Swap) {
  return {
    qty_from: s.qty_from,
    qty_to: s.qty_to,
    ...(s.from_asset !== undefined ? { from_asset: s.from_asset } : {}),
    ...(s.to_asset !== undefined ? { to_asset: s.to_asset } : {}),
    payment_hash: s.payment_hash,
    status: s.status === 'Waiting' && s.expires_at < nowSec() ? 'Expired' : s.status,
    requested_at: s.requested_at,
    ...(s.initiated_at !== undefined ? { initiated_at: s.initiated_at } : {}),
    expires_at: s.expires_at,
    ...(s.completed_at !== undefined ? { completed_at: s.completed_at } : {}),
  };
}

export function listswaps({ node }: Ctx) {
  return { maker: node.makerSwaps.map(swapJson), taker: node.takerSwaps.map(swapJson) };
}

export function getswap({ node, body }: Ctx) {
  const hash = reqString(body, 'payment_hash');
  const isTaker = optBool(body, 'taker') ?? false;
  const swap = (isTaker ? node.takerSwaps : node.makerSwaps).find((x) => x.payment_hash === hash);
  if (!swap) throw notFound('SwapNotFound', 'Swap not found');
  return { swap: swapJson(swap) };
}
