/**
 * The refusal of an issuance whose ticker (or, for a CFA, its name) another asset of the same node
 * already has (P11): once two assets share it, every command naming it on that node is refused as
 * ambiguous, and reports show two rows that look the same. Checked before any confirmation.
 */
import { shortId } from '../../src/vocabulary/index.js';
import type { Refusal } from '../../src/engine/index.js';
import type { CommandContext } from '../define-command.js';
import { loadAssets } from './asset-table.js';
import { requireNode } from './require-node.js';

export interface NewAsset {
  /** The command, as typed after `/rln`: `asset issue-nia`. */
  command: string;
  ticker?: string;
  /** The name: compared only when the asset has no ticker (a CFA is named by its name). */
  name?: string;
}

/** A refusal when another asset of the node has this ticker (or name), else undefined. */
export async function duplicateAsset(ctx: CommandContext<unknown>, a: NewAsset): Promise<Refusal | undefined> {
  const node = requireNode(ctx);
  const key = (a.ticker ?? a.name ?? '').trim();
  if (!key) return undefined;
  let rows;
  try {
    rows = await loadAssets(ctx.services.nodeApi(node));
  } catch {
    return undefined; // the node cannot be asked now: the issuance itself says what it answers
  }
  const want = key.toLowerCase();
  const what = a.ticker !== undefined ? 'ticker' : 'name';
  const same = rows.find((r) => (a.ticker !== undefined ? r.ticker : r.name)?.toLowerCase() === want);
  if (!same) return undefined;
  const other = [
    same.ticker,
    same.name && same.name !== same.ticker ? `"${same.name}"` : undefined,
    same.schema,
    shortId(same.asset_id, 14),
  ]
    .filter(Boolean)
    .join(' · ');
  return {
    reason:
      `${node.name} already has an asset with the ${what} ${JSON.stringify(key)}: ${other}. ` +
      `A second one would make ${JSON.stringify(key)} ambiguous on ${node.name}, and reports could not tell the two apart.`,
    next:
      a.ticker !== undefined
        ? `Issue it under another ticker (e.g. \`${a.command} ${node.name} ${suggest(key)} …\`), or use the existing one: \`asset balance ${node.name} ${same.asset_id}\`.`
        : `Issue it under another name, or use the existing one: \`asset balance ${node.name} ${same.asset_id}\`.`,
  };
}

/** A ticker not far from the taken one: `USDT` → `USDT2` (at most 8 characters). */
function suggest(ticker: string): string {
  return `${ticker.slice(0, 7)}2`;
}
