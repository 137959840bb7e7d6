/** `asset send`: sending an RGB asset to a recipient id or an RGB invoice. */
import { z } from 'zod';
import { UserError, formatSats, shortId, withPrecision, msg } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { type Refusal } from '../src/engine/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { assetAmount, assetIdArg, flag, int, nodeArg, rawFlag, satAmount, splitList } from './support/arg-types.js';
import { typedSends } from './support/send-recipients.js';
import { needsCapability, requireCapability } from './support/needs-capability.js';
import { rawAssetAmount } from './support/asset-amount.js';
import { describeAsset } from './support/asset-table.js';
import { nodeAsset, nodeClient } from './support/node-client.js';
import { assetSendSpend, DEFAULT_WITNESS_SAT } from './support/spend.js';
import { compact, formatTime, titled } from './support/present.js';
import { readOnce } from './support/read-once.js';

/** Asset amounts, one per recipient, split by ";": each checked as `assetAmount` checks one. */
const assetAmounts = () =>
  z
    .string()
    .trim()
    .meta({ amount: 'asset' })
    .superRefine((v, zctx) => {
      for (const part of v.split(';').map((x) => x.trim())) {
        const r = assetAmount().safeParse(part);
        if (!r.success) zctx.addIssue({ code: 'custom', message: r.error.issues[0].message });
        if (!r.success) return;
      }
    });

const sendArgs = z.object({
  node: nodeArg(),
  asset_id: assetIdArg(),
  amount: assetAmounts().describe("Display units: 15.5 or 15.5 USDT (raw=true: raw); several recipients: one each, split by ';'"),
  recipient_id: z.string().min(1).describe('Recipient id or whole RGB invoice; several split by ";" go in one transfer'),
  donation: flag().default(false).describe('Send without waiting for the recipient to accept'),
  fee_rate: int().min(1).default(5).describe('Fee rate in sat/vB, a whole number (default 5)'),
  min_confirmations: int().min(0).default(1).describe('Confirmations before settling (default 1)'),
  transport_endpoints: z.string().optional().describe('Transport endpoints (rpc://…), comma-separated'),
  witness_amount_sat: satAmount().optional().describe('For a witness recipient: sats sent with the asset (default 1000)'),
  raw: rawFlag(),
});

type RgbInvoice = Awaited<ReturnType<NodeApiClient['decodergbinvoice']>>;

/** A whole RGB invoice given as the recipient, decoded; undefined for a bare recipient id. */
async function recipientInvoice(api: NodeApiClient, recipient: string): Promise<RgbInvoice | undefined> {
  if (!recipient.startsWith('rgb:') || !recipient.includes('/')) return undefined;
  return api.decodergbinvoice({ invoice: recipient });
}

/**
 * Why the send does not match its RGB invoice: another asset, another amount (both shown, in
 * display units), or an invoice that has expired. Undefined when it matches.
 */
async function invoiceMismatch(
  api: NodeApiClient,
  inv: RgbInvoice,
  assetId: string,
  value: number,
  nowMs: number,
): Promise<Refusal | undefined> {
  if (inv.asset_id && inv.asset_id !== assetId) {
    const [asked, chosen] = await Promise.all([describeAsset(api, inv.asset_id), describeAsset(api, assetId)]);
    return {
      reason: `The invoice asks for ${asked.label} (${inv.asset_id}), but the send is of ${chosen.label} (${assetId}).`,
      next: 'Send the asset the invoice names, or ask for an invoice of this one.',
    };
  }
  const wanted = inv.assignment?.type === 'Fungible' && 'value' in inv.assignment ? Number(inv.assignment.value) : undefined;
  if (wanted !== undefined && wanted !== value) {
    const { label, precision } = await describeAsset(api, assetId);
    return {
      reason: `The invoice asks for ${withPrecision(wanted, precision)} ${label}, but the send is of ${withPrecision(value, precision)} ${label}.`,
      next: `Send ${withPrecision(wanted, precision)} ${label}, as the invoice asks, or ask for a new invoice.`,
    };
  }
  const exp = inv.expiration_timestamp;
  if (exp !== undefined && exp !== null && Number(exp) * 1000 <= nowMs) {
    return {
      reason: `The invoice expired at ${formatTime(Number(exp))}: the recipient no longer waits for this transfer.`,
      next: 'Ask the recipient for a new invoice.',
    };
  }
  return undefined;
}

/** One recipient of the send: what was typed, its raw amount, and the RGB invoice it is (if it is one). */
interface PlannedSend {
  typed: string;
  value: number;
  inv?: RgbInvoice;
}

/** sendPlan once per attempt: the check, the spend and approval hooks and the preview share it. */
const sendPlan = (ctx: CommandContext<z.infer<typeof sendArgs>>) => readOnce(ctx, 'asset send plan', () => readSendPlan(ctx));

/** What the send is: the asset id, and each recipient with its raw amount, its invoice and the first mismatch. */
async function readSendPlan(ctx: CommandContext<z.infer<typeof sendArgs>>) {
  const { api, assetId } = await nodeAsset(ctx);
  const sends: PlannedSend[] = [];
  let mismatch: Refusal | undefined;
  for (const s of typedSends(ctx.args)) {
    const value = await sendAmount(api, assetId, { amount: s.amount, raw: ctx.args.raw });
    const inv = await recipientInvoice(api, s.recipient);
    mismatch ??= inv ? await invoiceMismatch(api, inv, assetId, value, ctx.services.now()) : undefined;
    sends.push({ typed: s.recipient, value, inv });
  }
  return { api, assetId, sends, value: sends.reduce((a, s) => a + s.value, 0), mismatch };
}

/** The recipient id: the one inside an RGB invoice given as the recipient, else what was typed. */
const recipientOf = (s: PlannedSend): string => s.inv?.recipient_id ?? s.typed;
/** A witness recipient is sent sats with the asset: its invoice says so, or its id has `:wvout:`. */
const isWitness = (s: PlannedSend): boolean => (s.inv ? s.inv.recipient_type === 'Witness' : /:wvout:/.test(s.typed));
/** How long a transfer to several recipients waits for them (the node's own default: a day). */
const DAY_S = 86_400;

/** Several recipients in one transfer need `/sendrgb` (RLN 0a93462). */
const SEVERAL = { command: 'asset send', feature: 'sending to several recipients in one transfer (`/sendrgb`)' } as const;

/** The amount of `asset send` in raw units: display units with the asset's precision unless raw=true. */
function sendAmount(api: NodeApiClient, assetId: string, a: { amount: string; raw: boolean }): Promise<number> {
  return rawAssetAmount(api, assetId, a.amount, {
    arg: 'amount',
    raw: a.raw,
    example: '`asset send alice USDT 15.5 <recipient>` or `amount="15.5 USDT"`',
  });
}

export const assetSend = defineCommand({
  path: 'asset send',
  summary: 'Send an RGB asset to a recipient id or an RGB invoice',
  example: '/rln asset send alice USDT 15.5 rgb:~/~/~/bcrt:utxob:…',
  args: sendArgs,
  role: 'admin',
  confirm: 'button',
  mutates: true,
  spend: assetSendSpend,
  /** An RGB invoice as the recipient is compared with the send before the confirmation: asset, amount, expiry. */
  async check(ctx) {
    if (typedSends(ctx.args).length > 1) {
      const gate = await needsCapability(ctx, 'send', SEVERAL);
      if (gate) return gate;
    }
    return (await sendPlan(ctx)).mismatch;
  },
  /** The confirmation shows what leaves the node, to whom (each recipient with its amount), and what an invoice asks for. */
  async preview(ctx) {
    const { api, assetId, value, sends } = await sendPlan(ctx);
    const { label, precision } = await describeAsset(api, assetId);
    const amount = (v: number) => `${withPrecision(v, precision)} ${label}`;
    const witnesses = sends.filter(isWitness).length;
    const invoiceText = (inv: RgbInvoice) =>
      `${inv.assignment?.type === 'Fungible' ? 'asks for this amount of this asset' : 'asks for no set amount'}${inv.expiration_timestamp ? `, valid until ${formatTime(Number(inv.expiration_timestamp))}` : ''}`;
    const only = sends.length === 1 ? sends[0] : undefined;
    return [
      {
        label: 'Sends',
        value: `${amount(value)}${only ? '' : ` to ${sends.length} recipients, in one transfer`}`,
        inline: true,
      },
      // An RGB invoice starts with the asset's id: the recipient is the id inside it.
      ...(only
        ? [{ label: 'To', value: [{ code: shortId(recipientOf(only), 40) }], inline: true }]
        : sends.map((s, i) => ({
            label: `To (${i + 1})`,
            value: [{ code: shortId(recipientOf(s), 40) }, ` · ${amount(s.value)}${s.inv ? ' (an invoice)' : ''}`],
          }))),
      ...(witnesses
        ? [
            {
              label: 'With it, on-chain',
              value: `${formatSats(witnesses * (ctx.args.witness_amount_sat ?? DEFAULT_WITNESS_SAT))} (to ${witnesses === 1 ? 'the witness output' : `${witnesses} witness outputs`})`,
              inline: true,
            },
          ]
        : []),
      ...(only?.inv ? [{ label: 'Invoice', value: invoiceText(only.inv), inline: true }] : []),
      { label: 'Fee rate', value: `${ctx.args.fee_rate} sat/vB`, inline: true },
      ...(ctx.args.donation ? [{ label: 'Donation', value: 'yes: sent without waiting for the recipient to accept', inline: true }] : []),
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { assetId, value, sends, mismatch } = await sendPlan(ctx);
    if (mismatch) throw new UserError('invalid_arguments', mismatch.reason, mismatch.next);
    const a = ctx.args;
    // An invoice made with no endpoints, to one recipient, on a node that has out-of-band transfers
    // (6887cbf): the consignment is handed over by hand.
    const outOfBand =
      sends.length === 1 &&
      !!sends[0].inv &&
      splitList(a.transport_endpoints).length === 0 &&
      !sends[0].inv.transport_endpoints?.length &&
      (await api.generation('outofband').catch(() => 'f379330')) === '6887cbf';
    const recipients = sends.map((s) => {
      let endpoints = splitList(a.transport_endpoints);
      if (s.inv && endpoints.length === 0) endpoints = s.inv.transport_endpoints ?? [];
      if (endpoints.length === 0 && !outOfBand) {
        throw new UserError(
          'invalid_arguments',
          `No transport endpoint to deliver the transfer${sends.length > 1 ? ` to ${shortId(recipientOf(s), 30)}` : ''}.`,
          'Give `transport_endpoints=rpc://…`, or pass the whole RGB invoice as the recipient.',
        );
      }
      return compact({
        recipient_id: recipientOf(s),
        assignment: { type: 'Fungible' as const, value: s.value },
        witness_data: isWitness(s) ? { amount_sat: a.witness_amount_sat ?? DEFAULT_WITNESS_SAT } : undefined,
        transport_endpoints: endpoints,
      });
    });
    let txid: string | undefined;
    if (recipients.length === 1) {
      // One recipient of one asset: `/sendasset` on f379330 images, a one-entry `/sendrgb` on 6887cbf (the client picks).
      ({ txid } = await api.sendasset({
        asset_id: assetId,
        ...recipients[0],
        donation: a.donation,
        fee_rate: a.fee_rate,
        min_confirmations: a.min_confirmations,
        skip_sync: false,
      }));
    } else {
      await requireCapability(ctx, 'send', SEVERAL);
      ({ txid } = await api.sendrgb({
        donation: a.donation,
        fee_rate: a.fee_rate,
        min_confirmations: a.min_confirmations,
        expiration_timestamp: Math.floor(ctx.services.now() / 1000) + DAY_S,
        recipient_map: { [assetId]: recipients },
      }));
    }
    const { label, precision } = await describeAsset(api, assetId);
    const amount = (v: number) => `${withPrecision(v, precision)} ${label}`;
    return {
      header: titled('Asset sent', node),
      tone: 'success',
      summary: `${node.name} sent ${amount(value)}${recipients.length > 1 ? ` to ${recipients.length} recipients` : ''}`,
      blocks: [
        msg.fields([
          { label: 'Amount', value: amount(value), inline: true },
          { label: 'Fee rate', value: `${a.fee_rate} sat/vB`, inline: true },
          ...(recipients.length === 1 ? [{ label: 'Recipient', value: [{ code: shortId(recipients[0].recipient_id, 40) }] }] : []),
          { label: 'Txid', value: [{ code: txid ?? '—' }] },
        ]),
        ...(recipients.length > 1
          ? [
              msg.table({
                columns: msg.columns('Recipient', msg.right(`Amount (${label})`)),
                rows: sends.map((s) => [shortId(recipientOf(s), 40), withPrecision(s.value, precision)]),
                caption: `${recipients.length} recipients, in one transfer`,
              }),
            ]
          : []),
        msg.context(
          outOfBand
            ? `Out of band: hand the receiver the consignment (\`asset consignment ${node.name} ${assetId} ${txid ?? '<txid>'}\`); once they accept it, \`asset ack ${node.name} ${recipients[0].recipient_id}\` broadcasts the transfer.`
            : `Follow it with \`asset transfers ${node.name} ${assetId}\`.`,
        ),
      ],
    };
  },
});
