/**
 * Asset amounts typed in display units (`10`, `10 USDT`), turned into the raw units the node
 * takes, with the asset's precision as the node reports it. Raw units only with `raw=true`.
 */
import { UserError } from '../../src/vocabulary/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { amountRefusal, assetUnitIn, parseAssetAmount, toSafeNumber, type AssetUnit } from './amount.js';
import { assetUnitOf } from './asset-table.js';

/** The asset an argument names, or else the ticker its amount carries (`amount="10 USDT"`). */
export function assetNamed(assetArg: string | undefined, amountText: string | undefined): string | undefined {
  return assetArg ?? (amountText !== undefined ? assetUnitIn(amountText) : undefined);
}

/**
 * `text` in the asset's display units (or raw units with `raw`) as raw units. Refused, naming the
 * argument, when it has more decimals than the asset, names another unit, or is not more than 0.
 */
export async function rawAssetAmount(
  api: NodeApiClient,
  assetId: string,
  text: string,
  opts: { arg: string; raw?: boolean; example: string; positive?: boolean; unit?: AssetUnit },
): Promise<number> {
  // The node's own word first; else what another node of the account says of the asset.
  const unit = (await assetUnitOf(api, assetId)) ?? opts.unit;
  if (!unit && !opts.raw) {
    throw new UserError(
      'invalid_arguments',
      `The node does not say the precision of ${assetId}, so \`${opts.arg}\` cannot be read in display units.`,
      'Give it in raw units with `raw=true`.',
    );
  }
  let v: bigint;
  try {
    v = parseAssetAmount(text, unit ?? { precision: 0 }, { raw: opts.raw });
  } catch (e) {
    throw amountRefusal(opts.arg, e, opts.example);
  }
  if (opts.positive !== false && v <= 0n)
    throw new UserError('invalid_arguments', `\`${opts.arg}\` must be more than 0.`, `Example: ${opts.example}`);
  return toSafeNumber(v, opts.arg);
}
