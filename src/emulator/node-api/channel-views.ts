/** Lightning channels seen from one node's side: its channels, the peer, reserve and outbound liquidity, usability. */
import type { Channel, WorldState } from './state.js';

/** Channels of a node, seen from its side. */
export function channelsOf(world: WorldState, nodeId: string): Channel[] {
  return [...world.channels.values()].filter((c) => c.opener === nodeId || c.acceptor === nodeId);
}

export const peerOf = (c: Channel, nodeId: string) => (c.opener === nodeId ? c.acceptor : c.opener);

export const reserveMsat = (c: Channel) => c.capacity_sat * 10;

export function outboundMsat(c: Channel, nodeId: string): number {
  return Math.max(0, (c.msat[nodeId] ?? 0) - reserveMsat(c));
}

export function isUsable(world: WorldState, c: Channel): boolean {
  const a = world.nodes.get(c.opener);
  const b = world.nodes.get(c.acceptor);
  return c.status === 'Opened' && !!a?.unlocked && !!b?.unlocked && a.peers.has(b.pubkey);
}
