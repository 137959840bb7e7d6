/**
 * The faults the demo injects into a node (`/demo <fault> <node>`), each modelled in the node's
 * state so that both generations answer it in their own shapes: a transfer stuck waiting for its
 * counterparty and close to expiry, colourable UTXOs used up, the indexer or proxy not answering,
 * the API answering 500 to everything while the service still says RUNNING, a channel peer gone.
 * `heal` undoes what can be undone (the API, the indexer and proxy, the peers).
 */
import { nowSec } from './ids.js';
import type { Ctx } from './input.js';
import type { NodeState, WorldState } from './state.js';
import { createutxos } from './wallet.js';
import { issueassetnia } from './assets.js';
import { rgbinvoiceWith } from './invoices.js';
import { connect } from './peers.js';
import { openchannel } from './channels.js';
import { channelsOf } from './channel-views.js';

export const NODE_FAULTS = {
  'stuck-transfer': 'an RGB transfer waiting for its counterparty for 2 hours, expiring in 10 minutes',
  'utxos-used-up': 'no free colourable UTXO left',
  'indexer-down': 'the indexer does not answer /checkindexerurl',
  'proxy-down': 'the RGB proxy does not answer /checkproxyendpoint',
  'api-dead': 'the node API answers 500 to everything while the service says RUNNING',
  'peer-gone': 'a peer with a channel disconnected (a channel is opened first if there is none)',
  heal: 'undoes the faults: the API, indexer and proxy answer, the peers reconnect',
} as const;
export type NodeFault = keyof typeof NODE_FAULTS;

const ctx = (world: WorldState, node: NodeState, body: Record<string, unknown>): Ctx => ({ world, node, body });

function stuckTransfer(world: WorldState, node: NodeState): string {
  const w = node.wallet!;
  if (!w.utxos.some((u) => !u.spent && u.colorable)) createutxos(ctx(world, node, { num: 2, size: 32_500, fee_rate: 5 }));
  let assetId = [...w.assets.keys()][0];
  if (!assetId) {
    const issued = issueassetnia(ctx(world, node, { ticker: 'DEMO', name: 'Demo asset', precision: 0, amounts: [1000] })) as {
      asset: { asset_id: string };
    };
    assetId = issued.asset.asset_id;
  }
  const now = nowSec();
  const r = rgbinvoiceWith(ctx(world, node, { asset_id: assetId, assignment: { type: 'Fungible', value: 10 }, witness: true }), {
    expiration: now + 600,
    endpoints: [],
    generation: node.api,
  });
  const t = w.transfers.find((x) => x.idx === r.batch_transfer_idx)!;
  t.created_at = now - 2 * 3600;
  t.updated_at = t.created_at;
  return `transfer #${t.idx} waits for its counterparty since 2 hours ago and expires in 10 minutes`;
}

function utxosUsedUp(node: NodeState): string {
  const w = node.wallet!;
  const free = w.utxos.filter((u) => !u.spent && u.colorable && !w.allocations.some((a) => a.outpoint === u.outpoint));
  // Drained to the vanilla wallet: nothing is left to receive an asset on.
  for (const u of free) u.colorable = false;
  return free.length ? `${free.length} free colourable UTXO(s) used up` : 'it had no free colourable UTXO already';
}

function peerGone(world: WorldState, node: NodeState): string {
  let channel = channelsOf(world, node.nodeId)[0];
  if (!channel) {
    const other = [...world.nodes.values()].find((n) => n !== node && n.unlocked && n.network === node.network);
    if (!other) return 'it has no channel, and no other unlocked node to open one with';
    connect(world, node, other.pubkey);
    openchannel(ctx(world, node, { peer_pubkey_and_opt_addr: other.pubkey, capacity_sat: 100_000, push_msat: 0 }));
    world.mine(1);
    channel = channelsOf(world, node.nodeId)[0];
  }
  const peerId = channel.opener === node.nodeId ? channel.acceptor : channel.opener;
  const peer = world.nodes.get(peerId)!;
  node.peers.delete(peer.pubkey);
  peer.peers.delete(node.pubkey);
  return `its channel peer ${peer.alias ?? peer.pubkey.slice(0, 16)} disconnected`;
}

function heal(world: WorldState, node: NodeState): string {
  node.faults = {};
  for (const c of channelsOf(world, node.nodeId)) {
    const peer = world.nodes.get(c.opener === node.nodeId ? c.acceptor : c.opener);
    if (peer?.unlocked && node.unlocked) connect(world, node, peer.pubkey);
  }
  return 'its faults are undone';
}

/** Injects `fault` into the node; returns what happened, in words. Throws when the node cannot take it (not unlocked). */
export function injectFault(world: WorldState, node: NodeState, fault: NodeFault): string {
  if (fault === 'heal') return heal(world, node);
  if (fault === 'api-dead') {
    node.faults.apiDead = true;
    return 'its API answers 500 to every call';
  }
  if (fault === 'indexer-down') {
    node.faults.indexerDown = true;
    return 'its indexer does not answer';
  }
  if (fault === 'proxy-down') {
    node.faults.proxyDown = true;
    return 'its RGB proxy does not answer';
  }
  if (!node.wallet || !node.unlocked) throw new Error('the node must be initialised and unlocked for this fault');
  if (fault === 'stuck-transfer') return stuckTransfer(world, node);
  if (fault === 'utxos-used-up') return utxosUsedUp(node);
  return peerGone(world, node);
}
