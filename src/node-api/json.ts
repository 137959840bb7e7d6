import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** Integers above 2^53 become bigint (exact); everything else a plain number. */
function parseNumber(text: string): number | bigint {
  if (isInteger(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/** Parses node API JSON without rounding u64 amounts. Throws SyntaxError on malformed or truncated text. */
export function parseLosslessJson(text: string): unknown {
  return parse(text, undefined, parseNumber);
}

/** Serializes a request body; bigint amounts are written as exact integers. */
export function stringifyJson(value: unknown): string {
  return stringify(value) ?? 'null';
}
