/**
 * Amounts as people type them: `10 USDT`, `10USDT`, `0.5 BTC`, `100k sats`, `1,000,000 sat`,
 * `2500 msat`. One parser for every command; pure and exact (bigint, never a float).
 *
 * The rule (docs/ARCHITECTURE.md, "Amounts"): a unit right after a number belongs to that value. A bare
 * number is accepted only where the field fixes the unit (`*_sat`, `*_msat`) or for an asset
 * already named, in the asset's display units. Anything unclear is refused with an example;
 * nothing is guessed.
 *
 * Pure: no I/O. The command arguments (commands/support/amount.ts), the approval policy and
 * spend limits (`readUnitAmount`) and the watch filters all read amounts here.
 */
/** The syntax of an amount: a decimal number, an optional k/M multiplier, an optional unit word. */
export interface AmountText {
  /** Digits without separators, e.g. `1000000`, `0.5`. */
  number: string;
  /** Powers of ten from a `k` (3) or `M` (6) suffix. */
  multiplier: number;
  /** The unit as typed (`sats`, `BTC`, `USDT`), or undefined for a bare number. */
  unit?: string;
}

export type SatUnit = 'btc' | 'sat' | 'msat';

const SAT_WORDS: Record<string, SatUnit> = {
  btc: 'btc',
  sat: 'sat',
  sats: 'sat',
  satoshi: 'sat',
  satoshis: 'sat',
  msat: 'msat',
  msats: 'msat',
  millisat: 'msat',
  millisats: 'msat',
};

/** Decimal exponent of each unit, counted in msat. */
const MSAT_EXP: Record<SatUnit, number> = { msat: 0, sat: 3, btc: 11 };

/** The BTC unit a word names (`sats` -> sat), if it names one. */
export function satUnitOf(word: string | undefined): SatUnit | undefined {
  return word ? SAT_WORDS[word.toLowerCase()] : undefined;
}

export class AmountError extends Error {
  override readonly name = 'AmountError';
}

const NUMBER_RE = /^(\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*|)(?:\.(\d+))?$/;

/** Reads the syntax of an amount. Throws an AmountError saying what is wrong. */
export function readAmountText(input: string): AmountText {
  const text = input.trim();
  const m = /^([+-]?)([\d.,_]*\d[\d.,_]*|\.\d+)\s*(.*)$/s.exec(text);
  if (!m || !/\d/.test(m[2])) throw new AmountError('it does not start with a number');
  if (m[1] === '-') throw new AmountError('it is negative');
  const raw = m[2];
  let rest = m[3].trim();
  const num = NUMBER_RE.exec(raw);
  if (!num || (num[1] === '' && num[2] === undefined)) {
    if (/,\d{1,2}$|,\d{4,}/.test(raw))
      throw new AmountError(`"${raw}" is unclear: use "." for decimals and "," only between groups of three digits`);
    throw new AmountError(`"${raw}" is not a number`);
  }
  const number = `${(num[1] || '0').replace(/[,_]/g, '')}${num[2] !== undefined ? `.${num[2]}` : ''}`;
  let multiplier = 0;
  const mult = /^([kKM])(?:\s+|$)(.*)$/s.exec(rest) ?? /^(k)(sats?|msats?|btc)$/i.exec(rest);
  if (mult) {
    multiplier = mult[1] === 'M' ? 6 : 3;
    rest = mult[2].trim();
  } else if (/^m(?:\s|$)/.test(rest)) {
    throw new AmountError('"m" is unclear: write M for a million, or msat for millisats');
  }
  if (rest === '') return { number, multiplier };
  if (!/^[A-Za-z][A-Za-z0-9.-]{0,31}$/.test(rest)) throw new AmountError(`"${rest}" is not a unit`);
  return { number, multiplier, unit: rest };
}

/** `number × 10^multiplier × 10^exp`, exactly; refused when it is not a whole number. */
function scaled(a: AmountText, exp: number, tooFine: () => string): bigint {
  const [int, frac = ''] = a.number.split('.');
  const digits = BigInt(`${int}${frac}`);
  const shift = a.multiplier + exp - frac.length;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  if (digits % div !== 0n) throw new AmountError(tooFine());
  return digits / div;
}

const FIELD_EXAMPLE: Record<'sat' | 'msat', string> = {
  sat: '100000, 100k sats, 1,000,000 sat or 0.01 BTC',
  msat: '3000000, 3000 sat or 2500 msat',
};

/**
 * An amount for a field whose unit is fixed (`*_sat` or `*_msat`): a bare number is in that
 * unit; `sat`, `sats`, `msat` and `BTC` convert exactly. Returns the amount in the field's unit.
 */
export function parseSatAmount(input: string, field: 'sat' | 'msat'): bigint {
  const a = readAmountText(input);
  const unit = a.unit === undefined ? field : satUnitOf(a.unit);
  if (!unit) throw new AmountError(`"${a.unit}" is not a BTC unit here: give ${FIELD_EXAMPLE[field]}`);
  const exp = MSAT_EXP[unit] - MSAT_EXP[field];
  return scaled(a, exp, () => (field === 'sat' ? 'it is not a whole number of sats' : 'it is not a whole number of msat'));
}

/** What the amount of an asset is read against: the asset's ticker and precision, from the node. */
export interface AssetUnit {
  ticker?: string;
  name?: string;
  precision: number;
}

/**
 * An asset amount in display units (`10`, `10 USDT`, `1.5USDT`) to raw units, with the asset's
 * precision; with `raw`, the number is raw units. A unit must be the asset's ticker (or name).
 * More decimals than the asset has is refused.
 */
export function parseAssetAmount(input: string, asset: AssetUnit, opts: { raw?: boolean } = {}): bigint {
  const a = readAmountText(input);
  const label = asset.ticker || asset.name || 'the asset';
  if (a.unit !== undefined) {
    const u = a.unit.toLowerCase();
    if (u !== asset.ticker?.toLowerCase() && u !== asset.name?.toLowerCase()) {
      throw new AmountError(`it is in ${a.unit}, but the asset is ${label}`);
    }
  }
  if (opts.raw) return scaled(a, 0, () => 'raw units are whole numbers');
  return scaled(a, asset.precision, () =>
    asset.precision === 0
      ? `${label} has no decimals`
      : `${label} has ${asset.precision} decimal${asset.precision === 1 ? '' : 's'} at most`,
  );
}

/** The unit an amount names, when it names a non-BTC one (the ticker in `10 USDT`). */
export function assetUnitIn(input: string): string | undefined {
  try {
    const { unit } = readAmountText(input);
    return unit && !satUnitOf(unit) ? unit : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An amount with its unit as the approval policy and spend limits keep it: bitcoin in sats
 * (`unit: 'sat'`), an asset in its display units (`unit: 'USDT'`), or `*` for any asset.
 */
export interface UnitAmount {
  /** `sat` for bitcoin, an asset ticker in upper case, or `*` for any asset. */
  unit: string;
  amount: number;
}

const UNIT_EXAMPLE = 'write 100k sats, 0.5 BTC or 100 USDT';

/**
 * Reads `<amount> <unit>` for a threshold or a limit: `100k sats`, `0.5 BTC`, `3000 msat` (sats,
 * rounded down), `100 USDT`, `1000 *` (any asset). The unit is required: a bare number could be
 * any of them. Throws an AmountError whose message quotes the text and gives an example.
 */
export function readUnitAmount(text: string): UnitAmount {
  const t = text.trim();
  const any = /^(.*?)\s*\*$/s.exec(t);
  let a: AmountText;
  try {
    a = readAmountText(any ? any[1] : t);
  } catch (e) {
    if (!(e instanceof AmountError)) throw e;
    throw new AmountError(`"${t.slice(0, 40)}" is not an amount (${e.message}): ${UNIT_EXAMPLE}`);
  }
  if (any) {
    if (a.unit !== undefined) throw new AmountError(`"${t}" is not an amount: write 1000 * for any asset, or 100 USDT for one`);
    return { unit: '*', amount: Number(`${a.number}e${a.multiplier}`) };
  }
  if (a.unit === undefined) throw new AmountError(`"${t}" has no unit: ${UNIT_EXAMPLE} (a bare number could be any of them)`);
  const sat = satUnitOf(a.unit);
  if (sat === 'sat') return { unit: 'sat', amount: Number(scaled(a, 0, () => `"${t}": sats are whole numbers`)) };
  if (sat) return { unit: 'sat', amount: Number(scaled(a, MSAT_EXP[sat], () => `"${t}" is finer than a msat`) / 1000n) };
  return { unit: a.unit.toUpperCase(), amount: Number(`${a.number}e${a.multiplier}`) };
}

/** How a unit amount reads back: `100,000 sats`, `100 USDT`, `1,000 of any asset`. */
export function amountText(a: UnitAmount): string {
  const n = a.amount.toLocaleString('en-US', { maximumFractionDigits: 8 });
  return a.unit === 'sat' ? `${n} sats` : a.unit === '*' ? `${n} (any asset, display units)` : `${n} ${a.unit}`;
}
