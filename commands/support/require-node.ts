import { UserError } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';

/** The node the dispatcher resolved from the command's `node` argument. */
export function requireNode(ctx: CommandContext<unknown>): HostedNode {
  if (!ctx.node) {
    throw new UserError(
      'unknown_node',
      'This command needs a node, and none was resolved.',
      'Give the node name or id first: see `node list`.',
    );
  }
  return ctx.node;
}
