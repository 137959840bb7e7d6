/** What an argument accepts, in words, instead of zod's validator texts. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import '../../src/engine/zod-messages.js';

const first = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  if (r.success) throw new Error('expected a refusal');
  return r.error.issues[0].message;
};

describe('argument messages', () => {
  it.each([
    [z.coerce.number(), 'six', 'expected a number, such as 5 or 2.5'],
    [z.coerce.number().int(), '1.5', 'expected a whole number, such as 5'],
    // A limit or a port given as a word expects a whole number too, not "such as 5 or 2.5" (P25).
    [z.coerce.number().int().min(1), 'abc', 'expected a whole number, such as 5'],
    [z.coerce.number().int().min(1).max(65535), 'http', 'expected a whole number, such as 5'],
    [z.string().min(66), 'abc', 'expected at least 66 characters'],
    [z.coerce.number().int().min(1).max(100), '0', 'must be at least 1'],
    [z.coerce.number().int().min(1).max(100), '500', 'must be at most 100'],
    [z.coerce.number().positive(), '0', 'must be more than 0'],
    [z.stringbool(), 'maybe', 'expected true or false (also yes/no, on/off)'],
    [z.enum(['sat', 'btc']), 'eur', 'expected one of sat, btc'],
    [z.url(), 'nope', 'expected a URL, such as https://example.com/hook'],
    [z.string(), undefined, 'missing: expected text'],
  ] as const)('%#: says what is expected instead of the validator text', (schema, input, want) => {
    const text = first(schema as z.ZodType, input);
    expect(text).toBe(want);
    expect(text).not.toMatch(/Invalid input|Too small|Too big|received/);
  });

  it('keeps a message a schema gives itself', () => {
    expect(first(z.string().regex(/^[0-9a-f]{66}$/, 'a 66-hex-digit pubkey'), 'x')).toBe('a 66-hex-digit pubkey');
  });
});
