import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { requireNode } from './require-node.js';
import { resolveAssetId } from './asset-table.js';

/** The resolved node and a node API client for it. */
export function nodeClient(ctx: CommandContext<unknown>): { node: HostedNode; api: NodeApiClient } {
  const node = requireNode(ctx);
  return { node, api: ctx.services.nodeApi(node) };
}

/** The resolved node, its client, and the id of the asset `asset_id=` names (a ticker, a name or an id). */
export async function nodeAsset(
  ctx: CommandContext<{ asset_id: string }>,
): Promise<{ node: HostedNode; api: NodeApiClient; assetId: string }> {
  const { node, api } = nodeClient(ctx);
  return { node, api, assetId: await resolveAssetId(api, node.name, ctx.args.asset_id) };
}
