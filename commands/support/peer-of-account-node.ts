import { UserError } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import { findNode, type HostedNode } from '../../src/hosting/index.js';
import { peerAddressOf } from './present.js';

/** `pubkey@host:port` of another node of the account, given by name or id. */
export async function peerOfAccountNode(
  ctx: CommandContext<unknown>,
  self: HostedNode,
  value: string,
): Promise<{ peer: string; name: string } | undefined> {
  const other = findNode(await ctx.services.hosting.listNodes(), value);
  if (!other) return undefined;
  if (other.nodeId === self.nodeId)
    throw new UserError('invalid_arguments', `${self.name} cannot connect to itself.`, 'Name another node, or give pubkey@host:port.');
  if (other.status !== 'RUNNING') {
    throw new UserError(
      'invalid_arguments',
      `${other.name} is ${other.status}, so it cannot accept peers.`,
      `Start it first: \`node start ${other.name}\`.`,
    );
  }
  const address = peerAddressOf(other);
  if (!address) {
    throw new UserError(
      'invalid_arguments',
      `The service does not give a peer address for ${other.name}.`,
      `Give the peer as pubkey@host:port (its pubkey is in \`node info ${other.name}\`).`,
    );
  }
  const { pubkey } = await ctx.services.nodeApi(other).nodeinfo();
  if (!pubkey)
    throw new UserError(
      'invalid_arguments',
      `${other.name} did not report its pubkey (is it unlocked?).`,
      `Check it with \`node info ${other.name}\`.`,
    );
  return { peer: `${pubkey}@${address}`, name: other.name };
}
