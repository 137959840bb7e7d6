import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { requireNode } from './require-node.js';

/** The resolved node and a node API client for it. */
export function nodeClient(ctx: CommandContext<unknown>): { node: HostedNode; api: NodeApiClient } {
  const node = requireNode(ctx);
  return { node, api: ctx.services.nodeApi(node) };
}
