/**
 * Argument building blocks. Call `.describe()` LAST at the call site: zod 4 wrappers
 * (.optional(), .default(), .min()) do not carry a description set before them.
 *
 * Argument building blocks. Slack and the shell deliver every value as a string, so numbers
 * are coerced and booleans accept true/false/yes/no (also 1/0, on/off).
 */
import { z } from 'zod';
import { UserError } from '../../src/core/errors.js';

/** The first argument of every node operation: the node's name or id. */
export const nodeArg = () => z.string().min(1).describe('Node name or id');

/** A whole number, coerced from text. */
export const int = () => z.coerce.number().int();

/** A non-negative whole amount (sats, msat, raw asset units), coerced; refused above 2^53. */
export const amount = () =>
  z.coerce
    .number()
    .int()
    .nonnegative()
    .refine((v) => Number.isSafeInteger(v), { message: 'too large: at most 9007199254740991' });

/** A yes/no flag from text: true/false, yes/no, 1/0, on/off. */
export const flag = () => z.stringbool();

/** `limit=` and `page=` for long lists. */
export const pagingArgs = {
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Rows per page (1-100, default 20)'),
  page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1'),
};

/** An asset payment names both `asset_id` and `asset_amount`, or neither. */
export function checkAssetPair(a: { asset_id?: unknown; asset_amount?: unknown }): void {
  if ((a.asset_id === undefined) !== (a.asset_amount === undefined)) {
    throw new UserError('invalid_arguments', 'asset_id and asset_amount go together.', 'Give both, or neither.');
  }
}

/** A comma-separated list: "a, b,c" -> ["a","b","c"]. */
export function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
