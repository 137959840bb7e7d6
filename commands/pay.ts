/** `pay …`: Lightning payments: send (an invoice), keysend, list. */
import { z } from 'zod';
import { UserError, formatSats, msatToSat, shortId, sleep, thousands, withPrecision } from '../src/vocabulary/index.js';
import { msg, type Field } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { needsCapability, type NeedsCapability } from './support/needs-capability.js';
import { type AnyCommand, type Refusal } from '../src/engine/index.js';
import { assetAmount as assetAmountArg, checkAssetPair, msatAmount, nodeArg, pagingArgs, rawFlag } from './support/arg-types.js';
import { assetIndex, assetIndexIf, resolveAssetId } from './support/asset-table.js';
import { assetNamed, rawAssetAmount } from './support/asset-amount.js';
import { ourNodeNames, resolvePubkey } from './support/our-nodes.js';
import { nodeClient } from './support/node-client.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { nodeListCommand } from './support/list-command.js';
import { compact, formatTime, titled } from './support/present.js';
import { invoiceSpend, keysendSpend } from './support/spend.js';
import { readOnce } from './support/read-once.js';
import { decodedInvoice, type DecodedInvoice } from './support/decoded-invoice.js';

/** Lightning has no fee quote before paying: said so rather than guessed. */
const ROUTING_FEE: Field = { label: 'Routing fee', value: 'set by the route the node finds: not known before it pays', inline: true };

const TONE = { Pending: 'info', Succeeded: 'success', Failed: 'danger' } as const;
const toneOf = (s: unknown) => TONE[s as keyof typeof TONE] ?? 'neutral';

/** An asset amount with its precision and ticker, or raw units when the node does not know the asset. */
async function assetAmount(api: NodeApiClient, assetId: string, raw: number | bigint): Promise<string> {
  const info = (await assetIndex(api)).get(assetId);
  return info ? `${withPrecision(raw, info.precision)} ${info.label}` : `${thousands(raw)} raw units of ${shortId(assetId, 16)}`;
}

/** What an invoice asks for, as the node decoded it: amount, asset, payee (and description, expiry). */
async function describeInvoice(
  api: NodeApiClient,
  d: DecodedInvoice,
  o: { withDescription?: boolean; ours?: Map<string, string>; given?: number } = {},
): Promise<Field[]> {
  const fields: Field[] = [];
  const named = d.amt_msat !== undefined && d.amt_msat !== null && Number(d.amt_msat) > 0;
  fields.push({
    label: 'Amount',
    value: named
      ? `${formatSats(msatToSat(d.amt_msat!))} (${thousands(d.amt_msat!)} msat)`
      : o.given !== undefined
        ? `${formatSats(msatToSat(o.given))} (${thousands(o.given)} msat), as given: the invoice names none`
        : 'any amount (the invoice names none)',
    inline: true,
  });
  if (d.asset_id) fields.push({ label: 'Asset', value: await assetAmount(api, d.asset_id, d.asset_amount ?? 0), inline: true });
  if (d.payee_pubkey) {
    const ours = o.ours?.get(d.payee_pubkey.toLowerCase());
    fields.push({ label: 'Payee', value: [...(ours ? [`${ours} (our node) `] : []), { code: shortId(d.payee_pubkey, 20) }], inline: true });
  }
  if (o.withDescription && typeof d.description === 'string' && d.description) fields.push({ label: 'Description', value: d.description });
  if (o.withDescription && d.description_hash) fields.push({ label: 'Description hash', value: [{ code: d.description_hash }] });
  if (o.withDescription && d.expiry_sec !== undefined && d.timestamp !== undefined) {
    fields.push({ label: 'Invoice expires', value: formatTime(Number(d.timestamp) + Number(d.expiry_sec)), inline: true });
  }
  return fields;
}

/**
 * Why an invoice cannot be paid now: it has expired; this node paid it already (or is paying it);
 * or its payee is one of our nodes and says it was paid. Undefined when none of these is known.
 */
async function invoiceRefusal(ctx: CommandContext<unknown>, invoice: string): Promise<Refusal | undefined> {
  const { node, api } = nodeClient(ctx);
  const d = await decodedInvoice(ctx, invoice);
  if (d.timestamp !== undefined && d.timestamp !== null && d.expiry_sec !== undefined && d.expiry_sec !== null) {
    const expires = Number(d.timestamp) + Number(d.expiry_sec);
    if (expires * 1000 <= ctx.services.now()) {
      return {
        reason: `This invoice expired at ${formatTime(expires)}: it can no longer be paid.`,
        next: 'Ask the payee for a new invoice.',
      };
    }
  }
  if (!d.payment_hash) return undefined;
  const { payments = [] } = await api.listpayments();
  const prior = payments.find((p) => !p.inbound && p.payment_hash === d.payment_hash && p.status !== 'Failed');
  if (prior) {
    return prior.status === 'Succeeded'
      ? {
          reason: `${node.name} already paid this invoice (${formatTime(prior.created_at)}).`,
          next: `See it with \`/rln pay list ${node.name}\`.`,
        }
      : {
          reason: `${node.name} is already paying this invoice (the payment is ${String(prior.status)}).`,
          next: `Follow it with \`/rln pay list ${node.name}\`.`,
        };
  }
  const payeeName = d.payee_pubkey ? (await ourNodeNames(ctx)).get(d.payee_pubkey.toLowerCase()) : undefined;
  const payee = payeeName ? (await ctx.services.hosting.listNodes()).find((n) => n.name === payeeName) : undefined;
  if (!payee) return undefined;
  const { status } = await ctx.services
    .nodeApi(payee)
    .invoicestatus({ invoice })
    .catch(() => ({ status: undefined }));
  if (status === 'Succeeded') {
    return {
      reason: `This invoice was paid already: ${payee.name}, its payee, received the payment.`,
      next: `See it with \`/rln invoice status ${payee.name} <invoice>\` or \`/rln pay list ${payee.name}\`.`,
    };
  }
  if (status === 'Expired') {
    return {
      reason: `This invoice has expired: ${payee.name}, its payee, no longer accepts it.`,
      next: `Ask for a new one: \`/rln invoice ln ${payee.name} …\`.`,
    };
  }
  return undefined;
}

/** Paying an invoice that names no amount needs RLN c782095 (f379330's node fails after it pays); `/sendrgb` came after it. */
const NO_AMOUNT: NeedsCapability = { command: 'pay send … amt_msat=', feature: 'paying an invoice that names no amount' };

/**
 * The amount of `pay send`: the invoice's, or the one given for an invoice that names none. Refused: an
 * amount given that differs from the invoice's, none for an invoice without one, and an image that cannot.
 */
async function amountRefusal(ctx: CommandContext<{ invoice: string; amt_msat?: number }>, d: DecodedInvoice): Promise<Refusal | undefined> {
  const { node } = nodeClient(ctx);
  const asked = d.amt_msat !== undefined && d.amt_msat !== null && Number(d.amt_msat) > 0 ? Number(d.amt_msat) : undefined;
  const given = ctx.args.amt_msat;
  if (asked !== undefined) {
    if (given === undefined || given === asked) return undefined;
    return {
      reason: `The invoice asks for ${formatSats(msatToSat(asked))} (${thousands(asked)} msat); ${formatSats(msatToSat(given))} was given.`,
      next: 'Leave out the amount: an invoice that names one is paid exactly that.',
    };
  }
  if (given === undefined) {
    return {
      reason: 'This invoice names no amount: the payer chooses it.',
      next: `Give it, with its unit: \`/rln pay send ${node.name} <invoice> 5000 sats\` (or \`amt_msat=5000000\`).`,
    };
  }
  if (given <= 0) return { reason: 'The amount must be more than 0.', next: 'Give the amount to pay, e.g. `5000 sats`.' };
  return needsCapability(ctx, 'send', NO_AMOUNT);
}

/**
 * Why a payment the node reports Failed failed, as far as its channels tell (the node gives no
 * reason): no channel with the payee, none usable, or not enough outbound capacity; else no route.
 */
async function failureReason(api: NodeApiClient, o: { payee?: string; payeeName?: string; amtMsat?: number }): Promise<string> {
  const who = o.payeeName ?? (o.payee ? shortId(o.payee, 16) : 'the payee');
  const { channels = [] } = await api.listchannels().catch(() => ({ channels: [] }));
  const direct = o.payee ? channels.filter((c) => c.peer_pubkey?.toLowerCase() === o.payee!.toLowerCase()) : [];
  const usable = channels.filter((c) => c.is_usable);
  if (channels.length === 0) return `the node has no channel at all, so no route to ${who}: open one (\`channel open\`)`;
  if (o.payee && direct.length === 0 && usable.length === 0) return `the node has no usable channel, and none with ${who}`;
  const room = Math.max(0, ...usable.map((c) => Number(c.outbound_balance_msat ?? 0)));
  if (o.amtMsat !== undefined && room < o.amtMsat)
    return `no channel can carry it: the most any usable channel can send is ${formatSats(msatToSat(room))}`;
  if (o.payee && direct.length > 0 && !direct.some((c) => c.is_usable))
    return `the channel with ${who} is not usable now (is ${who} online?)`;
  return `the node found no route to ${who} that could carry it`;
}

/** How long a Pending payment is followed before the answer is given (it may still fail after). */
export const paymentFollow = { attempts: 6, delayMs: 250 };

/**
 * The payment's status once it leaves Pending (followed a moment), and a Failed one given back to
 * the daily limits: it moved nothing.
 */
async function outcomeOf(
  ctx: { releaseSpend?: () => Promise<void> },
  api: NodeApiClient,
  res: { status?: string | null; payment_hash?: string | null },
): Promise<string> {
  let status: string = res.status ?? '';
  for (let i = 0; status === 'Pending' && res.payment_hash && i < paymentFollow.attempts; i++) {
    await sleep(paymentFollow.delayMs);
    status = String((await api.getpayment({ payment_hash: res.payment_hash }).catch(() => undefined))?.payment?.status ?? status);
  }
  if (status === 'Failed') await ctx.releaseSpend?.();
  return status;
}

const send = defineCommand({
  path: 'pay send',
  summary: 'Pay a Lightning invoice',
  example: '/rln pay send alice lnbcrt30u1…',
  args: z.object({
    node: nodeArg(),
    // Checked before the confirmation is asked: confirming a paste error helps nobody.
    invoice: z
      .string()
      .trim()
      .transform((v) => v.replace(/^lightning:/i, ''))
      .pipe(z.string().regex(/^ln[a-z0-9]*1[02-9ac-hj-np-z]{20,}$/i, 'a BOLT11 Lightning invoice (lnbc…, lntb…, lnbcrt…): paste it whole'))
      .describe('The Lightning invoice to pay'),
    amt_msat: msatAmount()
      .optional()
      .describe('Only for an invoice that names no amount: how much to pay, with a unit: 5000 sats (6887cbf images)'),
  }),
  positional: ['node', 'invoice', 'amt_msat'],
  role: 'admin',
  confirm: 'button',
  mutates: true,
  spend: invoiceSpend,
  /** An invoice that has expired, that was paid already, or whose amount is wrong or missing is refused before the confirmation. */
  check: async (ctx) =>
    (await invoiceRefusal(ctx, ctx.args.invoice)) ?? (await amountRefusal(ctx, await decodedInvoice(ctx, ctx.args.invoice))),
  /** The confirmation shows what will be paid, and to whom: our node by name when it is one. */
  async preview(ctx) {
    const o = { withDescription: true, ours: await ourNodeNames(ctx), given: ctx.args.amt_msat };
    return [...(await describeInvoice(nodeClient(ctx).api, await decodedInvoice(ctx, ctx.args.invoice), o)), ROUTING_FEE];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { invoice } = ctx.args;
    // Decoded once, now, for all the handler does and shows.
    const d = await api.decodelninvoice({ invoice });
    const refused = await amountRefusal(ctx, d);
    if (refused) throw new UserError('invalid_arguments', refused.reason, refused.next);
    // Sent only for an invoice that names no amount (f379330's document has no such field).
    const given = d.amt_msat === undefined || d.amt_msat === null || Number(d.amt_msat) === 0 ? ctx.args.amt_msat : undefined;
    const res = await api.sendpayment(compact({ invoice, amt_msat: given }));
    res.status = await outcomeOf(ctx, api, res);
    const fields: Field[] = [{ label: 'Status', value: String(res.status ?? '—'), inline: true }];
    const ours = await ourNodeNames(ctx);
    // The amount is a nicety here; the payment itself went through.
    fields.push(...(await describeInvoice(api, d, { ours, given }).catch(() => [])));
    if (res.status === 'Failed') {
      fields.push({
        label: 'Why',
        value: await failureReason(api, {
          payee: d.payee_pubkey ?? undefined,
          payeeName: d.payee_pubkey ? ours.get(d.payee_pubkey.toLowerCase()) : undefined,
          amtMsat: d.amt_msat !== undefined && d.amt_msat !== null ? Number(d.amt_msat) : given,
        }),
      });
    }
    fields.push({ label: 'Payment hash', value: [{ code: res.payment_hash ?? '—' }] });
    return {
      header: titled(res.status === 'Failed' ? 'Payment failed' : 'Payment sent', node),
      tone: toneOf(res.status),
      summary: `${node.name}: payment ${String(res.status ?? '')}`,
      blocks: [msg.fields(fields), msg.context(`See \`pay list ${node.name}\`.`)],
    };
  },
});

/** keysendOf once per attempt: the check and the confirmation's preview share it. */
const keysendOf = (ctx: Parameters<typeof keysend.handler>[0], api: NodeApiClient) =>
  readOnce(ctx, 'keysend plan', () => readKeysend(ctx, api));

/**
 * What a keysend sends, resolved: the payee by pubkey or by the name of one of our nodes, the
 * asset by id or ticker, its amount in raw units.
 */
async function readKeysend(ctx: Parameters<typeof keysend.handler>[0], api: NodeApiClient) {
  const a = ctx.args;
  const named = assetNamed(a.asset_id, a.asset_amount);
  checkAssetPair({ asset_id: named, asset_amount: a.asset_amount });
  const dest = await resolvePubkey(ctx, a.dest_pubkey, 'dest_pubkey');
  const assetId = named ? await resolveAssetId(api, ctx.node!.name, named) : undefined;
  const assetAmt =
    assetId && a.asset_amount !== undefined
      ? await rawAssetAmount(api, assetId, a.asset_amount, { arg: 'asset_amount', raw: a.raw, example: '`asset_amount="10 USDT"`' })
      : undefined;
  return { dest, assetId, assetAmt };
}

const keysend = defineCommand({
  path: 'pay keysend',
  summary: 'Send a spontaneous (keysend) payment to a node pubkey, or to one of your nodes by name',
  example: '/rln pay keysend alice bob 3000 sat',
  args: z.object({
    node: nodeArg(),
    dest_pubkey: z.string().trim().min(1).describe('The receiving node: its pubkey, or the name of one of your nodes'),
    amt_msat: msatAmount()
      .refine((v) => v > 0, 'must be more than 0')
      .describe('Amount in millisats, or with a unit: 3000 sat'),
    asset_id: z.string().min(1).optional().describe('RGB asset to send over the channel: its rgb: id or ticker'),
    asset_amount: assetAmountArg().optional().describe('Asset amount in display units: 10 or 10 USDT (raw units with raw=true)'),
    raw: rawFlag(),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  spend: keysendSpend,
  // The payee, the asset and its amount are resolved in the state check: a name that is no node,
  // an unknown ticker or an amount the asset cannot hold is refused before the confirmation.
  async check(ctx) {
    await keysendOf(ctx, nodeClient(ctx).api);
    return undefined;
  },
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const a = ctx.args;
    const { dest, assetId, assetAmt } = await keysendOf(ctx, api);
    const fields: Field[] = [
      { label: 'Amount', value: `${formatSats(msatToSat(a.amt_msat))} (${thousands(a.amt_msat)} msat)`, inline: true },
      { label: 'To', value: [...(dest.name ? [`${dest.name} `] : []), { code: shortId(dest.pubkey, 20) }], inline: true },
      ROUTING_FEE,
    ];
    if (assetId) fields.push({ label: 'Asset', value: await assetAmount(api, assetId, assetAmt ?? 0), inline: true });
    return fields;
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const a = ctx.args;
    const { dest, assetId, assetAmt } = await keysendOf(ctx, api);
    const res = await api.keysend(compact({ dest_pubkey: dest.pubkey, amt_msat: a.amt_msat, asset_id: assetId, asset_amount: assetAmt }));
    res.status = await outcomeOf(ctx, api, res);
    const fields: Field[] = [
      { label: 'Status', value: String(res.status ?? '—'), inline: true },
      { label: 'Amount', value: `${formatSats(msatToSat(a.amt_msat))} (${thousands(a.amt_msat)} msat)`, inline: true },
    ];
    if (assetId) fields.push({ label: 'Asset', value: await assetAmount(api, assetId, assetAmt ?? 0), inline: true });
    fields.push(
      { label: 'To', value: [...(dest.name ? [`${dest.name} `] : []), { code: dest.pubkey }] },
      { label: 'Payment hash', value: [{ code: res.payment_hash ?? '—' }] },
    );
    if (res.status === 'Failed') {
      fields.push({ label: 'Why', value: await failureReason(api, { payee: dest.pubkey, payeeName: dest.name, amtMsat: a.amt_msat }) });
    }
    return {
      header: titled(res.status === 'Failed' ? 'Keysend failed' : 'Keysend sent', node),
      tone: toneOf(res.status),
      blocks: [msg.fields(fields)],
    };
  },
});

const list = nodeListCommand({
  path: 'pay list',
  summary: 'List Lightning payments, newest first',
  example: '/rln pay list alice',
  args: z.object({ node: nodeArg(), ...pagingArgs }),
  title: 'Payments',
  async load({ api }) {
    const { payments = [] } = await api.listpayments();
    return { rows: [...payments].sort((x, y) => Number(y.created_at ?? 0) - Number(x.created_at ?? 0)) };
  },
  empty: () => [msg.text('No payments yet.')],
  async page({ api, items, all: payments }) {
    const assets = await assetIndexIf(
      api,
      items.some((p) => p.asset_id),
    );
    const counts = { in: 0, out: 0 };
    for (const p of payments) counts[p.inbound ? 'in' : 'out']++;
    const assetText = (p: (typeof items)[number]) => {
      if (!p.asset_id) return '—';
      const info = assets.get(p.asset_id);
      return info
        ? `${withPrecision(p.asset_amount ?? 0, info.precision)} ${info.label}`
        : `${thousands(p.asset_amount ?? 0)} ${shortId(p.asset_id, 8)}`;
    };
    return {
      before: [msg.text(`${counts.in} received · ${counts.out} sent`)],
      table: {
        columns: msg.columns('Dir', 'Status', msg.right('Sats', 'Asset'), 'Hash', 'Created'),
        rows: items.map((p) => [
          p.inbound ? 'in' : 'out',
          String(p.status ?? '—'),
          thousands(msatToSat(p.amt_msat ?? 0)),
          assetText(p),
          shortId(p.payment_hash ?? '—', 12),
          formatTime(p.created_at),
        ]),
      },
    };
  },
});

export const payCommands: AnyCommand[] = [send, keysend, list];
