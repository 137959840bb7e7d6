/**
 * parseSatsToMsat("10k sats") → 10_000_000: a bitcoin amount typed by a person, in msat. Accepts a
 * number (`10`, `1.5`, `10 000`), an optional `k` (thousands), and a unit: `sat`/`sats` or
 * `msat`/`msats`. A bare number is refused: the unit says which one was meant. Throws a
 * UserError saying what is wrong and showing an example. (Kept small on purpose: a general
 * amount parser for every command is being built separately.)
 */
import { UserError } from '../../src/core/index.js';

const AMOUNT_RE = /^(\d+(?:[ _]\d{3})*(?:\.\d+)?)\s*(k)?\s*(sats?|msats?)$/i;

export function parseSatsToMsat(text: string, field = 'amount'): number {
  const m = AMOUNT_RE.exec(text.trim());
  if (!m) {
    throw new UserError('invalid_arguments', `${field} ${JSON.stringify(text)} is not an amount in sats or msat.`, `Write a number and a unit, e.g. ${field}="10k sats", ${field}="2500 sat" or ${field}="500000 msat".`);
  }
  const value = Number(m[1].replace(/[ _]/g, '')) * (m[2] ? 1000 : 1);
  const msat = /^msat/i.test(m[3]) ? value : value * 1000;
  if (!Number.isSafeInteger(Math.round(msat)) || Math.abs(msat - Math.round(msat)) > 1e-6) {
    throw new UserError('invalid_arguments', `${field} ${JSON.stringify(text)} is not a whole number of msat.`, `e.g. ${field}="10k sats".`);
  }
  return Math.round(msat);
}
