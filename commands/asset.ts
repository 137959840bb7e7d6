/** `asset …`: RGB assets: list, balance, metadata, media, issuance (NIA/CFA/UDA), send, transfers. */
import { z } from 'zod';
import { UserError } from '../src/core/index.js';
import { shortId, thousands, withPrecision } from '../src/core/index.js';
import { msg, type Block } from '../src/core/index.js';
import { defineCommand, type CommandDefinition } from '../src/core/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { assetAmount, flag, int, nodeArg, pagingArgs, rawFlag, satAmount, splitList } from './support/arg-types.js';
import { amountRefusal, parseAssetAmount, toSafeNumber } from './support/amount.js';
import { rawAssetAmount } from './support/asset-amount.js';
import { assetLabel, assetTable, loadAssets, resolveAssetId } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { paginate } from './support/paginate.js';
import { bodyOf, compact, formatTime, titled } from './support/present.js';
import { assetSendSpend } from './support/spend.js';

const assetId = () => z.string().trim().min(1).describe('RGB asset id (rgb:…), or its ticker on this node');

/** Amounts list "1000, 2000.5": one allocation each, in display units (with `precision=`) unless raw=true. */
const amountList = () =>
  z
    .string()
    .min(1)
    .refine((text) => splitList(text).length > 0, 'give at least one amount')
    .describe('Display-unit amounts (with precision=), one allocation each, split by ";" or "," (raw=true: raw)');

/** The issuance amounts in raw units, read with the precision being issued. */
function issuedAmounts(a: { amounts: string; precision: number; raw: boolean; ticker?: string; name?: string }): number[] {
  // "1,000" may be a thousand or two allocations: with a ";" in the list, "," only groups digits.
  const parts = a.amounts.includes(';') ? a.amounts.split(';').map((p) => p.trim()).filter(Boolean) : splitList(a.amounts);
  return parts.map((p) => {
    let v: bigint;
    try {
      v = parseAssetAmount(p, { ticker: a.ticker, name: a.name, precision: a.precision }, { raw: a.raw });
    } catch (e) {
      throw amountRefusal('amounts', e, '`amounts="1000.5; 200"` with `precision=2`, or raw units with `raw=true`');
    }
    if (v <= 0n) throw new UserError('invalid_arguments', '`amounts` must each be more than 0.', 'Example: `amounts="1000; 200"`');
    return toSafeNumber(v, 'amounts');
  });
}

const precisionArg = () => int().min(0).max(18).default(0).describe('Decimal places shown (0-18), e.g. 2 shows 12345 as 123.45');

/** Precision and label of one asset, from its metadata; precision 0 when it cannot be read. */
async function describeAsset(api: NodeApiClient, id: string): Promise<{ label: string; precision: number }> {
  try {
    const meta = await api.assetmetadata({ asset_id: id });
    return { label: assetLabel({ ticker: meta.ticker, name: meta.name, asset_id: id }), precision: Number(meta.precision ?? 0) };
  } catch {
    return { label: shortId(id, 14), precision: 0 };
  }
}

/** A whole RGB invoice given as the recipient, decoded; refused when it asks for another asset. */
async function recipientInvoice(api: NodeApiClient, recipient: string, assetId: string): Promise<Awaited<ReturnType<NodeApiClient['decodergbinvoice']>> | undefined> {
  if (!recipient.startsWith('rgb:') || !recipient.includes('/')) return undefined;
  const inv = await api.decodergbinvoice({ invoice: recipient });
  if (inv.asset_id && inv.asset_id !== assetId) {
    throw new UserError('invalid_arguments', `The invoice asks for ${inv.asset_id}, not ${assetId}.`, 'Send the asset the invoice names.');
  }
  return inv;
}

const list = defineCommand({
  path: 'asset list',
  summary: 'List RGB assets with balances (precision applied)',
  example: '/rln asset list alice',
  args: z.object({
    node: nodeArg(),
    schema: z.enum(['all', 'nia', 'cfa', 'uda']).default('all').describe('Only one schema: nia, cfa or uda (default all)'),
    ...pagingArgs,
  }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    let rows = await loadAssets(api);
    if (ctx.args.schema !== 'all') rows = rows.filter((r) => r.schema === ctx.args.schema.toUpperCase());
    if (rows.length === 0) {
      return { header: titled('Assets', node), tone: 'neutral', blocks: [msg.text('No RGB assets.'), msg.context(`Issue one: \`asset issue-nia ${node.name} TICK "Name" 1000\`.`)] };
    }
    rows.sort((a, b) => assetLabel(a).localeCompare(assetLabel(b)));
    const { items, caption } = paginate(rows, ctx.args);
    return {
      header: titled(`Assets (${rows.length})`, node),
      tone: 'info',
      blocks: [
        msg.table(assetTable(items, caption)),
        msg.context(['Amounts with each asset’s precision applied. Ids: ', ...items.slice(0, 10).flatMap((r, i) => [...(i ? [' · '] : []), `${assetLabel(r)} `, { code: r.asset_id }])]),
      ],
    };
  },
});

const balance = defineCommand({
  path: 'asset balance',
  summary: 'Balance of one RGB asset',
  example: '/rln asset balance alice USDT',
  args: z.object({ node: nodeArg(), asset_id: assetId() }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const assetIdV = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const b = await api.assetbalance({ asset_id: assetIdV });
    const { label, precision } = await describeAsset(api, assetIdV);
    const f = (v: number | bigint | undefined | null) => withPrecision(v ?? 0, precision);
    return {
      header: titled(`${label} balance`, node),
      tone: 'info',
      blocks: [
        msg.fields([
          { label: 'Spendable', value: f(b.spendable), inline: true },
          { label: 'Settled', value: f(b.settled), inline: true },
          { label: 'Future', value: f(b.future), inline: true },
          { label: 'Off-chain outbound', value: f(b.offchain_outbound), inline: true },
          { label: 'Off-chain inbound', value: f(b.offchain_inbound), inline: true },
        ]),
        msg.context([{ code: assetIdV }, ` · precision ${precision}`]),
      ],
    };
  },
});

const metadata = defineCommand({
  path: 'asset metadata',
  summary: 'Metadata of an RGB asset: schema, supply, precision',
  example: '/rln asset metadata alice rgb:2dkSTbr-…',
  args: z.object({ node: nodeArg(), asset_id: assetId() }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const assetIdV = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const m = await api.assetmetadata({ asset_id: assetIdV });
    const p = Number(m.precision ?? 0);
    const sup = (v: number | bigint | undefined | null) => (v === undefined || v === null ? '—' : withPrecision(v, p));
    return {
      header: titled(`Asset ${assetLabel({ ticker: m.ticker, name: m.name, asset_id: assetIdV })}`, node),
      tone: 'info',
      blocks: [
        msg.fields([
          { label: 'Schema', value: String(m.asset_schema ?? '—').toUpperCase(), inline: true },
          { label: 'Ticker', value: m.ticker ?? '—', inline: true },
          { label: 'Name', value: m.name ?? '—', inline: true },
          { label: 'Precision', value: String(p), inline: true },
          { label: 'Initial supply', value: sup(m.initial_supply), inline: true },
          { label: 'Max supply', value: sup(m.max_supply), inline: true },
          { label: 'Known circulating', value: sup(m.known_circulating_supply), inline: true },
          { label: 'Issued', value: formatTime(m.timestamp), inline: true },
          ...(m.details ? [{ label: 'Details', value: m.details }] : []),
          { label: 'Asset id', value: [{ code: assetIdV }] },
        ]),
      ],
    };
  },
});

const media = defineCommand({
  path: 'asset media',
  summary: 'Fetch an asset media file by its digest (size and a hex preview)',
  example: '/rln asset media alice 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
  args: z.object({ node: nodeArg(), digest: z.string().regex(/^[0-9a-fA-F]{64}$/, 'a 64-hex-digit digest').describe('Media digest (64 hex digits)') }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { bytes_hex } = await api.getassetmedia({ digest: ctx.args.digest.toLowerCase() });
    const bytes = Buffer.from(bytes_hex ?? '', 'hex');
    const printable = bytes.length > 0 && bytes.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
    const preview = printable ? bytes.subarray(0, 500).toString('utf8') : (bytes_hex ?? '').slice(0, 128);
    return {
      header: titled('Asset media', node),
      tone: 'info',
      blocks: [
        msg.fields([
          { label: 'Digest', value: [{ code: ctx.args.digest }] },
          { label: 'Size', value: `${thousands(bytes.length)} bytes`, inline: true },
          { label: 'Preview', value: printable ? 'text' : 'hex', inline: true },
        ]),
        msg.code(preview + ((printable ? bytes.length > 500 : (bytes_hex ?? '').length > 128) ? '…' : '')),
      ],
    };
  },
});

const upload = defineCommand({
  path: 'asset upload',
  summary: 'Upload media for an asset, given inline as text, base64 or hex',
  example: '/rln asset upload alice content="Terms v1" mime=text/plain',
  args: z.object({
    node: nodeArg(),
    content: z.string().min(1).describe('The file content, as text or encoded (see encoding); chat limits size'),
    encoding: z.enum(['text', 'base64', 'hex']).default('text').describe('How content is written: text (UTF-8), base64 or hex'),
    mime: z.string().min(3).default('text/plain').describe('MIME type, e.g. text/plain or image/png'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { content, encoding, mime } = ctx.args;
    if (encoding === 'hex' && !/^([0-9a-fA-F]{2})+$/.test(content)) {
      throw new UserError('invalid_arguments', 'content is not valid hex.', 'Give pairs of hex digits, or use encoding=base64 or encoding=text.');
    }
    if (encoding === 'base64' && !/^[A-Za-z0-9+/_-]+=*$/.test(content)) {
      throw new UserError('invalid_arguments', 'content is not valid base64.', 'Check the text, or use encoding=hex or encoding=text.');
    }
    const bytes = encoding === 'text' ? Buffer.from(content, 'utf8') : Buffer.from(content, encoding);
    const { digest } = await api.postassetmedia({ file: bytes, mime });
    return {
      header: titled('Media uploaded', node),
      tone: 'success',
      blocks: [
        msg.fields([
          { label: 'Digest', value: [{ code: digest }] },
          { label: 'Size', value: `${thousands(bytes.length)} bytes`, inline: true },
          { label: 'Type', value: mime, inline: true },
        ]),
        msg.context(`Use it with \`asset issue-cfa … file_digest=${digest}\` or \`asset issue-uda … media_file_digest=${digest}\`.`),
      ],
    };
  },
});

interface IssuedAsset {
  asset_id?: string;
  ticker?: string;
  name?: string;
  precision?: number;
  issued_supply?: number | bigint;
}

function issued(nodeName: string, kind: string, a: IssuedAsset | undefined): { header: string; tone: 'success'; blocks: Block[] } {
  const p = Number(a?.precision ?? 0);
  return {
    header: `${kind} asset issued · ${nodeName}`,
    tone: 'success',
    blocks: [
      msg.fields([
        { label: 'Asset', value: assetLabel(a ?? {}), inline: true },
        { label: 'Precision', value: String(p), inline: true },
        { label: 'Issued supply', value: a?.issued_supply !== undefined ? withPrecision(a.issued_supply, p) : '—', inline: true },
        { label: 'Asset id', value: [{ code: a?.asset_id ?? '—' }] },
      ]),
      msg.context(`See it with \`asset list ${nodeName}\`.`),
    ],
  };
}

const issueNia = defineCommand({
  path: 'asset issue-nia',
  summary: 'Issue a fungible NIA asset',
  example: '/rln asset issue-nia alice USDT "Tether" 1000000 precision=6',
  args: z.object({
    node: nodeArg(),
    ticker: z.string().min(1).max(8).describe('Ticker, e.g. USDT'),
    name: z.string().min(1).describe('Asset name'),
    amounts: amountList(),
    precision: precisionArg(),
    raw: rawFlag(),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { asset } = await api.issueassetnia({ amounts: issuedAmounts(ctx.args), ticker: ctx.args.ticker, name: ctx.args.name, precision: ctx.args.precision });
    return issued(node.name, 'NIA', asset as IssuedAsset);
  },
});

const issueCfa = defineCommand({
  path: 'asset issue-cfa',
  summary: 'Issue a collectible CFA asset',
  example: '/rln asset issue-cfa alice "Art" 10 details="A series" file_digest=5891…',
  args: z.object({
    node: nodeArg(),
    name: z.string().min(1).describe('Asset name'),
    amounts: amountList(),
    details: z.string().optional().describe('Free text details'),
    precision: precisionArg(),
    file_digest: z.string().regex(/^[0-9a-fA-F]{64}$/).optional().describe('Digest of media uploaded with `asset upload`'),
    raw: rawFlag(),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { raw: _raw, ...rest } = ctx.args;
    const { asset } = await api.issueassetcfa({ ...bodyOf(rest), amounts: issuedAmounts(ctx.args) });
    return issued(node.name, 'CFA', asset as IssuedAsset);
  },
});

const issueUda = defineCommand({
  path: 'asset issue-uda',
  summary: 'Issue a unique digital asset (UDA)',
  example: '/rln asset issue-uda alice UNQ "Unique" media_file_digest=5891…',
  args: z.object({
    node: nodeArg(),
    ticker: z.string().min(1).max(8).describe('Ticker'),
    name: z.string().min(1).describe('Asset name'),
    details: z.string().optional().describe('Free text details'),
    precision: precisionArg(),
    media_file_digest: z.string().regex(/^[0-9a-fA-F]{64}$/).optional().describe('Digest of media uploaded with `asset upload`'),
    attachments: z.string().optional().describe('Digests of attachments, comma-separated'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { node: _n, attachments, ...rest } = ctx.args;
    const { asset } = await api.issueassetuda(
      compact({ ...rest, attachments_file_digests: attachments !== undefined ? splitList(attachments) : [] }),
    );
    return issued(node.name, 'UDA', asset as IssuedAsset);
  },
});

/** The amount of `asset send` in raw units: display units with the asset's precision unless raw=true. */
function sendAmount(api: NodeApiClient, assetId: string, a: { amount: string; raw: boolean }): Promise<number> {
  return rawAssetAmount(api, assetId, a.amount, { arg: 'amount', raw: a.raw, example: '`asset send alice USDT 15.5 <recipient>` or `amount="15.5 USDT"`' });
}

const send = defineCommand({
  path: 'asset send',
  summary: 'Send an RGB asset to a recipient id or an RGB invoice',
  example: '/rln asset send alice USDT 15.5 rgb:~/~/~/bcrt:utxob:…',
  args: z.object({
    node: nodeArg(),
    asset_id: assetId(),
    amount: assetAmount().describe("Amount in the asset's display units: 15.5 or 15.5 USDT (raw units with raw=true)"),
    recipient_id: z.string().min(1).describe('Recipient id, or a whole RGB invoice (its endpoints are used)'),
    donation: flag().default(false).describe('Send without waiting for the recipient to accept'),
    fee_rate: z.coerce.number().positive().default(5).describe('Fee rate in sat/vB (default 5)'),
    min_confirmations: int().min(0).default(1).describe('Confirmations before settling (default 1)'),
    transport_endpoints: z.string().optional().describe('Transport endpoints (rpc://…), comma-separated'),
    witness_amount_sat: satAmount().optional().describe('For a witness recipient: sats sent with the asset (default 1000)'),
    raw: rawFlag(),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  spend: assetSendSpend,
  /** The confirmation shows what leaves the node; an invoice for another asset is refused before it. */
  async preview(ctx) {
    const { node, api } = nodeClient(ctx);
    const assetId = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const recipient = ctx.args.recipient_id.trim();
    const value = await sendAmount(api, assetId, ctx.args);
    await recipientInvoice(api, recipient, assetId);
    const { label, precision } = await describeAsset(api, assetId);
    return [
      { label: 'Sends', value: `${withPrecision(value, precision)} ${label}`, inline: true },
      { label: 'To', value: [{ code: shortId(recipient, 28) }], inline: true },
      { label: 'Fee rate', value: `${ctx.args.fee_rate} sat/vB`, inline: true },
      ...(ctx.args.donation ? [{ label: 'Donation', value: 'yes: sent without waiting for the recipient to accept', inline: true }] : []),
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const assetIdV = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const a = { ...ctx.args, asset_id: assetIdV, amount: await sendAmount(api, assetIdV, ctx.args) };
    let recipientId = a.recipient_id.trim();
    let endpoints = splitList(a.transport_endpoints);
    let witness = /:wvout:/.test(recipientId);
    const inv = await recipientInvoice(api, recipientId, a.asset_id);
    if (inv) {
      recipientId = inv.recipient_id ?? recipientId;
      if (endpoints.length === 0) endpoints = inv.transport_endpoints ?? [];
      witness = inv.recipient_type === 'Witness';
    }
    if (endpoints.length === 0) {
      throw new UserError('invalid_arguments', 'No transport endpoint to deliver the transfer.', 'Give `transport_endpoints=rpc://…`, or pass the whole RGB invoice as the recipient.');
    }
    const { txid } = await api.sendasset(
      compact({
        asset_id: a.asset_id,
        assignment: { type: 'Fungible' as const, value: a.amount },
        recipient_id: recipientId,
        witness_data: witness ? { amount_sat: a.witness_amount_sat ?? 1000 } : undefined,
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
        msg.context(`Follow it with \`asset transfers ${node.name} ${a.asset_id}\`.`),
      ],
    };
  },
});

const transfers = defineCommand({
  path: 'asset transfers',
  summary: 'List the transfers of an RGB asset',
  example: '/rln asset transfers alice rgb:2dkSTbr-…',
  args: z.object({ node: nodeArg(), asset_id: assetId(), ...pagingArgs }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const assetIdV = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const { transfers: list = [] } = await api.listtransfers({ asset_id: assetIdV });
    const { label, precision } = await describeAsset(api, assetIdV);
    if (list.length === 0) return { header: titled(`${label} transfers`, node), tone: 'neutral', blocks: [msg.text('No transfers.')] };
    const sorted = [...list].sort((x, y) => Number(y.idx ?? 0) - Number(x.idx ?? 0));
    const { items, caption } = paginate(sorted, ctx.args);
    const sumOf = (t: (typeof list)[number]) => (t.assignments ?? []).reduce((s, x) => s + BigInt(x.value ?? 0), 0n);
    return {
      header: titled(`${label} transfers (${list.length})`, node),
      tone: 'info',
      blocks: [
        msg.table({
          columns: [{ header: 'Idx', align: 'right' }, { header: 'Kind' }, { header: 'Status' }, { header: `Amount (${label})`, align: 'right' }, { header: 'Txid' }, { header: 'Updated' }],
          rows: items.map((t) => [
            String(t.idx ?? '—'),
            String(t.kind ?? '—'),
            String(t.status ?? '—'),
            t.requested_assignment?.value !== undefined && t.requested_assignment?.value !== null ? withPrecision(t.requested_assignment.value, precision) : withPrecision(sumOf(t), precision),
            t.txid ? shortId(t.txid, 12) : '—',
            formatTime(t.updated_at),
          ]),
          caption,
        }),
      ],
    };
  },
});

const refresh = defineCommand({
  path: 'asset refresh',
  summary: 'Refresh pending RGB transfers',
  example: '/rln asset refresh alice',
  args: z.object({ node: nodeArg(), skip_sync: flag().default(false).describe('Skip the wallet sync first') }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.refreshtransfers({ skip_sync: ctx.args.skip_sync });
    return { header: titled('Transfers refreshed', node), tone: 'success', blocks: [msg.text('Pending transfers were refreshed.')] };
  },
});

const fail = defineCommand({
  path: 'asset fail',
  summary: 'Mark pending transfers as failed (all waiting ones, or one batch)',
  example: '/rln asset fail alice batch_transfer_idx=3',
  args: z.object({
    node: nodeArg(),
    batch_transfer_idx: int().min(0).optional().describe('Only this batch transfer (default: every one waiting for the counterparty)'),
    no_asset_only: flag().default(false).describe('Only transfers with no asset (e.g. open RGB invoices)'),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
  }),
  role: 'admin',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { transfers_changed } = await api.failtransfers(bodyOf(ctx.args));
    return {
      header: titled('Fail transfers', node),
      tone: transfers_changed ? 'warning' : 'neutral',
      blocks: [msg.text(transfers_changed ? 'Transfers were marked as failed.' : 'Nothing changed: no transfer could be failed.')],
    };
  },
});

export const assetCommands: CommandDefinition<any>[] = [list, balance, metadata, media, upload, issueNia, issueCfa, issueUda, send, transfers, refresh, fail];
