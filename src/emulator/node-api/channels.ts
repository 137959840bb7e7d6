import { badRequest, forbidden, insufficientAssets, notFound } from './errors.js';
import { hex, isHex32, isPubkey } from './ids.js';
import { type Ctx, optBool, optInt, optString, reqInt, reqString } from './input.js';
import { connect, parsePeer } from './peers.js';
import { knownAsset } from './assets.js';
import { type Channel, CHANNEL_MAX_SAT, CHANNEL_MIN_SAT, RGB_CHANNEL_MIN_SAT, type WorldState } from './state.js';
import { addUtxo, spendVanilla } from './wallet-coins.js';
import { assetBalance, changeOutpoint, lockAllocations, newTransfer, settleAllocations } from './allocations.js';
import { channelsOf, isUsable, outboundMsat, peerOf, reserveMsat } from './channel-views.js';

export function openchannel({ world, node, body }: Ctx) {
  const { pubkey, address } = parsePeer(reqString(body, 'peer_pubkey_and_opt_addr'), false);
  const capacity = reqInt(body, 'capacity_sat');
  const push = optInt(body, 'push_msat') ?? 0;
  const assetId = optString(body, 'asset_id');
  const assetAmount = optInt(body, 'asset_amount');
  const isPublic = optBool(body, 'public') ?? false;
  const tempId = optString(body, 'temporary_channel_id') ?? hex();
  if (!isHex32(tempId)) throw badRequest('InvalidChannelID', 'Invalid channel ID');
  if ([...world.channels.values()].some((c) => c.temporary_channel_id === tempId)) {
    throw forbidden('TemporaryChannelIdAlreadyUsed', 'Temporary channel ID already used');
  }
  if ((assetId === undefined) !== (assetAmount === undefined)) {
    throw badRequest('InvalidAmount', 'Invalid amount: asset_id and asset_amount go together');
  }
  const min = assetId ? RGB_CHANNEL_MIN_SAT : CHANNEL_MIN_SAT;
  if (capacity < min || capacity > CHANNEL_MAX_SAT) {
    throw badRequest('InvalidAmount', `Invalid amount: capacity_sat must be between ${min} and ${CHANNEL_MAX_SAT}`);
  }
  if (push > capacity * 1000) throw badRequest('InvalidAmount', 'Invalid amount: push_msat exceeds the capacity');
  if (assetId !== undefined) {
    knownAsset(world, node, assetId);
    if (!assetAmount) throw badRequest('InvalidAmount', 'Invalid amount: asset_amount must be positive');
    const { spendable } = assetBalance(world, node, assetId);
    if (spendable < assetAmount) throw insufficientAssets(spendable);
  }
  let peer = world.nodeByPubkey(pubkey);
  if (!peer || !node.peers.has(pubkey)) {
    if (address === undefined) throw badRequest('InvalidPeerInfo', 'Invalid peer info: not connected to that peer, give pubkey@host:port');
    peer = connect(world, node, pubkey);
  }
  const w = node.wallet!;
  const { txid } = spendVanilla(world, w, capacity, 1, 1, 'User');
  const channel: Channel = {
    channel_id: hex(),
    temporary_channel_id: tempId,
    funding_txid: txid,
    opener: node.nodeId,
    acceptor: peer.nodeId,
    capacity_sat: capacity,
    msat: { [node.nodeId]: capacity * 1000 - push, [peer.nodeId]: push },
    asset_id: assetId,
    assetAmt: {},
    status: 'Opening',
    public: isPublic,
    fee_base_msat: optInt(body, 'fee_base_msat') ?? 1000,
    fee_proportional_millionths: optInt(body, 'fee_proportional_millionths') ?? 0,
  };
  if (assetId !== undefined && assetAmount !== undefined) {
    const t = newTransfer(w, {
      asset_id: assetId,
      status: 'WaitingConfirmations',
      kind: 'Send',
      requested: assetAmount,
      assignments: [assetAmount],
      txid,
      endpoints: [],
    });
    const locked = lockAllocations(w, assetId, assetAmount, t.idx);
    if (locked > assetAmount)
      w.allocations.push({
        asset_id: assetId,
        outpoint: changeOutpoint(w, t.idx),
        amount: locked - assetAmount,
        settled: false,
        pendingOf: t.idx,
      });
    channel.assetAmt = { [node.nodeId]: assetAmount, [peer.nodeId]: 0 };
    const pw = peer.wallet!;
    if (!pw.assets.has(assetId)) pw.assets.set(assetId, Math.floor(Date.now() / 1000));
    world.broadcast(txid, () => {
      t.status = 'Settled';
      settleAllocations(w, t.idx);
    });
  }
  world.broadcast(txid, () => {
    if (channel.status === 'Opening') {
      channel.status = 'Opened';
      channel.short_channel_id = world.height * 2 ** 40 + (world.channels.size % 1000) * 2 ** 16;
    }
  });
  world.channels.set(channel.channel_id, channel);
  return { temporary_channel_id: tempId };
}

export function channelJson(world: WorldState, nodeId: string, c: Channel) {
  const other = world.nodes.get(peerOf(c, nodeId));
  const local = c.msat[nodeId] ?? 0;
  const remote = c.msat[peerOf(c, nodeId)] ?? 0;
  const usable = isUsable(world, c);
  return {
    channel_id: c.channel_id,
    funding_txid: c.funding_txid,
    peer_pubkey: other?.pubkey ?? '',
    ...(other?.alias ? { peer_alias: other.alias } : {}),
    ...(c.short_channel_id !== undefined ? { short_channel_id: c.short_channel_id } : {}),
    status: c.status,
    ready: c.status === 'Opened',
    capacity_sat: c.capacity_sat,
    local_balance_sat: Math.floor(local / 1000),
    outbound_balance_msat: outboundMsat(c, nodeId),
    inbound_balance_msat: Math.max(0, remote - reserveMsat(c)),
    next_outbound_htlc_limit_msat: usable ? outboundMsat(c, nodeId) : 0,
    next_outbound_htlc_minimum_msat: 1,
    is_usable: usable,
    public: c.public,
    ...(c.asset_id !== undefined
      ? { asset_id: c.asset_id, asset_local_amount: c.assetAmt[nodeId] ?? 0, asset_remote_amount: c.assetAmt[peerOf(c, nodeId)] ?? 0 }
      : {}),
  };
}

export function listchannels({ world, node }: Ctx) {
  return { channels: channelsOf(world, node.nodeId).map((c) => channelJson(world, node.nodeId, c)) };
}

export function getchannelid({ world, body }: Ctx) {
  const temp = reqString(body, 'temporary_channel_id');
  if (!isHex32(temp)) throw badRequest('InvalidChannelID', 'Invalid channel ID');
  const c = [...world.channels.values()].find((x) => x.temporary_channel_id === temp);
  if (!c) throw notFound('UnknownTemporaryChannelId', 'Unknown temporary channel ID');
  return { channel_id: c.channel_id };
}

/** Closing pays each side its balance (and asset amount, on a colored output) once the closing tx is mined. */
export function closechannel({ world, node, body }: Ctx) {
  const channelId = reqString(body, 'channel_id');
  const peerPubkey = reqString(body, 'peer_pubkey');
  const force = optBool(body, 'force') ?? false;
  if (!isHex32(channelId)) throw badRequest('InvalidChannelID', 'Invalid channel ID');
  if (!isPubkey(peerPubkey)) throw badRequest('InvalidPubkey', 'Invalid pubkey');
  const c = world.channels.get(channelId);
  if (!c || (c.opener !== node.nodeId && c.acceptor !== node.nodeId)) throw notFound('UnknownChannelId', 'Unknown channel ID');
  if (world.nodes.get(peerOf(c, node.nodeId))?.pubkey !== peerPubkey)
    throw badRequest('InvalidPubkey', 'Invalid pubkey: not the peer of this channel');
  if (c.status === 'Closing') throw forbidden('ChangingState', 'The channel is already closing');
  if (!force && !isUsable(world, c) && c.status === 'Opened') {
    throw forbidden('FailedClosingChannel', 'Failed closing channel: the peer is offline, use force');
  }
  c.status = 'Closing';
  const txid = hex();
  const fee = 300;
  world.broadcast(txid, () => {
    world.channels.delete(c.channel_id);
    let vout = 0;
    for (const side of [c.opener, c.acceptor]) {
      const n = world.nodes.get(side);
      if (!n?.wallet) continue;
      const sats = Math.floor((c.msat[side] ?? 0) / 1000) - (side === c.opener ? fee : 0);
      const asset = c.assetAmt[side] ?? 0;
      if (sats <= 0 && asset <= 0) continue;
      const u = addUtxo(n.wallet, txid, vout++, Math.max(sats, 1000), { colorable: asset > 0, confirmed: true });
      n.wallet.transactions.push({
        txid,
        transaction_type: 'User',
        received: u.btc_amount,
        sent: 0,
        fee: side === c.opener ? fee : 0,
        height: world.height,
        timestamp: Math.floor(Date.now() / 1000),
      });
      if (asset > 0 && c.asset_id) {
        n.wallet.allocations.push({ asset_id: c.asset_id, outpoint: u.outpoint, amount: asset, settled: true });
      }
    }
  });
  return {};
}
