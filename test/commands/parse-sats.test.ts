import { describe, expect, it } from 'vitest';
import { parseSatsToMsat } from '../../commands/support/parse-sats.js';
import { UserError } from '../../src/core/errors.js';

describe('parseSatsToMsat', () => {
  it.each([
    ['10k sats', 10_000_000],
    ['10ksats', 10_000_000],
    ['1.5k sat', 1_500_000],
    ['2500 sat', 2_500_000],
    ['10 000 sats', 10_000_000],
    ['500000 msat', 500_000],
    ['2k msats', 2_000],
  ])('reads %s as %d msat', (text, msat) => {
    expect(parseSatsToMsat(text)).toBe(msat);
  });

  it.each(['10000', '10k', 'ten sats', '1.5 msat', '-5 sats', '10 BTC'])('refuses %s with an example of what to write', (text) => {
    expect(() => parseSatsToMsat(text, 'min_amount')).toThrow(UserError);
    expect(() => parseSatsToMsat(text, 'min_amount')).toThrow(/min_amount/);
  });
});
