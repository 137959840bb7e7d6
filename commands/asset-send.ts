/** `asset send`: sending an RGB asset to a recipient id or an RGB invoice. */
import { z } from 'zod';
import { UserError, formatSats, shortId, withPrecision, msg } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { type Refusal } from '../src/engine/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { assetAmount, assetIdArg, flag, int, nodeArg, rawFlag, satAmount, splitList } from './support/arg-types.js';
import { rawAssetAmount } from './support/asset-amount.js';
import { describeAsset, resolveAssetId } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { assetSendSpend, DEFAULT_WITNESS_SAT } from './support/spend.js';
import { compact, formatTime, titled } from './support/present.js';

const sendArgs = z.object({
  node: nodeArg(),
  asset_id: assetIdArg(),
  amount: assetAmount().describe("Amount in the asset's display units: 15.5 or 15.5 USDT (raw units with raw=true)"),
  recipient_id: z.string().min(1).describe('Recipient id, or a whole RGB invoice (its endpoints are used)'),
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

/** What the send is: the asset id, its raw amount, and the invoice given as the recipient (if one was). */
async function sendPlan(ctx: CommandContext<z.infer<typeof sendArgs>>) {
  const { node, api } = nodeClient(ctx);
  const assetId = await resolveAssetId(api, node.name, ctx.args.asset_id);
  const value = await sendAmount(api, assetId, ctx.args);
  const inv = await recipientInvoice(api, ctx.args.recipient_id.trim());
  const mismatch = inv ? await invoiceMismatch(api, inv, assetId, value, ctx.services.now()) : undefined;
  return { api, assetId, value, inv, mismatch };
}

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
    return (await sendPlan(ctx)).mismatch;
  },
  /** The confirmation shows what leaves the node, and what the invoice asks for when one was given. */
  async preview(ctx) {
    const { api, assetId, value, inv } = await sendPlan(ctx);
    // An RGB invoice starts with the asset's id: the recipient is the id inside it.
    const recipient = inv?.recipient_id ?? ctx.args.recipient_id.trim();
    const { label, precision } = await describeAsset(api, assetId);
    const witness = inv ? inv.recipient_type === 'Witness' : /:wvout:/.test(recipient);
    return [
      { label: 'Sends', value: `${withPrecision(value, precision)} ${label}`, inline: true },
      { label: 'To', value: [{ code: shortId(recipient, 40) }], inline: true },
      ...(witness
        ? [
            {
              label: 'With it, on-chain',
              value: `${formatSats(ctx.args.witness_amount_sat ?? DEFAULT_WITNESS_SAT)} (to the witness output)`,
              inline: true,
            },
          ]
        : []),
      ...(inv
        ? [
            {
              label: 'Invoice',
              value: `${inv.assignment?.type === 'Fungible' ? 'asks for this amount of this asset' : 'asks for no set amount'}${inv.expiration_timestamp ? `, valid until ${formatTime(Number(inv.expiration_timestamp))}` : ''}`,
              inline: true,
            },
          ]
        : []),
      { label: 'Fee rate', value: `${ctx.args.fee_rate} sat/vB`, inline: true },
      ...(ctx.args.donation ? [{ label: 'Donation', value: 'yes: sent without waiting for the recipient to accept', inline: true }] : []),
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { assetId: assetIdV, value, inv, mismatch } = await sendPlan(ctx);
    if (mismatch) throw new UserError('invalid_arguments', mismatch.reason, mismatch.next);
    const a = { ...ctx.args, asset_id: assetIdV, amount: value };
    let recipientId = a.recipient_id.trim();
    let endpoints = splitList(a.transport_endpoints);
    let witness = /:wvout:/.test(recipientId);
    if (inv) {
      recipientId = inv.recipient_id ?? recipientId;
      if (endpoints.length === 0) endpoints = inv.transport_endpoints ?? [];
      witness = inv.recipient_type === 'Witness';
    }
    // An invoice made with no endpoints (6887cbf: out of band): the consignment is handed over by hand.
    const outOfBand = endpoints.length === 0 && !!inv && (await api.generation('outofband').catch(() => 'f379330')) === '6887cbf';
    if (endpoints.length === 0 && !outOfBand) {
      throw new UserError(
        'invalid_arguments',
        'No transport endpoint to deliver the transfer.',
        'Give `transport_endpoints=rpc://…`, or pass the whole RGB invoice as the recipient.',
      );
    }
    // One recipient of one asset: `/sendasset` on f379330 images, a one-entry `/sendrgb` on 6887cbf (the client picks).
    const { txid } = await api.sendasset(
      compact({
        asset_id: a.asset_id,
        assignment: { type: 'Fungible' as const, value: a.amount },
        recipient_id: recipientId,
        witness_data: witness ? { amount_sat: a.witness_amount_sat ?? DEFAULT_WITNESS_SAT } : undefined,
        donation: a.donation,
        fee_rate: a.fee_rate,
        min_confirmations: a.min_confirmations,
        transport_endpoints: endpoints,
        skip_sync: false,
      }),
    );
    const { label, precision } = await describeAsset(api, a.asset_id);
    return {
      header: titled('Asset sent', node),
      tone: 'success',
      summary: `${node.name} sent ${withPrecision(a.amount, precision)} ${label}`,
      blocks: [
        msg.fields([
          { label: 'Amount', value: `${withPrecision(a.amount, precision)} ${label}`, inline: true },
          { label: 'Fee rate', value: `${a.fee_rate} sat/vB`, inline: true },
          { label: 'Recipient', value: [{ code: shortId(recipientId, 40) }] },
          { label: 'Txid', value: [{ code: txid ?? '—' }] },
        ]),
        msg.context(
          outOfBand
            ? `Out of band: hand the receiver the consignment (\`asset consignment ${node.name} ${a.asset_id} ${txid ?? '<txid>'}\`); once they accept it, \`asset ack ${node.name} ${recipientId}\` broadcasts the transfer.`
            : `Follow it with \`asset transfers ${node.name} ${a.asset_id}\`.`,
        ),
      ],
    };
  },
});
