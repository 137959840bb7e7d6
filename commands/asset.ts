/** `asset …`: RGB assets: list, balance, metadata, media, transfers; issuance in asset-issue.ts, sending in asset-send.ts. */
import { z } from 'zod';
import { transferKindText, transferStatusText } from '../src/node-api/index.js';
import { UserError } from '../src/vocabulary/index.js';
import { shortId, thousands, withPrecision } from '../src/vocabulary/index.js';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { assetIdArg, flag, int, nodeArg, pagingArgs } from './support/arg-types.js';
import { assetLabel, assetTable, describeAsset, loadAssets, resolveAssetId } from './support/asset-table.js';
import { nodeAsset, nodeClient } from './support/node-client.js';
import { nodeListCommand } from './support/list-command.js';
import { bodyOf, formatTime, nodeFacts, titled } from './support/present.js';
import { assetIssueCommands } from './asset-issue.js';
import { assetSend } from './asset-send.js';
import { assetIfaCommands } from './asset-ifa.js';

const list = nodeListCommand({
  path: 'asset list',
  summary: 'List RGB assets with balances (precision applied)',
  example: '/rln asset list alice',
  args: z.object({
    node: nodeArg(),
    schema: z.enum(['all', 'nia', 'cfa', 'uda', 'ifa']).default('all').describe('Only one schema: nia, cfa, uda or ifa (default all)'),
    ...pagingArgs,
  }),
  title: 'Assets',
  async load({ ctx, api }) {
    let rows = await loadAssets(api);
    if (ctx.args.schema !== 'all') rows = rows.filter((r) => r.schema === ctx.args.schema.toUpperCase());
    return { rows: rows.sort((a, b) => assetLabel(a).localeCompare(assetLabel(b))) };
  },
  empty: (node) => [msg.text('No RGB assets.'), msg.context(`Issue one: \`asset issue-nia ${node.name} TICK "Name" 1000\`.`)],
  page: ({ items }) => ({
    table: assetTable(items),
    after: [
      msg.context([
        'Amounts with each asset’s precision applied. Ids: ',
        ...items.slice(0, 10).flatMap((r, i) => [...(i ? [' · '] : []), `${assetLabel(r)} `, { code: r.asset_id }]),
      ]),
    ],
  }),
});

const balance = defineCommand({
  path: 'asset balance',
  summary: 'Balance of one RGB asset',
  example: '/rln asset balance alice USDT',
  args: z.object({ node: nodeArg(), asset_id: assetIdArg() }),
  role: 'read',
  async handler(ctx) {
    const { node, api, assetId } = await nodeAsset(ctx);
    const b = await api.assetbalance({ asset_id: assetId });
    const { label, precision } = await describeAsset(api, assetId);
    const f = (v: number | bigint | undefined | null) => withPrecision(v ?? 0, precision);
    return nodeFacts(
      node,
      `${label} balance`,
      [
        { label: 'Spendable', value: f(b.spendable), inline: true },
        { label: 'Settled', value: f(b.settled), inline: true },
        { label: 'Future', value: f(b.future), inline: true },
        { label: 'Off-chain outbound', value: f(b.offchain_outbound), inline: true },
        { label: 'Off-chain inbound', value: f(b.offchain_inbound), inline: true },
      ],
      { after: [msg.context([{ code: assetId }, ` · precision ${precision}`])] },
    );
  },
});

const metadata = defineCommand({
  path: 'asset metadata',
  summary: 'Metadata of an RGB asset: schema, supply, precision',
  example: '/rln asset metadata alice rgb:2dkSTbr-…',
  args: z.object({ node: nodeArg(), asset_id: assetIdArg() }),
  role: 'read',
  async handler(ctx) {
    const { node, api, assetId } = await nodeAsset(ctx);
    const m = await api.assetmetadata({ asset_id: assetId });
    const p = Number(m.precision ?? 0);
    const sup = (v: number | bigint | undefined | null) => (v === undefined || v === null ? '—' : withPrecision(v, p));
    return nodeFacts(node, `Asset ${assetLabel({ ticker: m.ticker, name: m.name, asset_id: assetId })}`, [
      { label: 'Schema', value: String(m.asset_schema ?? '—').toUpperCase(), inline: true },
      { label: 'Ticker', value: m.ticker ?? '—', inline: true },
      { label: 'Name', value: m.name ?? '—', inline: true },
      { label: 'Precision', value: String(p), inline: true },
      { label: 'Initial supply', value: sup(m.initial_supply), inline: true },
      { label: 'Max supply', value: sup(m.max_supply), inline: true },
      { label: 'Known circulating', value: sup(m.known_circulating_supply), inline: true },
      { label: 'Issued', value: formatTime(m.timestamp), inline: true },
      ...(m.details ? [{ label: 'Details', value: m.details }] : []),
      { label: 'Asset id', value: [{ code: assetId }] },
    ]);
  },
});

const media = defineCommand({
  path: 'asset media',
  summary: 'Fetch an asset media file by its digest (size and a hex preview)',
  example: '/rln asset media alice 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03',
  args: z.object({
    node: nodeArg(),
    digest: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'a 64-hex-digit digest')
      .describe('Media digest (64 hex digits)'),
  }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { bytes_hex } = await api.getassetmedia({ digest: ctx.args.digest.toLowerCase() });
    const bytes = Buffer.from(bytes_hex ?? '', 'hex');
    const printable = bytes.length > 0 && bytes.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
    const preview = printable ? bytes.subarray(0, 500).toString('utf8') : (bytes_hex ?? '').slice(0, 128);
    return nodeFacts(
      node,
      'Asset media',
      [
        { label: 'Digest', value: [{ code: ctx.args.digest }] },
        { label: 'Size', value: `${thousands(bytes.length)} bytes`, inline: true },
        { label: 'Preview', value: printable ? 'text' : 'hex', inline: true },
      ],
      { after: [msg.code(preview + ((printable ? bytes.length > 500 : (bytes_hex ?? '').length > 128) ? '…' : ''))] },
    );
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
      throw new UserError(
        'invalid_arguments',
        'content is not valid hex.',
        'Give pairs of hex digits, or use encoding=base64 or encoding=text.',
      );
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

const transfers = nodeListCommand({
  path: 'asset transfers',
  summary: 'List the transfers of an RGB asset',
  example: '/rln asset transfers alice rgb:2dkSTbr-…',
  args: z.object({ node: nodeArg(), asset_id: assetIdArg(), ...pagingArgs }),
  async load({ ctx, node, api }) {
    const assetIdV = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const { transfers: list = [] } = await api.listtransfers({ asset_id: assetIdV });
    const { label, precision } = await describeAsset(api, assetIdV);
    return { rows: [...list].sort((x, y) => Number(y.idx ?? 0) - Number(x.idx ?? 0)), label, precision };
  },
  title: ({ label }) => `${label} transfers`,
  empty: () => [msg.text('No transfers.')],
  page: ({ items, loaded: { label, precision } }) => {
    const sumOf = (t: (typeof items)[number]) => (t.assignments ?? []).reduce((s, x) => s + BigInt(x.value ?? 0), 0n);
    const requested = (t: (typeof items)[number]) => t.requested_assignment?.value;
    return {
      table: {
        columns: msg.columns(msg.right('Idx'), 'Kind', 'Status', msg.right(`Amount (${label})`), 'Txid', 'Updated'),
        rows: items.map((t) => [
          String(t.idx ?? '—'),
          transferKindText(t.kind),
          transferStatusText(t.status),
          withPrecision(requested(t) ?? sumOf(t), precision),
          t.txid ? shortId(t.txid, 12) : '—',
          formatTime(t.updated_at),
        ]),
      },
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
  // A failed transfer cannot be taken back: confirmed (the transfers alert's Fail it button, issue 28).
  confirm: 'button',
  async preview(ctx) {
    return [
      {
        label: 'Fails',
        value:
          ctx.args.batch_transfer_idx !== undefined
            ? `transfer #${ctx.args.batch_transfer_idx}, if it still waits for the counterparty`
            : `every transfer waiting for the counterparty${ctx.args.no_asset_only ? ' with no asset' : ''}`,
      },
    ];
  },
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

export const assetCommands: AnyCommand[] = [
  list,
  balance,
  metadata,
  media,
  upload,
  ...assetIssueCommands,
  ...assetIfaCommands,
  assetSend,
  transfers,
  refresh,
  fail,
];
