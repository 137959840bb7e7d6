/**
 * Amounts as people type them, for command arguments. The grammar is the vocabulary's
 * (src/vocabulary/amount.ts, one reader for every amount); here are the parts that speak to the user.
 */
import { AmountError, parseSatAmount, readAmountText, UserError } from '../../src/vocabulary/index.js';

export { AmountError, assetUnitIn, parseAssetAmount, parseSatAmount, readAmountText, satUnitOf } from '../../src/vocabulary/index.js';
export type { AmountText, AssetUnit, SatUnit } from '../../src/vocabulary/index.js';

/** A bigint for an API that takes JSON numbers: refused above 2^53 rather than rounded. */
export function toSafeNumber(v: bigint, arg: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new UserError('invalid_arguments', `\`${arg}\` is too large.`, 'The node takes at most 9007199254740991 base units.');
  return Number(v);
}

/** An AmountError about an argument as a UserError naming it, what it takes and an example. */
export function amountRefusal(arg: string, e: unknown, example: string): UserError {
  if (!(e instanceof AmountError)) throw e;
  return new UserError('invalid_arguments', `\`${arg}\` is not a valid amount: ${e.message}.`, `Example: ${example}`);
}

/**
 * A bitcoin amount with its unit, in msat (`min_amount=10k sats`): the unit is required, since
 * the field's name does not fix one. Refused with the argument's name and an example.
 */
export function parseMsatWithUnit(input: string, arg: string): number {
  const example = `${arg}="10k sats", ${arg}="0.001 BTC" or ${arg}="500000 msat"`;
  try {
    const { unit } = readAmountText(input);
    if (unit === undefined) throw new AmountError('it has no unit (sats, msat or BTC)');
    return toSafeNumber(parseSatAmount(input, 'msat'), arg);
  } catch (e) {
    throw amountRefusal(arg, e, example);
  }
}
