import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/** Integers above 2^53 become bigint (exact); everything else a plain number. */
function parseNumber(text: string): number | bigint {
  if (isInteger(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/**
 * Sixteen digits in a row. A number written with fewer digits, integer or not, is one that
 * JSON.parse reads exactly as `Number(text)` does, and parseNumber too. Only a number with 16
 * digits or more can be an integer above 2^53 (9007199254740992 has 16).
 */
const LONG_DIGITS = /\d{16}/;

/**
 * Parses node API JSON without rounding u64 amounts. Throws SyntaxError on malformed or truncated text.
 *
 * Text with no 16 digits in a row (most answers: a txid's hex seldom has them) goes to JSON.parse,
 * which reads it alike: lossless-json's parser, written in JS, cost about 2.5% of a poll's CPU
 * and 8% of its garbage (docs/benchmarks.md, 2026-11-29). One difference: lossless-json refuses
 * a key given twice with two values, JSON.parse keeps the last. Neither is a check of the node: a
 * node that lies needs no duplicate key to do it, and nothing else reads its text.
 */
export function parseLosslessJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text) as unknown;
  return parse(text, undefined, parseNumber);
}

/** Serializes a request body; bigint amounts are written as exact integers. */
export function stringifyJson(value: unknown): string {
  return stringify(value) ?? 'null';
}
