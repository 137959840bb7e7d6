/** `invoice …`: Lightning and RGB invoices: create, decode, status. */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { formatSats, msatToSat, shortId, thousands, withPrecision } from '../src/vocabulary/index.js';
import { msg, type Field } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { needsCapability, type NeedsCapability } from './support/needs-capability.js';
import { type AnyCommand } from '../src/engine/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { assetAmount, checkAssetPair, int, msatAmount, nodeArg, rawFlag, splitList } from './support/arg-types.js';
import { assetNamed, rawAssetAmount } from './support/asset-amount.js';
import { assetAmountText, assetIndex, resolveAssetId } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { ourNodeNames } from './support/our-nodes.js';
import { resolveAccountAsset } from './support/account-assets.js';
import { compact, formatSeconds, formatTime, titled } from './support/present.js';
import { qrFile } from './support/qr-file.js';

/** An RGB invoice starts with `rgb:`; a Lightning one with `ln` (lnbc, lntb, lnbcrt…), maybe after `lightning:`. */
export function invoiceKind(invoice: string): 'ln' | 'rgb' | 'unknown' {
  const t = invoice
    .trim()
    .toLowerCase()
    .replace(/^lightning:/, '');
  if (t.startsWith('rgb:')) return 'rgb';
  if (/^ln[a-z]*1/.test(t) || t.startsWith('ln')) return 'ln';
  return 'unknown';
}

/** The longest BOLT11 description, in bytes (what one tagged field holds). */
const MAX_DESCRIPTION = 639;

/** A description, or its hash, needs RLN a5c10d4; `/listtransfers`' asset filter came the same day, just before it. */
const DESCRIBED: NeedsCapability = { command: 'invoice ln … description=', feature: 'invoice descriptions' };

/** Why the invoice cannot carry what was asked: both a description and its hash, or an image without descriptions. */
async function descriptionRefusal(ctx: CommandContext<{ description?: string; description_hash?: string }>) {
  const { description, description_hash } = ctx.args;
  if (description !== undefined && description_hash !== undefined) {
    return {
      reason: 'An invoice carries a description or the hash of one, not both.',
      next: 'Give `description="…"`, or `description_hash=<64 hex digits>` for a longer one the payer gets elsewhere.',
    };
  }
  if (description === undefined && description_hash === undefined) return undefined;
  return needsCapability(ctx, 'listtransfers', DESCRIBED);
}

/**
 * The invoice carries the description asked for, as the node decodes it: an image between a5c10d4's
 * neighbours would make the invoice and leave the description out, which must not pass unsaid.
 */
async function checkDescribed(
  api: NodeApiClient,
  nodeName: string,
  invoice: string,
  a: { description?: string; description_hash?: string },
): Promise<void> {
  const d = await api.decodelninvoice({ invoice });
  const ok =
    a.description !== undefined ? d.description === a.description : d.description_hash?.toLowerCase() === a.description_hash?.toLowerCase();
  if (ok) return;
  throw new UserError(
    'wrong_state',
    `${nodeName} made the invoice without the ${a.description !== undefined ? 'description' : 'description hash'}: its image does not put one in (RLN a5c10d4 and later do). Do not hand that invoice out.`,
    `Upgrade it with \`/rln node upgrade ${nodeName}\`, or make the invoice without a description.`,
  );
}

const ln = defineCommand({
  path: 'invoice ln',
  summary: 'Create a Lightning invoice (optionally carrying an RGB asset)',
  example: '/rln invoice ln alice 50k sats',
  // The amount may follow the node, with its unit (`invoice ln bob 50k sats`).
  positional: ['node', 'amt_msat'],
  args: z.object({
    node: nodeArg(),
    amt_msat: msatAmount().optional().describe('Amount in millisats, or with a unit: 3000 sat, 0.0001 BTC (omit for any amount)'),
    expiry_sec: int().min(60).max(31_536_000).default(3600).describe('Seconds until it expires (default 3600)'),
    asset_id: z.string().trim().min(1).optional().describe('RGB asset carried by the payment: its rgb: id or ticker'),
    asset_amount: assetAmount().optional().describe('Asset amount in display units: 10 or 10 USDT (raw units with raw=true)'),
    raw: rawFlag(),
    description: z
      .string()
      .trim()
      .min(1)
      .refine(
        (v) => Buffer.byteLength(v) <= MAX_DESCRIPTION,
        `at most ${MAX_DESCRIPTION} bytes (BOLT11's limit): give description_hash instead`,
      )
      .optional()
      .describe('What it is for, shown to the payer, in quotes (6887cbf images)'),
    description_hash: z
      .string()
      .trim()
      .regex(/^[0-9a-fA-F]{64}$/, 'the SHA-256 of the description: 64 hex digits')
      .optional()
      .describe('SHA-256 of a longer description, in hex, instead of it (6887cbf images)'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  check: (ctx) => descriptionRefusal(ctx),
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const refused = await descriptionRefusal(ctx);
    if (refused) throw new UserError('invalid_arguments', refused.reason, refused.next);
    const named = assetNamed(ctx.args.asset_id, ctx.args.asset_amount);
    const a = { ...ctx.args, asset_id: named };
    checkAssetPair(a);
    const assetId = a.asset_id ? await resolveAssetId(api, node.name, a.asset_id) : undefined;
    const assetAmt =
      assetId && a.asset_amount !== undefined
        ? await rawAssetAmount(api, assetId, a.asset_amount, { arg: 'asset_amount', raw: a.raw, example: '`asset_amount="10 USDT"`' })
        : undefined;
    const { description, description_hash } = a;
    const { invoice } = await api.lninvoice(
      compact({ amt_msat: a.amt_msat, expiry_sec: a.expiry_sec, asset_id: assetId, asset_amount: assetAmt, description, description_hash }),
    );
    if (description !== undefined || description_hash !== undefined) await checkDescribed(api, node.name, invoice, a);
    const fields: Field[] = [
      {
        label: 'Amount',
        value: a.amt_msat !== undefined ? `${formatSats(msatToSat(a.amt_msat))} (${thousands(a.amt_msat)} msat)` : 'any',
        inline: true,
      },
      { label: 'Expires in', value: formatSeconds(a.expiry_sec), inline: true },
    ];
    if (assetId) fields.push({ label: 'Asset', value: await assetAmountText(api, assetId, assetAmt ?? 0) });
    if (description !== undefined) fields.push({ label: 'Description', value: description });
    if (description_hash !== undefined) fields.push({ label: 'Description hash', value: [{ code: description_hash.toLowerCase() }] });
    return {
      header: titled('Lightning invoice', node),
      tone: 'info',
      blocks: [
        msg.fields(fields),
        msg.code(invoice),
        msg.context(`Pay it with \`pay send <node> <invoice>\`; check it with \`invoice status ${node.name} <invoice>\`.`),
      ],
      files: [await qrFile(invoice, { name: 'invoice-ln.png', title: 'Lightning invoice' })],
    };
  },
});

/**
 * The transport endpoints of an RGB invoice in the node's generation: 6887cbf puts the ones given in the
 * invoice (`none`: out of band) and has no default of its own; f379330 puts the proxy it was unlocked
 * with, and cannot be told another.
 */
async function invoiceEndpoints(api: NodeApiClient, nodeName: string, given: string | undefined): Promise<string[] | undefined> {
  const shape = await api.generation('rgbinvoice');
  if (shape === 'f379330') {
    if (given !== undefined) {
      throw new UserError(
        'invalid_arguments',
        `${nodeName} runs an image with the f379330 node API: its invoices carry the RGB proxy it was unlocked with, and cannot name others.`,
        'Leave out `transport_endpoints`, or upgrade the node first (`node upgrade`).',
      );
    }
    return undefined;
  }
  if (given === undefined) {
    throw new UserError(
      'invalid_arguments',
      `${nodeName} runs an image with the 6887cbf node API: an RGB invoice names where the sender delivers the transfer.`,
      'Give `transport_endpoints=rpc://…` (an RGB proxy), or `transport_endpoints=none` to hand the consignment over out of band.',
    );
  }
  return given.toLowerCase() === 'none' ? [] : splitList(given);
}

const rgb = defineCommand({
  path: 'invoice rgb',
  summary: 'Create an RGB invoice to receive an asset on-chain',
  example: '/rln invoice rgb alice 10 USDT',
  // The amount may follow the node, with the asset's ticker as its unit (`invoice rgb alice 10 USDT`).
  positional: ['node', 'amount'],
  args: z.object({
    node: nodeArg(),
    asset_id: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('The asset to receive: rgb: id, or ticker of an asset the node has (omit for any)'),
    amount: assetAmount()
      .optional()
      .describe('Amount to receive in display units: 10 USDT, or 10 with asset_id (raw=true: raw units; omit: any)'),
    raw: rawFlag(),
    duration_seconds: int().min(60).optional().describe('Seconds until it expires (default 1 day)'),
    transport_endpoints: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('RGB proxy endpoints (rpc://…), comma-separated, or none (out of band); 6887cbf images only'),
    min_confirmations: int().min(0).default(1).describe('Confirmations before settling (default 1)'),
    witness: z.stringbool().default(false).describe('Receive to a new witness output instead of a blinded UTXO'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const named = assetNamed(ctx.args.asset_id, ctx.args.amount);
    if (ctx.args.amount !== undefined && !named) {
      throw new UserError(
        'invalid_arguments',
        '`amount` needs an asset: a bare number could be in any unit.',
        'Name it in the amount (`amount="10 USDT"`) or give `asset_id=`.',
      );
    }
    // An asset another node of the account knows is named and counted as there (the receiver may never have held it).
    const asset = named ? await resolveAccountAsset(ctx, api, node, named) : undefined;
    const assetIdV = asset?.id;
    const value =
      assetIdV && ctx.args.amount !== undefined
        ? await rawAssetAmount(api, assetIdV, ctx.args.amount, {
            arg: 'amount',
            raw: ctx.args.raw,
            example: '`invoice rgb alice 10 USDT`',
            unit: asset?.unit,
          })
        : undefined;
    const a = { ...ctx.args, asset_id: assetIdV, amount: value };
    const endpoints = await invoiceEndpoints(api, node.name, a.transport_endpoints);
    // Shown in the display units of the node that knows the asset, when this one does not.
    const amountText = async (raw: number) => {
      if (asset?.unit) return `${withPrecision(raw, asset.unit.precision)} ${asset.unit.ticker ?? asset.unit.name ?? ''}`.trim();
      return a.asset_id ? assetAmountText(api, a.asset_id, raw) : `${thousands(raw)} raw`;
    };
    const res = await api.rgbinvoice(
      compact({
        min_confirmations: a.min_confirmations,
        asset_id: a.asset_id,
        assignment: a.amount !== undefined ? { type: 'Fungible' as const, value: a.amount } : undefined,
        duration_seconds: a.duration_seconds,
        transport_endpoints: endpoints,
        witness: a.witness,
      }),
    );
    return {
      header: titled('RGB invoice', node),
      tone: 'info',
      blocks: [
        msg.fields([
          { label: 'Asset', value: a.asset_id ? [{ code: a.asset_id }] : 'any', inline: true },
          {
            label: 'Amount',
            value: a.amount !== undefined ? await amountText(a.amount) : 'any',
            inline: true,
          },
          { label: 'Expires', value: formatTime(res.expiration_timestamp), inline: true },
          { label: 'Batch transfer', value: res.batch_transfer_idx !== undefined ? String(res.batch_transfer_idx) : '—', inline: true },
          ...(endpoints !== undefined
            ? [{ label: 'Delivered through', value: endpoints.length ? endpoints.join(', ') : 'out of band (no proxy)', inline: true }]
            : []),
          { label: 'Recipient id', value: [{ code: res.recipient_id ?? '—' }] },
        ]),
        msg.code(res.invoice ?? ''),
      ],
      files: res.invoice ? [await qrFile(res.invoice, { name: 'invoice-rgb.png', title: 'RGB invoice' })] : undefined,
    };
  },
});

/** An invoice as pasted: `description` says which kinds. */
const invoiceArg = (description: string) => z.string().min(4).describe(description);

const decode = defineCommand({
  path: 'invoice decode',
  summary: 'Decode a Lightning or RGB invoice',
  example: '/rln invoice decode alice lnbcrt30u1…',
  args: z.object({ node: nodeArg(), invoice: invoiceArg('The invoice (Lightning ln… or RGB rgb:…)') }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const invoice = ctx.args.invoice.trim().replace(/^lightning:/i, '');
    const kind = invoiceKind(invoice);
    if (kind === 'rgb') {
      const d = await api.decodergbinvoice({ invoice });
      const assignment = d.assignment as { type?: string; value?: number | bigint } | undefined;
      let amountText = assignment?.type ? String(assignment.type) : 'any';
      if (assignment?.value !== undefined) {
        const info = d.asset_id ? (await assetIndex(api)).get(d.asset_id) : undefined;
        amountText = info ? `${withPrecision(assignment.value, info.precision)} ${info.label}` : `${thousands(assignment.value)} raw`;
      }
      return {
        header: titled('RGB invoice', node),
        tone: 'info',
        blocks: [
          msg.fields([
            { label: 'Asset', value: d.asset_id ? [{ code: d.asset_id }] : 'any' },
            { label: 'Schema', value: String(d.asset_schema ?? '—'), inline: true },
            { label: 'Amount', value: amountText, inline: true },
            { label: 'Recipient', value: `${d.recipient_type ?? '—'}`, inline: true },
            { label: 'Network', value: String(d.network ?? '—'), inline: true },
            { label: 'Expires', value: formatTime(d.expiration_timestamp), inline: true },
            { label: 'Recipient id', value: [{ code: d.recipient_id ?? '—' }] },
            { label: 'Endpoints', value: (d.transport_endpoints ?? []).join(', ') || '—' },
          ]),
        ],
      };
    }
    let d;
    try {
      d = await api.decodelninvoice({ invoice });
    } catch (err) {
      if (kind === 'ln') throw err;
      throw new UserError(
        'invalid_arguments',
        'This is neither a Lightning (ln…) nor an RGB (rgb:…) invoice.',
        'Check that the whole invoice was pasted.',
      );
    }
    const fields: Field[] = [
      {
        label: 'Amount',
        value:
          d.amt_msat !== undefined && d.amt_msat !== null ? `${formatSats(msatToSat(d.amt_msat))} (${thousands(d.amt_msat)} msat)` : 'any',
        inline: true,
      },
      { label: 'Network', value: String(d.network ?? '—'), inline: true },
      { label: 'Created', value: formatTime(d.timestamp), inline: true },
      { label: 'Expires in', value: d.expiry_sec !== undefined ? formatSeconds(Number(d.expiry_sec)) : '—', inline: true },
    ];
    if (d.asset_id) {
      const info = (await assetIndex(api)).get(d.asset_id);
      const amt = d.asset_amount ?? 0;
      fields.push({
        label: 'Asset',
        value: [info ? `${withPrecision(amt, info.precision)} ${info.label} ` : `${thousands(amt)} raw `, { code: d.asset_id }],
      });
    }
    // The payee by name when it is one of our nodes, as the confirmations say it (P35).
    const ours = d.payee_pubkey ? (await ourNodeNames(ctx)).get(d.payee_pubkey.toLowerCase()) : undefined;
    fields.push(
      { label: 'Payee', value: [...(ours ? [`${ours} (our node) `] : []), { code: d.payee_pubkey ?? '—' }] },
      { label: 'Payment hash', value: [{ code: d.payment_hash ?? '—' }] },
    );
    return {
      header: titled('Lightning invoice', node),
      tone: 'info',
      blocks: [msg.fields(fields), msg.context(`payee ${ours ?? shortId(d.payee_pubkey ?? '')}`)],
    };
  },
});

const STATUS_TONE = { Pending: 'info', Succeeded: 'success', Failed: 'danger', Expired: 'warning' } as const;

const status = defineCommand({
  path: 'invoice status',
  summary: 'Status of a Lightning invoice of this node',
  example: '/rln invoice status alice lnbcrt30u1…',
  args: z.object({ node: nodeArg(), invoice: invoiceArg('The Lightning invoice') }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { status: st } = await api.invoicestatus({ invoice: ctx.args.invoice.trim() });
    return {
      header: titled('Invoice status', node),
      tone: (STATUS_TONE as Record<string, 'info' | 'success' | 'danger' | 'warning'>)[st] ?? 'neutral',
      blocks: [msg.fields([{ label: 'Status', value: String(st) }]), msg.context(shortId(ctx.args.invoice.trim(), 40))],
    };
  },
});

export const invoiceCommands: AnyCommand[] = [ln, rgb, decode, status];
