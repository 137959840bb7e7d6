/**
 * An asset named by ticker (or id) on a node that does not hold it yet, found on the account's
 * other nodes: `invoice rgb bob 10 USDT` when alice issued USDT and bob never held it. The ticker
 * and the precision come from the node that knows the asset, so the amount is read in display
 * units on every node of the account.
 */
import { UserError, within } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { nodeCallsOf } from './node-calls.js';
import { loadAssets, resolveAssetId, type AssetRow } from './asset-table.js';
import type { AssetUnit } from './amount.js';

/** How long one other node may take to list its assets. */
const LIST_TIMEOUT_MS = 3_000;

/** The assets of the account's other running nodes, each with the node that holds it. */
async function otherNodesAssets(ctx: CommandContext<unknown>, self: HostedNode): Promise<Array<AssetRow & { holder: string }>> {
  const nodes = (await ctx.services.hosting.listNodes().catch(() => [] as HostedNode[])).filter(
    (n) => n.nodeId !== self.nodeId && n.status === 'RUNNING' && n.invoke_url,
  );
  const out: Array<AssetRow & { holder: string }> = [];
  await nodeCallsOf(ctx).map(
    nodes,
    (n) => n.nodeId,
    async (n) => {
      const rows = await within(loadAssets(ctx.services.nodeApi(n)), LIST_TIMEOUT_MS).catch(() => [] as AssetRow[]);
      if (Array.isArray(rows)) for (const r of rows) out.push({ ...r, holder: n.name });
    },
    { deadlineMs: LIST_TIMEOUT_MS, onError: () => undefined },
  );
  return out;
}

/**
 * The asset an argument names on `node`, by id or ticker: the node's own first; else the one
 * asset of that ticker (or id) on the account's other nodes, with its ticker and precision.
 * `unit` is set only when it came from another node (the node itself says its own).
 */
export async function resolveAccountAsset(
  ctx: CommandContext<unknown>,
  api: NodeApiClient,
  node: HostedNode,
  value: string,
): Promise<{ id: string; unit?: AssetUnit }> {
  const v = value.trim();
  let ownError: UserError | undefined;
  try {
    const id = await resolveAssetId(api, node.name, v);
    if (!v.startsWith('rgb:')) return { id };
    const known = (await loadAssets(api).catch(() => [] as AssetRow[])).some((r) => r.asset_id === id);
    if (known) return { id };
  } catch (e) {
    if (!(e instanceof UserError) || !/has no asset/.test(e.message)) throw e;
    ownError = e;
  }
  const others = await otherNodesAssets(ctx, node);
  const want = v.toLowerCase();
  const byId = others.filter((r) => r.asset_id === v);
  let hits = byId.length ? byId : others.filter((r) => r.ticker?.toLowerCase() === want);
  if (!hits.length && !byId.length) hits = others.filter((r) => r.name?.toLowerCase() === want);
  const ids = [...new Set(hits.map((h) => h.asset_id))];
  if (ids.length === 1) {
    const h = hits[0];
    return { id: h.asset_id, unit: { ticker: h.ticker, name: h.name, precision: h.precision } };
  }
  if (ids.length > 1) {
    throw new UserError(
      'invalid_arguments',
      `${node.name} holds no ${JSON.stringify(v)}, and ${ids.length} assets of your other nodes are called so: ${hits.map((h) => `${h.asset_id} (on ${h.holder})`).join(', ')}.`,
      'Give the rgb:… id of the one you mean.',
    );
  }
  if (ownError) throw ownError;
  return { id: v };
}
