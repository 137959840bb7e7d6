/**
 * Argument building blocks. Call `.describe()` LAST at the call site: zod 4 wrappers
 * (.optional(), .default(), .min()) do not carry a description set before them.
 *
 * Argument building blocks. Slack and the shell deliver every value as a string, so numbers
 * are coerced and booleans accept true/false/yes/no (also 1/0, on/off).
 */
import { z } from 'zod';
import { UserError } from '../../src/vocabulary/index.js';
import { AmountError, parseSatAmount, readAmountText, toSafeNumber } from './amount.js';

/** The first argument of every node operation: the node's name or id. */
export const nodeArg = () => z.string().min(1).describe('Node name or id');

/** The arguments of a command that takes the node alone. */
export const nodeOnly = z.object({ node: nodeArg() });

/** An RGB asset: its id or its ticker on the node. */
export const assetIdArg = () => z.string().trim().min(1).describe('RGB asset id (rgb:…), or its ticker on this node');

/** A whole number, coerced from text. */
export const int = () => z.coerce.number().int();

/** A non-negative whole amount (sats, msat, raw asset units), coerced; refused above 2^53. */
export const amount = () =>
  z.coerce
    .number()
    .int()
    .nonnegative()
    .refine((v) => Number.isSafeInteger(v), { message: 'too large: at most 9007199254740991' });

/**
 * An amount in a field whose unit is fixed (`capacity_sat`, `amt_msat`): a bare number is in
 * that unit; `100k sats`, `1,000,000 sat`, `0.5 BTC` and `2500 msat` convert exactly.
 * Tagged `amount` so that `100k sats` typed as two words binds to it.
 */
function unitAmount(field: 'sat' | 'msat') {
  const example = field === 'sat' ? '100000, 100k sats or 0.001 BTC' : '3000000, 3000 sat or 2500 msat';
  return z.coerce
    .string()
    .trim()
    .meta({ amount: field })
    .transform((v, zctx) => {
      try {
        return toSafeNumber(parseSatAmount(v, field), 'amount');
      } catch (e) {
        const why = e instanceof AmountError || e instanceof UserError ? e.message : 'not an amount';
        // The parser's own words may already give the example (`"USDT" is not a BTC unit here: give …`): once is enough (P25).
        zctx.addIssue({ code: 'custom', message: /\bgive\b/.test(why) ? why : `${why}; give ${example}` });
        return z.NEVER;
      }
    });
}
export const satAmount = () => unitAmount('sat');
export const msatAmount = () => unitAmount('msat');

/**
 * An asset amount as typed (`10`, `10 USDT`, `1.5USDT`): checked here for its syntax, and turned
 * into raw units by the command once it knows the asset's precision (support/asset-amount.ts).
 */
export const assetAmount = () =>
  z.coerce
    .string()
    .trim()
    .meta({ amount: 'asset' })
    .superRefine((v, zctx) => {
      try {
        readAmountText(v);
      } catch (e) {
        zctx.addIssue({
          code: 'custom',
          message: `${e instanceof AmountError ? e.message : 'not an amount'}; give it in the asset's units, e.g. 10 or 10 USDT (raw units with raw=true)`,
        });
      }
    });

/** `raw=true`: asset amounts in raw base units instead of display units. */
export const rawFlag = () => z.stringbool().default(false).describe('Asset amounts in raw base units, not display units (default false)');

/** A webhook URL: HTTPS only, and saying so when an http:// one is given. */
export const httpsUrl = () =>
  z.url({
    protocol: /^https$/,
    error: (iss) =>
      typeof iss.input === 'string' && /^http:\/\//i.test(iss.input.trim())
        ? 'the URL must be HTTPS (https://…): the service sends status events only over TLS'
        : 'expected an HTTPS URL, such as https://bot.example.com/webhooks/service',
  });

/** A yes/no flag from text: true/false, yes/no, 1/0, on/off. */
export const flag = () => z.stringbool();

/** `limit=` and `page=` (or `from=`) for long lists. */
export const pagingArgs = {
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Rows per page (1-100, default 20)'),
  page: z.coerce.number().int().min(1).default(1).describe('Page number, from 1'),
  from: z.coerce.number().int().min(1).optional().describe('Instead of page=: the row to start at (where a page cut short stopped)'),
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
