/**
 * The fields 6887cbf added to endpoints whose f379330 body still fits (f379330's RLN ignores a field it
 * does not know): `/init` with an existing `mnemonic` (206f330), `/lninvoice` with a `description` or a
 * `description_hash` and a required `expiry_sec` (a5c10d4), `/sendpayment` with the amount of an invoice
 * that names none (c782095, 86cd708), `/openchannel` with `push_asset_amount` (d419b04), and
 * `/listunspents` with `settled_only`. Checked as RLN checks them.
 */
import { BIP39_ENGLISH_WORDS } from '../../bip39-words.js';
import { badRequest } from './errors.js';
import { type Ctx, optBool, optInt, optString, reqString } from './input.js';
import * as channels from './channels.js';
import * as invoices from './invoices.js';
import * as lifecycle from './lifecycle.js';
import * as payments from './payments.js';
import * as wallet from './wallet.js';

/** BIP-39's word counts. */
const WORD_COUNTS = new Set([12, 15, 18, 21, 24]);

function init(ctx: Ctx) {
  const given = optString(ctx.body, 'mnemonic');
  if (given === undefined) return lifecycle.init(ctx);
  const words = given.trim().toLowerCase().split(/\s+/);
  // As the bip39 crate refuses it (without echoing the words).
  if (!WORD_COUNTS.has(words.length))
    throw badRequest('InvalidMnemonic', `Invalid mnemonic: mnemonic has an invalid word count: ${words.length}`);
  const unknown = words.findIndex((w) => !BIP39_ENGLISH_WORDS.has(w));
  if (unknown >= 0) throw badRequest('InvalidMnemonic', `Invalid mnemonic: mnemonic contains an unknown word (word ${unknown})`);
  return lifecycle.init(ctx, words.join(' '));
}

/** The longest BOLT11 description (639 bytes, the most a tagged field holds). */
const MAX_DESCRIPTION = 639;

function lninvoice(ctx: Ctx) {
  const description = optString(ctx.body, 'description') || undefined;
  const hash = optString(ctx.body, 'description_hash');
  if (description !== undefined && hash !== undefined)
    throw badRequest('InvalidRequest', 'Invalid request: cannot provide both description and description_hash');
  if (description !== undefined && Buffer.byteLength(description) > MAX_DESCRIPTION)
    throw badRequest('InvalidDescription', 'Invalid description: Description exceeds maximum length');
  if (hash !== undefined && !/^[0-9a-fA-F]{64}$/.test(hash))
    throw badRequest('InvalidDescriptionHash', `Invalid description hash: ${hash}`);
  const r = invoices.lninvoice(ctx);
  const inv = ctx.world.lnInvoices.get(r.invoice)!;
  inv.description = description;
  inv.description_hash = hash?.toLowerCase();
  return r;
}

function decodelninvoice(ctx: Ctx) {
  const inv = invoices.lookupLnInvoice(ctx.world, reqString(ctx.body, 'invoice'));
  return {
    ...invoices.decodelninvoice(ctx),
    description: inv.description_hash ? null : (inv.description ?? ''),
    description_hash: inv.description_hash ?? null,
  };
}

function sendpayment(ctx: Ctx) {
  const inv = invoices.lookupLnInvoice(ctx.world, reqString(ctx.body, 'invoice'));
  const given = optInt(ctx.body, 'amt_msat');
  if (inv.amt_msat === undefined && given === undefined)
    throw badRequest('InvalidAmount', 'Invalid amount: need an amount for the given 0-value invoice');
  if (inv.amt_msat !== undefined && given !== undefined && given !== inv.amt_msat)
    throw badRequest('InvalidAmount', `Invalid amount: amount didn't match invoice value of ${inv.amt_msat}msat`);
  return payments.sendpayment(ctx);
}

function openchannel(ctx: Ctx) {
  const push = optInt(ctx.body, 'push_asset_amount');
  const assetAmount = optInt(ctx.body, 'asset_amount');
  if (push !== undefined) {
    if (optString(ctx.body, 'asset_id') === undefined)
      throw badRequest(
        'InvalidAmount',
        'Invalid amount: push_asset_amount can only be used with RGB channels (asset_id must be specified)',
      );
    if (assetAmount !== undefined && push > assetAmount)
      throw badRequest('InvalidAmount', 'Invalid amount: push_asset_amount cannot be higher than asset_amount');
  }
  const r = channels.openchannel(ctx);
  if (push) {
    const c = [...ctx.world.channels.values()].find((x) => x.temporary_channel_id === r.temporary_channel_id)!;
    c.assetAmt[c.opener] = (c.assetAmt[c.opener] ?? 0) - push;
    c.assetAmt[c.acceptor] = (c.assetAmt[c.acceptor] ?? 0) + push;
  }
  return r;
}

function listunspents(ctx: Ctx) {
  const all = wallet.listunspents(ctx);
  if (!optBool(ctx.body, 'settled_only')) return all;
  return { unspents: all.unspents.map((u) => ({ ...u, rgb_allocations: u.rgb_allocations.filter((a) => a.settled) })) };
}

/** The handlers above, by endpoint (`init` needs no wallet, as on f379330). */
export const FIELDS_6887CBF = { init, lninvoice, decodelninvoice, sendpayment, openchannel, listunspents };
