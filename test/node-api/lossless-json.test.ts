/**
 * parseLosslessJson reads text without 16 digits in a row with JSON.parse, and the rest with
 * lossless-json: both ways must give the same values, u64 amounts exact.
 */
import { describe, expect, it } from 'vitest';
import { isInteger, isSafeNumber, parse } from 'lossless-json';
import { parseLosslessJson } from '../../src/node-api/index.js';

/** lossless-json alone, as every answer was read before. */
const reference = (text: string) => parse(text, undefined, (n) => (isInteger(n) && !isSafeNumber(n) ? BigInt(n) : Number(n)));

/** A small deterministic generator, so that a failure can be replayed. */
function numbers(seed: number, count: number): string[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const digits = 1 + (next() % 20);
    let n = String(1 + (next() % 9));
    while (n.length < digits) n += String(next() % 10);
    const sign = next() % 4 === 0 ? '-' : '';
    const form = next() % 4;
    out.push(form === 0 ? `${sign}${n}.${next() % 1000}` : form === 1 ? `${sign}${n}e${next() % 30}` : `${sign}${n}`);
  }
  return out;
}

describe('parseLosslessJson', () => {
  it('reads every number as lossless-json does, above and below 2^53', () => {
    const edges = [
      '9007199254740991',
      '9007199254740992',
      '9007199254740993',
      '-9007199254740993',
      '999999999999999',
      '1000000000000000',
      '18446744073709551615',
      '0',
      '-0',
      '1.5',
      '1e400',
      '0.1234567890123456789',
    ];
    for (const n of [...edges, ...numbers(29, 2_000)]) {
      const text = `{"amount":${n},"list":[${n}]}`;
      const got = parseLosslessJson(text) as { amount: unknown };
      expect(got, text).toEqual(reference(text));
      expect(Object.is(got.amount, (reference(text) as { amount: unknown }).amount), text).toBe(true);
    }
    expect((parseLosslessJson('{"a":18446744073709551615}') as { a: unknown }).a).toBe(18446744073709551615n);
  });

  it('reads strings, nesting, null and a __proto__ key alike, with or without 16 digits in a string', () => {
    for (const text of [
      '{"txid":"8cc5a403e8b635dbf49c37814e7991bc9281ac726c4ee339999b2a7f136fb3d6","n":[1,2.5,null,true,{"x":"é\\u00e9\\n"}]}',
      '{"txid":"1234567890123456789","amount":12}',
      '{"__proto__":{"polluted":1},"b":[]}',
      '[]',
      '"plain"',
    ]) {
      const got = parseLosslessJson(text);
      expect(got, text).toEqual(reference(text));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('throws a SyntaxError on malformed or truncated text, either way', () => {
    for (const text of ['{"a":1', '{"a":12345678901234567', '{a:1}', '[1,]', '{"a":1}x']) {
      expect(() => parseLosslessJson(text), text).toThrow(SyntaxError);
    }
  });
});
