/**
 * The two generations of RLN's node API the emulator speaks, per node: `f379330` (the demo's image) and
 * `6887cbf` (the latest image). The routes of 6887cbf replace f379330's where the API changed; RLN reads
 * a request's body before anything else, so a body of the wrong shape is refused the way each RLN refuses
 * it, before the wallet's state is even looked at.
 */
import { RlnError, badRequest } from './errors.js';
import { nowSec } from './ids.js';
import {
  type Body,
  type Ctx,
  type Handler,
  optBool,
  optFungible,
  optNumber,
  optString,
  optStringArray,
  reqString,
  validFeeRate,
} from './input.js';
import { sendBatch, type OneSend } from './batch-send.js';
import * as assets from './assets.js';
import * as invoices from './invoices.js';
import * as lifecycle from './lifecycle.js';
import * as ifa from './assets-ifa.js';
import * as swaps from './swaps.js';
import { FIELDS_6887CBF } from './features-6887cbf.js';
import * as outOfBand from './out-of-band.js';

import type { ApiGeneration } from './api-generation.js';

export type { ApiGeneration };

/**
 * The required fields of the changed endpoints' bodies, in the order RLN's request structs declare them
 * (serde names the first one missing). f379330's `/unlock` asks only the password here: the hosted
 * service supplies the `bitcoind_rpc_*` fields left out, which is how the bot has always unlocked.
 */
const REQUIRED: Record<ApiGeneration, Record<string, string[]>> = {
  f379330: {
    sendasset: ['asset_id', 'assignment', 'recipient_id', 'donation', 'fee_rate', 'min_confirmations', 'transport_endpoints', 'skip_sync'],
    unlock: ['password'],
    rgbinvoice: ['min_confirmations', 'witness'],
    listtransfers: ['asset_id'],
    refreshtransfers: ['skip_sync'],
    checkproxyendpoint: ['proxy_endpoint'],
    listunspents: ['skip_sync'],
  },
  '6887cbf': {
    sendrgb: ['donation', 'fee_rate', 'min_confirmations', 'expiration_timestamp', 'recipient_map'],
    unlock: ['password', 'ldk_chain_sync', 'indexer_url', 'announce_addresses'],
    rgbinvoice: ['expiration_timestamp', 'min_confirmations', 'witness', 'transport_endpoints'],
    listtransfers: ['asset_filter'],
    sync: ['options'],
    refreshtransfers: ['filter', 'skip_sync'],
    checkproxyendpoint: ['proxy_endpoint'],
    listunspents: ['settled_only', 'skip_sync'],
    issueassetifa: ['amounts', 'inflation_amounts', 'ticker', 'name', 'precision'],
    inflate: ['asset_id', 'inflation_amounts', 'fee_rate', 'min_confirmations'],
    decodeswapstring: ['swapstring'],
    lninvoice: ['expiry_sec'],
  },
};

/**
 * A body that lacks a field, refused as each RLN refuses it: axum's JSON rejection as it is on
 * f379330 (422 JsonExtractorRejection), wrapped in InvalidRequest on 6887cbf (400).
 */
export function missingFieldError(gen: ApiGeneration, field: string, body: unknown): RlnError {
  const column = JSON.stringify(body ?? {}).length;
  const text = `Failed to deserialize the JSON body into the target type: missing field \`${field}\` at line 1 column ${column}`;
  return gen === 'f379330'
    ? new RlnError(422, 'JsonExtractorRejection', text)
    : new RlnError(400, 'InvalidRequest', `Invalid request: ${text}`);
}

/** Refuses a body of a changed endpoint that lacks a required field of this generation. */
export function checkRequired(gen: ApiGeneration, endpoint: string, body: Body): void {
  for (const field of REQUIRED[gen][endpoint] ?? []) {
    if (body[field] === undefined || body[field] === null) throw missingFieldError(gen, field, body);
  }
}

function nested(gen: ApiGeneration, v: unknown, field: string, required: string[], whole: Body): Body {
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw badRequest('InvalidRequest', `Invalid request: \`${field}\` must be an object`);
  const o = v as Body;
  for (const f of required) if (o[f] === undefined || o[f] === null) throw missingFieldError(gen, f, whole);
  return o;
}

/** `/sendrgb`: every recipient of every asset of the `recipient_map`, in one transaction (batch-send.ts). */
function sendrgb(ctx: Ctx) {
  const map = nested('6887cbf', ctx.body.recipient_map, 'recipient_map', [], ctx.body);
  const all: OneSend[] = [];
  for (const [assetId, recipients] of Object.entries(map)) {
    if (!Array.isArray(recipients) || recipients.length === 0)
      throw badRequest('InvalidRecipientMap', 'The provided recipient map is invalid');
    for (const recipient of recipients) {
      const r = nested('6887cbf', recipient, 'recipient_map', ['recipient_id', 'assignment', 'transport_endpoints'], ctx.body);
      all.push({
        assetId,
        recipientId: reqString(r, 'recipient_id'),
        amount: optFungible(r, 'assignment'),
        witnessData: (r.witness_data ?? undefined) as Body | undefined,
        endpoints: optStringArray(r, 'transport_endpoints') ?? [],
      });
    }
  }
  return sendBatch(ctx.world, ctx.node, all, {
    feeRate: validFeeRate(optNumber(ctx.body, 'fee_rate')),
    donation: optBool(ctx.body, 'donation') ?? false,
  });
}

/** `/unlock` with `ldk_chain_sync`: BlockSync with every bitcoind field, or TransactionSync with an indexer URL. */
function unlock(ctx: Ctx) {
  const sync = nested('6887cbf', ctx.body.ldk_chain_sync, 'ldk_chain_sync', ['mode', 'config'], ctx.body);
  const mode = optString(sync, 'mode');
  const needs =
    mode === 'BlockSync'
      ? ['bitcoind_rpc_username', 'bitcoind_rpc_password', 'bitcoind_rpc_host', 'bitcoind_rpc_port']
      : mode === 'TransactionSync'
        ? ['indexer_url']
        : undefined;
  if (!needs)
    throw badRequest(
      'InvalidRequest',
      `Invalid request: unknown variant \`${String(mode)}\`, expected \`BlockSync\` or \`TransactionSync\``,
    );
  nested('6887cbf', sync.config, 'config', needs, ctx.body);
  reqString(ctx.body, 'indexer_url');
  optStringArray(ctx.body, 'announce_addresses');
  return lifecycle.unlock(ctx);
}

function rgbinvoice(ctx: Ctx) {
  const expiration = Number(ctx.body.expiration_timestamp);
  if (!Number.isSafeInteger(expiration) || expiration <= nowSec())
    throw badRequest('InvalidExpiration', 'Invalid expiration: it must be in the future');
  const endpoints = optStringArray(ctx.body, 'transport_endpoints') ?? [];
  return invoices.rgbinvoiceWith(ctx, { expiration, endpoints, generation: '6887cbf' });
}

function listtransfers(ctx: Ctx) {
  const filter = nested('6887cbf', ctx.body.asset_filter, 'asset_filter', ['type'], ctx.body);
  if (filter.type === 'Id') return assets.listTransfersOf(ctx, { assetId: reqString(filter, 'value'), generation: '6887cbf' });
  if (filter.type === 'AnyOrNone') return assets.listTransfersOf(ctx, { generation: '6887cbf' });
  if (filter.type === 'None') return assets.listTransfersOf(ctx, { noAsset: true, generation: '6887cbf' });
  throw badRequest('InvalidRequest', `Invalid request: unknown variant \`${String(filter.type)}\``);
}

function sync(ctx: Ctx) {
  const options = nested('6887cbf', ctx.body.options, 'options', ['keychain', 'strategy'], ctx.body);
  if (!['FastSync', 'FullSync', 'FullScan'].includes(String(options.strategy))) {
    throw badRequest(
      'InvalidRequest',
      `Invalid request: unknown variant \`${String(options.strategy)}\`, expected one of \`FastSync\`, \`FullSync\`, \`FullScan\``,
    );
  }
  return lifecycle.sync(ctx);
}

function refreshtransfers(ctx: Ctx) {
  if (!Array.isArray(ctx.body.filter)) throw badRequest('InvalidRequest', 'Invalid request: `filter` must be an array');
  const before = new Map(ctx.node.wallet!.transfers.map((t) => [t.idx, t.status]));
  assets.refreshTransfersOf(ctx.world, ctx.node);
  const changed = ctx.node.wallet!.transfers.filter((t) => before.get(t.idx) !== t.status);
  return { transfers: Object.fromEntries(changed.map((t) => [String(t.idx), { updated_status: t.status, failure: null }])) };
}

/** The handlers 6887cbf answers differently (or only it has); `null`: gone in 6887cbf. */
export const ROUTES_6887CBF: Record<string, Handler | null> = {
  sendasset: null,
  sendrgb,
  unlock,
  rgbinvoice,
  listtransfers,
  sync,
  refreshtransfers,
  issueassetifa: ifa.issueassetifa,
  inflate: ifa.inflate,
  decodeswapstring: swaps.decodeswapstring,
  ...FIELDS_6887CBF,
  getconsignment: outOfBand.getconsignment,
  provideoutofbandconsignment: outOfBand.provideoutofbandconsignment,
  provideoutofbandack: outOfBand.provideoutofbandack,
};

/** 6887cbf endpoints a node answers without a wallet, or locked. */
export const NO_WALLET_6887CBF = new Set(['unlock', 'init']);

/** Endpoints only 6887cbf has (f379330 answers 404 for them). */
export const ONLY_6887CBF = new Set(['sendrgb', 'issueassetifa', 'inflate', 'decodeswapstring']);

/** 6887cbf's endpoints that answer whatever the wallet's state (RLN does not look at it for them). */
export const STATELESS_6887CBF = new Set(['unlock', 'decodeswapstring']);
