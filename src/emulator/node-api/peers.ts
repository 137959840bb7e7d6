import { badRequest, failed } from './errors.js';
import { isPubkey } from './ids.js';
import { type Ctx, optInt, optString, optStringArray, reqString } from './input.js';
import { CHANNEL_MAX_SAT, CHANNEL_MIN_SAT, type NodeState, RGB_CHANNEL_MIN_SAT, RGB_HTLC_MIN_MSAT, type WorldState } from './state.js';
import { channelsOf, isUsable } from './channel-views.js';
import { MAX_MEDIA_BYTES } from './assets.js';

/** u64::MAX, as RLN reports it for channel_asset_max_amount: above 2^53, so it needs lossless JSON. */
export const U64_MAX = 18_446_744_073_709_551_615n;

/** Parses `pubkey` or `pubkey@host:port`; 400 InvalidPeerInfo / InvalidPubkey when malformed. */
export function parsePeer(text: string, requireAddress: boolean): { pubkey: string; address?: string } {
  const [pubkey, address, ...rest] = text.trim().split('@');
  if (rest.length > 0) throw badRequest('InvalidPeerInfo', 'Invalid peer info: more than one @');
  if (!isPubkey(pubkey)) throw badRequest('InvalidPubkey', 'Invalid pubkey');
  if (address !== undefined && !/^[^:\s]+:\d{1,5}$/.test(address))
    throw badRequest('InvalidPeerInfo', `Invalid peer info: address ${address} is not host:port`);
  if (requireAddress && address === undefined) throw badRequest('InvalidPeerInfo', 'Invalid peer info: expected pubkey@host:port');
  return { pubkey, address };
}

/** Connects two nodes of the world (both sides see each other); the peer must be online. */
export function connect(world: WorldState, node: NodeState, pubkey: string): NodeState {
  if (pubkey === node.pubkey) throw badRequest('InvalidPeerInfo', 'Invalid peer info: cannot connect to self');
  const peer = world.nodeByPubkey(pubkey);
  if (!peer || !peer.unlocked || peer.network !== node.network) throw failed('FailedPeerConnection', 'Failed to connect to peer');
  node.peers.add(peer.pubkey);
  peer.peers.add(node.pubkey);
  return peer;
}

export function connectpeer({ world, node, body }: Ctx) {
  const { pubkey } = parsePeer(reqString(body, 'peer_pubkey_and_addr'), true);
  connect(world, node, pubkey);
  return {};
}

export function disconnectpeer({ world, node, body }: Ctx) {
  const pubkey = reqString(body, 'peer_pubkey');
  if (!isPubkey(pubkey)) throw badRequest('InvalidPubkey', 'Invalid pubkey');
  if (!node.peers.has(pubkey)) throw badRequest('FailedPeerDisconnection', 'Failed to disconnect to peer: not connected');
  const peer = world.nodeByPubkey(pubkey);
  if (peer && channelsOf(world, node.nodeId).some((c) => c.opener === peer.nodeId || c.acceptor === peer.nodeId)) {
    throw badRequest('FailedPeerDisconnection', 'Failed to disconnect to peer: a channel with it is open, close it first');
  }
  node.peers.delete(pubkey);
  peer?.peers.delete(node.pubkey);
  return {};
}

export function listpeers({ node }: Ctx) {
  return { peers: [...node.peers].map((pubkey) => ({ pubkey })) };
}

export function networkinfo({ world, node }: Ctx) {
  return { network: node.network, height: world.height };
}

export function nodeinfo({ world, node }: Ctx) {
  const channels = channelsOf(world, node.nodeId);
  const localMsat = channels.reduce((s, c) => s + (c.msat[node.nodeId] ?? 0), 0);
  const pending = node.wallet!.payments.filter((p) => !p.inbound && p.status === 'Pending').reduce((s, p) => s + p.amt_msat, 0);
  return {
    pubkey: node.pubkey,
    num_channels: channels.length,
    num_usable_channels: channels.filter((c) => isUsable(world, c)).length,
    local_balance_sat: Math.floor(localMsat / 1000),
    eventual_close_fees_sat: channels.length * 300,
    pending_outbound_payments_sat: Math.floor(pending / 1000),
    num_peers: node.peers.size,
    account_xpub_vanilla: node.xpubVanilla,
    account_xpub_colored: node.xpubColored,
    max_media_upload_size_mb: MAX_MEDIA_BYTES / 1024 / 1024,
    rgb_htlc_min_msat: RGB_HTLC_MIN_MSAT,
    rgb_channel_capacity_min_sat: RGB_CHANNEL_MIN_SAT,
    channel_capacity_min_sat: CHANNEL_MIN_SAT,
    channel_capacity_max_sat: CHANNEL_MAX_SAT,
    channel_asset_min_amount: 1,
    channel_asset_max_amount: U64_MAX,
    network_nodes: world.nodes.size,
    network_channels: world.channels.size,
  };
}

export function checkindexerurl({ node, body }: Ctx) {
  const url = reqString(body, 'indexer_url');
  // rgb-lib's answer when it cannot reach the indexer (the demo's `indexer-down` fault).
  if (node.faults.indexerDown) throw badRequest('InvalidIndexer', `Invalid indexer: failed to connect to ${url}`);
  if (/^(tcp|ssl):\/\/[^\s/]+:\d+$/.test(url) || /^[^\s/:]+:\d+$/.test(url)) return { indexer_protocol: 'Electrum' };
  if (/^https?:\/\/[^\s]+$/.test(url)) return { indexer_protocol: 'Esplora' };
  throw badRequest('InvalidIndexer', `Invalid indexer: ${url} is neither an Electrum (host:port) nor an Esplora (http[s]://) URL`);
}

export function checkproxyendpoint({ node, body }: Ctx) {
  const url = reqString(body, 'proxy_endpoint');
  if (node.faults.proxyDown) throw badRequest('InvalidProxyEndpoint', `Invalid proxy endpoint: ${url} did not answer`);
  if (!/^rpcs?:\/\/[^\s]+$/.test(url))
    throw badRequest('InvalidProxyEndpoint', `Invalid proxy endpoint: ${url} (expected rpc:// or rpcs://)`);
  return {};
}

export function sendonionmessage({ world, node, body }: Ctx) {
  const nodeIds = optStringArray(body, 'node_ids') ?? [];
  const tlvType = optInt(body, 'tlv_type');
  const data = optString(body, 'data') ?? '';
  if (nodeIds.length === 0 || nodeIds.some((id) => !isPubkey(id)))
    throw badRequest('InvalidNodeIds', 'Invalid node IDs: give at least one valid pubkey');
  if (tlvType === undefined || tlvType < 64) throw badRequest('InvalidTlvType', 'Invalid tlv type: must be at least 64');
  if (data.length === 0) throw badRequest('InvalidOnionData', 'Invalid onion data: empty');
  const first = world.nodeByPubkey(nodeIds[0]);
  if (!first || !node.peers.has(first.pubkey))
    throw failed('FailedSendingOnionMessage', 'Failed to send onion message: the first hop is not a connected peer');
  return {};
}
