/** Table tests of the one amount parser: units, precision, separators and ambiguity. */
import { describe, expect, it } from 'vitest';
import { amountText, assetUnitIn, parseAssetAmount, parseSatAmount, readAmountText, readUnitAmount } from '../../src/vocabulary/index.js';
import { parseMsatWithUnit } from '../../commands/support/amount.js';
import { msatAmount, satAmount } from '../../commands/support/arg-types.js';
import { UserError } from '../../src/vocabulary/index.js';

const USDT = { ticker: 'USDT', name: 'Tether', precision: 6 };
const WHOLE = { ticker: 'PTS', precision: 0 };

describe('amounts in sats or msat fields', () => {
  it.each([
    ['100000', 'sat', 100_000n],
    ['100k', 'sat', 100_000n],
    ['100k sats', 'sat', 100_000n],
    ['100ksat', 'sat', 100_000n],
    ['1.5k sats', 'sat', 1_500n],
    ['1,000,000 sat', 'sat', 1_000_000n],
    ['1_000_000', 'sat', 1_000_000n],
    ['2M sats', 'sat', 2_000_000n],
    ['0.5 BTC', 'sat', 50_000_000n],
    ['0.5btc', 'sat', 50_000_000n],
    ['.001 BTC', 'sat', 100_000n],
    ['3000 msat', 'sat', 3n],
    ['21000000 BTC', 'sat', 2_100_000_000_000_000n],
    ['3000000', 'msat', 3_000_000n],
    ['3000 sat', 'msat', 3_000_000n],
    ['1.5 sat', 'msat', 1_500n],
    ['2500 msat', 'msat', 2_500n],
    ['0.00000001 BTC', 'msat', 1_000n],
    ['21000000 BTC', 'msat', 2_100_000_000_000_000_000n],
  ] as const)('reads %j in a %s field as %s', (text, field, want) => {
    expect(parseSatAmount(text, field)).toBe(want);
  });

  it.each([
    ['1.5 sat', 'sat', /whole number of sats/],
    ['2500 msat', 'sat', /whole number of sats/],
    ['0.1 msat', 'msat', /whole number of msat/],
    ['0.000000001 BTC', 'sat', /whole number of sats/],
    ['10 USDT', 'sat', /not a BTC unit/],
    ['10m', 'sat', /"m" is unclear/],
    ['10 m', 'msat', /"m" is unclear/],
    ['1,00', 'sat', /unclear: use "\." for decimals/],
    ['1.000,50', 'sat', /unclear/],
    ['1,0000', 'sat', /unclear/],
    ['-5', 'sat', /negative/],
    ['abc', 'sat', /does not start with a number/],
    ['', 'sat', /does not start with a number/],
    ['1.2.3', 'sat', /not a number/],
  ] as const)('refuses %j in a %s field, saying why', (text, field, why) => {
    expect(() => parseSatAmount(text, field)).toThrow(why);
  });
});

describe('the amount arguments of commands', () => {
  it('say what to give once, not twice, for a unit that is no BTC unit (P25)', () => {
    const r = msatAmount().safeParse('5 USDT');
    expect(r.success).toBe(false);
    const text = r.error!.issues[0].message;
    expect(text).toBe('"USDT" is not a BTC unit here: give 3000000, 3000 sat or 2500 msat');
    const fine = satAmount().safeParse('1.5 sat');
    expect(fine.error!.issues[0].message).toBe('it is not a whole number of sats; give 100000, 100k sats or 0.001 BTC');
  });
});

describe('asset amounts in display units', () => {
  it.each([
    ['10', USDT, 10_000_000n],
    ['10 USDT', USDT, 10_000_000n],
    ['10USDT', USDT, 10_000_000n],
    ['10 usdt', USDT, 10_000_000n],
    ['10 Tether', USDT, 10_000_000n],
    ['1,000.5 USDT', USDT, 1_000_500_000n],
    ['0.000001', USDT, 1n],
    ['2k USDT', USDT, 2_000_000_000n],
    ['7', WHOLE, 7n],
  ] as const)('reads %j with the asset’s precision', (text, asset, want) => {
    expect(parseAssetAmount(text, asset)).toBe(want);
  });

  it.each([
    ['0.0000001', USDT, /USDT has 6 decimals at most/],
    ['1.5', WHOLE, /PTS has no decimals/],
    ['10 BTC', USDT, /it is in BTC, but the asset is USDT/],
    ['10 EURT', USDT, /it is in EURT, but the asset is USDT/],
    ['10 sats', USDT, /but the asset is USDT/],
  ] as const)('refuses %j, saying why', (text, asset, why) => {
    expect(() => parseAssetAmount(text, asset)).toThrow(why);
  });

  it('reads raw units only when asked, and never with decimals', () => {
    expect(parseAssetAmount('1000000000', USDT, { raw: true })).toBe(1_000_000_000n);
    expect(parseAssetAmount('1000 USDT', USDT, { raw: true })).toBe(1000n);
    expect(() => parseAssetAmount('1.5', USDT, { raw: true })).toThrow(/raw units are whole numbers/);
  });

  it('finds the ticker an amount names, and none for BTC units or bare numbers', () => {
    expect(assetUnitIn('10 USDT')).toBe('USDT');
    expect(assetUnitIn('10USDT')).toBe('USDT');
    expect(assetUnitIn('10 sats')).toBeUndefined();
    expect(assetUnitIn('10')).toBeUndefined();
    expect(assetUnitIn('ten')).toBeUndefined();
  });

  it('keeps the number exact however long it is', () => {
    expect(readAmountText('123456789012345678901234567890.123456789 X')).toEqual({
      number: '123456789012345678901234567890.123456789',
      multiplier: 0,
      unit: 'X',
    });
    expect(parseAssetAmount('123456789012345678.123456', USDT)).toBe(123456789012345678123456n);
  });
});

describe('thresholds and limits (the approval policy, spend limits)', () => {
  it.each([
    ['100000sat', { unit: 'sat', amount: 100_000 }],
    ['100k sats', { unit: 'sat', amount: 100_000 }],
    ['100ksats', { unit: 'sat', amount: 100_000 }],
    ['1,000,000 sat', { unit: 'sat', amount: 1_000_000 }],
    ['2.5M sat', { unit: 'sat', amount: 2_500_000 }],
    ['0.5 BTC', { unit: 'sat', amount: 50_000_000 }],
    ['3000 msat', { unit: 'sat', amount: 3 }],
    ['100 USDT', { unit: 'USDT', amount: 100 }],
    ['12.5usdt', { unit: 'USDT', amount: 12.5 }],
    ['2k USDT', { unit: 'USDT', amount: 2000 }],
    ['1000 *', { unit: '*', amount: 1000 }],
    ['1k*', { unit: '*', amount: 1000 }],
  ])('reads %s', (text, want) => {
    expect(readUnitAmount(text)).toEqual(want);
  });

  it.each([
    ['100000', /has no unit: write 100k sats, 0.5 BTC or 100 USDT/],
    ['lots', /is not an amount/],
    ['1.5 sats', /sats are whole numbers/],
    ['1,00 sats', /unclear: use "\." for decimals/],
    ['10 USDT *', /write 1000 \* for any asset/],
  ])('refuses %s, saying what to write', (text, why) => {
    expect(() => readUnitAmount(text)).toThrow(why);
  });

  it('reads back as people write it', () => {
    expect(amountText({ unit: 'sat', amount: 100_000 })).toBe('100,000 sats');
    expect(amountText({ unit: 'USDT', amount: 12.5 })).toBe('12.5 USDT');
  });
});

describe('a bitcoin amount with its unit, in msat (watch min_amount)', () => {
  it.each([
    ['10k sats', 10_000_000],
    ['10ksats', 10_000_000],
    ['1.5k sat', 1_500_000],
    ['2500 sat', 2_500_000],
    ['10,000 sats', 10_000_000],
    ['500000 msat', 500_000],
    ['2k msats', 2_000],
    ['0.001 BTC', 100_000_000],
  ])('reads %s as %d msat', (text, msat) => {
    expect(parseMsatWithUnit(text, 'min_amount')).toBe(msat);
  });

  it.each(['10000', '10k', 'ten sats', '1.5 msat', '-5 sats', '10 USDT'])('refuses %s, naming the argument with an example', (text) => {
    expect(() => parseMsatWithUnit(text, 'min_amount')).toThrow(UserError);
    expect(() => parseMsatWithUnit(text, 'min_amount')).toThrow(/`min_amount` is not a valid amount/);
  });
});
