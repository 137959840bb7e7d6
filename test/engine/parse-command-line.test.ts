import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRegistry } from '../../src/engine/registry.js';
import { parseCommandLine, tokenize } from '../../src/engine/parse-command-line.js';
import { UserError } from '../../src/vocabulary/errors.js';
import { fakeCommands } from '../support/core.js';

const registry = createRegistry(fakeCommands({ stop: [], info: [], unlock: [], destroy: [] }));
const parse = (t: string) => parseCommandLine(t, registry);

function userError(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('expected a UserError');
}

describe('parseCommandLine', () => {
  it('takes required arguments positionally, in schema order', () => {
    expect(parse('/rln node info alice')).toEqual({ path: 'node info', args: { node: 'alice' } });
    expect(parse('node stop bob')).toEqual({ path: 'node stop', args: { node: 'bob' } });
  });

  it('takes any argument as key=value, with quoted values holding spaces', () => {
    expect(parse('/rln report schedule alice cron="0 9 * * *" kind=channels')).toEqual({
      path: 'report schedule',
      args: { node: 'alice', cron: '0 9 * * *', kind: 'channels' },
    });
    expect(parse("/rln report schedule node=alice cron='*/5 * * * *'").args).toEqual({ node: 'alice', cron: '*/5 * * * *' });
    expect(parse('/rln report schedule alice cron=“0 9 * * 1”').args.cron).toBe('0 9 * * 1');
  });

  it('handles top-level actions and help forms', () => {
    expect(parse('/rln audit')).toEqual({ path: 'audit', args: {} });
    expect(parse('/rln audit alice')).toEqual({ path: 'audit', args: { node: 'alice' } });
    expect(parse('/rln help')).toEqual({ path: 'help', args: {} });
    expect(parse('/rln')).toEqual({ path: 'help', args: {} });
    expect(parse('/rln node help')).toEqual({ path: 'node help', args: {} });
    expect(parse('/rln help node')).toEqual({ path: 'node help', args: {} });
    expect(parse('`/rln node info alice`')).toEqual({ path: 'node info', args: { node: 'alice' } });
  });

  it('keeps unicode and apostrophes inside values', () => {
    expect(parse('/rln node info ñodo-✨').args.node).toBe('ñodo-✨');
    expect(parse("/rln report schedule alice cron=don't").args.cron).toBe("don't");
  });

  it('suggests the closest command and help for an unknown one', () => {
    const e = userError(() => parse('/rln node stp alice'));
    expect(e.code).toBe('unknown_command');
    expect(e.hint).toContain('/rln node stop');
    expect(e.hint).toContain('/rln help');
  });

  it('asks for an action when only a group is typed', () => {
    const e = userError(() => parse('/rln node'));
    expect(e.message).toContain('list');
    expect(e.hint).toContain('/rln node help');
  });

  it('refuses too many values without echoing them', () => {
    const e = userError(() => parse('/rln node info alice sekritvalue'));
    expect(e.code).toBe('invalid_arguments');
    expect(`${e.message} ${e.hint}`).not.toContain('sekritvalue');
  });

  it('refuses a password typed inline, without echoing it', () => {
    const e = userError(() => parse('/rln node unlock alice password=hunter22'));
    expect(e.code).toBe('secret_inline');
    expect(`${e.message} ${e.hint}`).not.toContain('hunter22');
    const extra = userError(() => parse('/rln node unlock alice hunter22'));
    expect(extra.code).toBe('secret_inline');
    expect(`${extra.message} ${extra.hint}`).not.toContain('hunter22');
  });

  it('never throws anything but a UserError, whatever is typed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => {
        for (const text of [s, `/rln ${s}`, `node info ${s}`, `report schedule a cron="${s}`]) {
          try {
            parseCommandLine(text, registry);
          } catch (e) {
            if (!(e instanceof UserError)) throw e;
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('tokenizes stray quotes and backticks without losing text', () => {
    expect(tokenize('a "b c')).toEqual(['a', 'b c']);
    expect(tokenize('a `b c` d')).toEqual(['a', 'b c', 'd']);
    expect(tokenize('it"s fine')).toEqual(['it"s', 'fine']);
  });
});

describe('amounts with a unit typed as two words', async () => {
  const { allCommands } = await import('../../commands/index.js');
  const real = createRegistry(allCommands);
  const p = (t: string) => parseCommandLine(t, real);

  it('binds a unit word to the positional amount before it', () => {
    expect(p('asset send alice USDT 10 USDT rgb:abc/def').args).toMatchObject({ amount: '10 USDT', recipient_id: 'rgb:abc/def' });
    expect(p('channel open alice bob 100k sats').args).toMatchObject({ capacity_sat: '100k sats' });
    expect(p('swap maker-init alice 3000 sat 10 USDT').args).toMatchObject({ qty_from: '3000 sat', qty_to: '10 USDT' });
    expect(p('pay keysend alice bob 1,000 sat').args).toMatchObject({ dest_pubkey: 'bob', amt_msat: '1,000 sat' });
  });

  it('binds a unit word to an unquoted key=value amount', () => {
    expect(p('invoice rgb alice amount=10 USDT').args).toEqual({ node: 'alice', amount: '10 USDT' });
    expect(p('invoice ln alice amt_msat=0.5 BTC asset_amount=10USDT').args).toEqual({
      node: 'alice',
      amt_msat: '0.5 BTC',
      asset_amount: '10USDT',
    });
  });

  it('refuses a bitcoin amount in place without its unit, with an example naming one; named, the field fixes the unit (issue 26, P8)', () => {
    for (const line of [
      'pay keysend alice bob 50k',
      'pay keysend alice bob 20000',
      'wallet send alice bcrt1qxyzxyzxyzxyzxyzxyzxyzxyz 200000',
      'channel open alice bob 100000',
      'invoice ln bob 50k',
    ]) {
      expect(() => p(line), line).toThrow(/has no unit\. An amount in place needs one: sats, msat or BTC/);
    }
    try {
      p('pay keysend alice bob 50k');
    } catch (e) {
      expect((e as { hint?: string }).hint).toContain('`50k sats`');
      expect((e as { hint?: string }).hint).toContain('`amt_msat=50k`');
    }
    expect(p('pay keysend alice bob amt_msat=20000').args).toMatchObject({ amt_msat: '20000' });
    expect(p('invoice ln bob 50k sats').args).toEqual({ node: 'bob', amt_msat: '50k sats' });
    // An asset amount after its asset is in the asset's display units, as before.
    expect(p('asset send alice USDT 15.5 rgb:abc/def').args).toMatchObject({ amount: '15.5' });
  });

  it('reads a sign as part of the amount, so a negative one is refused as negative, not as too many values (P26)', () => {
    expect(p('pay keysend alice bob -5 sats').args).toMatchObject({ amt_msat: '-5 sats' });
  });

  it('leaves a word alone after a number that is not an amount, and after a word that is not a number', () => {
    expect(p('wallet fee alice 6').args).toEqual({ node: 'alice', blocks: '6' });
    expect(() => p('wallet fee alice 6 blocks')).toThrow(/Too many values/);
    expect(p('asset send alice USDT ten USDT').args).toMatchObject({ amount: 'ten', recipient_id: 'USDT' });
  });
});
