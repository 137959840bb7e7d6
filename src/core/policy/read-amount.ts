/**
 * The one place the approval policy and the spend limits read an amount with its unit.
 * `100000sat`, `100k sats`, `0.5 BTC`, `2.5M sat`, `100 USDT`, `100USDT`, `1000 *` (any asset).
 * BTC amounts become sats; an asset's amount stays in its display units (precision applied).
 *
 * It is deliberately one small function with one contract, so that it can be replaced by the
 * command arguments' amount parser (amounts with units, commands/support) when that lands.
 */
export interface UnitAmount {
  /** `sat` for bitcoin, an asset ticker in upper case, or `*` for any asset. */
  unit: string;
  amount: number;
}

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6 };
const SAT_WORDS = new Set(['sat', 'sats', 'satoshi', 'satoshis']);

/** Reads `<number>[k|M] <unit>`; throws an Error whose message says what was wrong, with an example. */
export function readAmount(text: string): UnitAmount {
  const t = text.trim();
  const m = /^(\d+(?:\.\d+)?)\s*([kKM]?)\s*([A-Za-z][A-Za-z0-9]{0,15}|\*)?$/.exec(t);
  if (!m) throw new Error(`"${t.slice(0, 40)}" is not an amount: write a number and its unit, e.g. 100k sats, 0.5 BTC or 100 USDT`);
  const [, digits, suffix, unitText] = m;
  if (!unitText) throw new Error(`"${t}" has no unit: write 100k sats, 0.5 BTC or 100 USDT (a bare number could be any of them)`);
  const n = Number(digits) * (SUFFIX[suffix] ?? 1);
  const unit = unitText.toLowerCase();
  if (SAT_WORDS.has(unit)) {
    if (!Number.isInteger(n)) throw new Error(`"${t}": sats are whole numbers`);
    return { unit: 'sat', amount: n };
  }
  if (unit === 'msat') return { unit: 'sat', amount: Math.floor(n / 1000) };
  if (unit === 'btc') return { unit: 'sat', amount: Math.round(n * 1e8) };
  if (unitText === '*') return { unit: '*', amount: n };
  return { unit: unitText.toUpperCase(), amount: n };
}

/** How a unit amount reads back: `100,000 sats`, `100 USDT`, `1,000 of any asset`. */
export function amountText(a: UnitAmount): string {
  const n = a.amount.toLocaleString('en-US', { maximumFractionDigits: 8 });
  return a.unit === 'sat' ? `${n} sats` : a.unit === '*' ? `${n} (any asset, display units)` : `${n} ${a.unit}`;
}
