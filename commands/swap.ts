/** `swap …`: atomic swaps between BTC and RGB assets over Lightning. */
import { z } from 'zod';
import { shortId, thousands, withPrecision } from '../src/vocabulary/index.js';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { UserError } from '../src/vocabulary/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import { assetAmount, int, nodeArg, pagingArgs, rawFlag } from './support/arg-types.js';
import { amountRefusal, parseSatAmount, readAmountText, satUnitOf, toSafeNumber } from './support/amount.js';
import { assetNamed, rawAssetAmount } from './support/asset-amount.js';
import { assetIndex, assetIndexIf, resolveAssetId } from './support/asset-table.js';
import { resolvePubkey } from './support/our-nodes.js';
import { nodeClient } from './support/node-client.js';
import { nodeListCommand } from './support/list-command.js';
import { formatMsat, formatSeconds, formatTime, titled } from './support/present.js';
import { needsCapability, requireCapability } from './support/needs-capability.js';

/**
 * One side of a swap: BTC in msat when the amount has a BTC unit (`3000 sat`), an asset in raw
 * units when the side names one (`10 USDT`, or `to_asset=USDT` with a bare 10). A bare number
 * with no asset is refused: it could be msat or an asset.
 */
async function swapSide(
  api: NodeApiClient,
  nodeName: string,
  arg: string,
  text: string,
  assetArg: string | undefined,
  raw: boolean,
): Promise<{ qty: number; asset?: string }> {
  const example = `\`${arg}="3000 sat"\` or \`${arg}="10 USDT"\``;
  let unit: string | undefined;
  try {
    unit = readAmountText(text).unit;
  } catch (e) {
    throw amountRefusal(arg, e, example);
  }
  if (satUnitOf(unit) && !assetArg) {
    let v: bigint;
    try {
      v = parseSatAmount(text, 'msat');
    } catch (e) {
      throw amountRefusal(arg, e, example);
    }
    if (v <= 0n) throw new UserError('invalid_arguments', `\`${arg}\` must be more than 0.`, `Example: ${example}`);
    return { qty: toSafeNumber(v, arg) };
  }
  const named = assetNamed(assetArg, text);
  if (!named) {
    throw new UserError('invalid_arguments', `\`${arg}\` needs a unit: a bare number could be msat or an asset.`, `Example: ${example}`);
  }
  const asset = await resolveAssetId(api, nodeName, named);
  return { qty: await rawAssetAmount(api, asset, text, { arg, raw, example }), asset };
}

const makerInit = defineCommand({
  path: 'swap maker-init',
  summary: 'Start a swap as maker: qty_from of one asset for qty_to of another',
  example: '/rln swap maker-init alice 3000 sat 10 USDT',
  args: z.object({
    node: nodeArg(),
    qty_from: assetAmount().describe('Amount given, with its unit: 3000 sat, 0.001 BTC, 10 USDT (a bare number only with from_asset=)'),
    qty_to: assetAmount().describe('Amount received, with its unit: 3000 sat, 10 USDT (a bare number only with to_asset=)'),
    from_asset: z.string().min(1).optional().describe('Asset given: rgb: id or ticker (omit for BTC)'),
    to_asset: z.string().min(1).optional().describe('Asset received: rgb: id or ticker (omit for BTC)'),
    timeout_sec: int().min(10).max(86_400).default(3600).describe('Seconds the offer stays valid (default 3600)'),
    raw: rawFlag(),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const from = await swapSide(api, node.name, 'qty_from', ctx.args.qty_from, ctx.args.from_asset, ctx.args.raw);
    const to = await swapSide(api, node.name, 'qty_to', ctx.args.qty_to, ctx.args.to_asset, ctx.args.raw);
    const a = { qty_from: from.qty, qty_to: to.qty, from_asset: from.asset, to_asset: to.asset, timeout_sec: ctx.args.timeout_sec };
    const r = await api.makerinit(a);
    const assets = await assetIndexIf(api, Boolean(a.from_asset || a.to_asset));
    const qty = (q: number, asset: string | undefined) => {
      if (!asset) return formatMsat(q);
      const info = assets.get(asset);
      return info ? `${withPrecision(q, info.precision)} ${info.label}` : `${thousands(q)} raw ${shortId(asset, 14)}`;
    };
    return {
      header: titled('Swap offered', node),
      tone: 'info',
      blocks: [
        msg.fields([
          { label: 'Gives', value: qty(a.qty_from, a.from_asset), inline: true },
          { label: 'Gets', value: qty(a.qty_to, a.to_asset), inline: true },
          { label: 'Valid for', value: formatSeconds(a.timeout_sec), inline: true },
          { label: 'Payment hash', value: [{ code: r.payment_hash ?? '—' }] },
          { label: 'Payment secret', value: [{ code: r.payment_secret ?? '—' }] },
        ]),
        msg.text('Swap string (give it to the taker):'),
        msg.code(r.swapstring ?? ''),
        msg.context(`Then: \`swap maker-execute ${node.name} <swapstring> <payment_secret> <taker_pubkey>\`.`),
      ],
    };
  },
});

const makerExecute = defineCommand({
  path: 'swap maker-execute',
  summary: 'Execute a swap as maker once the taker accepted (moves funds)',
  example: '/rln swap maker-execute alice 30/btc/10/rgb:…/… 5e0c… 03b79a4bc1…',
  args: z.object({
    node: nodeArg(),
    swapstring: z.string().min(10).describe('The swap string from `swap maker-init`'),
    payment_secret: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'a 64-hex-digit secret')
      .describe('The payment secret from `swap maker-init`'),
    taker_pubkey: z.string().trim().min(1).describe('The taker node: its pubkey, or the name of one of your nodes'),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  // A taker name that is none of our nodes (nor a pubkey) is refused before the confirmation.
  async check(ctx) {
    await resolvePubkey(ctx, ctx.args.taker_pubkey, 'taker_pubkey');
    return undefined;
  },
  /** What moves: the swap string's two sides in display units, and the taker named when it is ours. */
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const taker = await resolvePubkey(ctx, ctx.args.taker_pubkey, 'taker_pubkey');
    const [qtyFrom, fromAsset, qtyTo, toAsset, expiry] = ctx.args.swapstring.split('/');
    const side = async (qty: string | undefined, asset: string | undefined) => {
      if (!qty || !/^\d+$/.test(qty) || !asset) return 'as the swap string says (it could not be read)';
      if (asset.toLowerCase() === 'btc') return `${formatMsat(BigInt(qty))}`;
      const info = (await assetIndex(api)).get(asset);
      return info
        ? `${withPrecision(BigInt(qty), info.precision)} ${info.label}`
        : `${thousands(BigInt(qty))} raw units of ${shortId(asset, 16)}`;
    };
    return [
      { label: 'Taker', value: [...(taker.name ? [`${taker.name} (our node) `] : []), { code: shortId(taker.pubkey, 20) }], inline: true },
      { label: 'Maker sends', value: await side(qtyFrom, fromAsset), inline: true },
      { label: 'Maker receives', value: await side(qtyTo, toAsset), inline: true },
      ...(expiry && /^\d+$/.test(expiry) ? [{ label: 'Swap expires', value: formatTime(Number(expiry)), inline: true }] : []),
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const takerKey = await resolvePubkey(ctx, ctx.args.taker_pubkey, 'taker_pubkey');
    await api.makerexecute({ swapstring: ctx.args.swapstring, payment_secret: ctx.args.payment_secret, taker_pubkey: takerKey.pubkey });
    return {
      header: titled('Swap executed', node),
      tone: 'success',
      blocks: [
        msg.fields([{ label: 'Taker', value: [...(takerKey.name ? [`${takerKey.name} `] : []), { code: takerKey.pubkey }] }]),
        msg.context(`Follow it with \`swap list ${node.name}\`.`),
      ],
    };
  },
});

const taker = defineCommand({
  path: 'swap taker',
  summary: "Accept a maker's swap string as taker",
  example: '/rln swap taker bob 30/btc/10/rgb:…/…',
  args: z.object({ node: nodeArg(), swapstring: z.string().min(10).describe('The swap string from the maker') }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.taker({ swapstring: ctx.args.swapstring });
    const info = await api.nodeinfo().catch(() => undefined);
    return {
      header: titled('Swap accepted', node),
      tone: 'success',
      blocks: [
        msg.text('Accepted as taker. Give the maker this node’s pubkey:'),
        msg.code(info?.pubkey ?? '(run `node info` for the pubkey)'),
        msg.context(
          'The maker then runs `swap maker-execute <maker node> <swapstring> <payment_secret> <the pubkey above>`. ' +
            `Follow it with \`swap list ${node.name}\`.`,
        ),
      ],
    };
  },
});

const decode = defineCommand({
  path: 'swap decode',
  summary: 'Decode a swap string: what the maker gives and gets, its expiry, and whether this node is in it',
  example: '/rln swap decode bob 30/btc/10/rgb:…/…',
  args: z.object({ node: nodeArg(), swapstring: z.string().trim().min(10).describe('The swap string from the maker') }),
  role: 'read',
  async check(ctx) {
    return needsCapability(ctx, 'swapstring', { command: 'swap decode' });
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await requireCapability(ctx, 'swapstring', { command: 'swap decode' });
    const d = await api.decodeswapstring({ swapstring: ctx.args.swapstring });
    const assets = await assetIndexIf(api, Boolean(d.from_asset || d.to_asset));
    const side = (q: number | bigint, asset: string | null | undefined) => {
      if (!asset) return formatMsat(q);
      const info = assets.get(asset);
      return info ? `${withPrecision(q, info.precision)} ${info.label}` : `${thousands(q)} raw units of ${shortId(asset, 16)}`;
    };
    const expiry = Number(d.expiry);
    const expired = expiry * 1000 <= ctx.services.now();
    // The node's own part in it, when it has one (the payment hash names the swap).
    const { maker = [], taker = [] } = await api.listswaps().catch(() => ({ maker: [], taker: [] }));
    const own = [...maker.map((s) => ({ role: 'maker', s })), ...taker.map((s) => ({ role: 'taker', s }))].find(
      (x) => x.s.payment_hash === d.payment_hash,
    );
    const unknownAsset = [d.from_asset, d.to_asset].some((a) => a && !assets.has(a));
    return {
      header: titled('Swap string', node),
      tone: expired ? 'warning' : 'info',
      blocks: [
        msg.fields([
          { label: 'Maker gives', value: side(d.qty_from, d.from_asset), inline: true },
          { label: 'Maker gets', value: side(d.qty_to, d.to_asset), inline: true },
          { label: expired ? 'Expired' : 'Expires', value: formatTime(expiry), inline: true },
          { label: `${node.name} in it`, value: own ? `as ${own.role} (${String(own.s.status)})` : 'no', inline: true },
          { label: 'Payment hash', value: [{ code: d.payment_hash }] },
          ...(d.from_asset ? [{ label: 'Asset given', value: [{ code: d.from_asset }] }] : []),
          ...(d.to_asset ? [{ label: 'Asset got', value: [{ code: d.to_asset }] }] : []),
        ]),
        msg.context(
          expired
            ? 'The offer has expired: ask the maker for a new swap string.'
            : `${unknownAsset ? `${node.name} does not hold every asset named: amounts of those are in raw units. ` : ''}Take it with \`swap taker ${node.name} <swapstring>\`.`,
        ),
      ],
    };
  },
});

const STATUS_MARK: Record<string, string> = { Waiting: '⏳', Pending: '🟡', Succeeded: '🟢', Expired: '⚪', Failed: '🔴' };

const list = nodeListCommand({
  path: 'swap list',
  summary: 'List swaps, as maker and as taker',
  example: '/rln swap list alice',
  args: z.object({ node: nodeArg(), ...pagingArgs }),
  title: 'Swaps',
  async load({ api }) {
    const { maker = [], taker = [] } = await api.listswaps();
    const rows = [...maker.map((s) => ({ role: 'maker', s })), ...taker.map((s) => ({ role: 'taker', s }))];
    return { rows: rows.sort((x, y) => Number(y.s.requested_at ?? 0) - Number(x.s.requested_at ?? 0)) };
  },
  empty: () => [msg.text('No swaps.')],
  async page({ api, items, all }) {
    const assets = await assetIndexIf(
      api,
      all.some(({ s }) => s.from_asset || s.to_asset),
    );
    const qty = (q: number | bigint | undefined, asset: string | undefined | null) => {
      // Bitcoin in sats, as maker init and the taker's confirmation say it (P41).
      if (!asset) return formatMsat(q ?? 0);
      const info = assets.get(asset);
      return info ? `${withPrecision(q ?? 0, info.precision)} ${info.label}` : `${thousands(q ?? 0)} ${shortId(asset, 10)}`;
    };
    const makers = all.filter((x) => x.role === 'maker').length;
    return {
      before: [msg.text(`${makers} as maker · ${all.length - makers} as taker`)],
      table: {
        columns: msg.columns('Role', 'Status', msg.right('From', 'To'), 'Hash', 'Requested', 'Expires'),
        rows: items.map(({ role, s }) => [
          role,
          `${STATUS_MARK[String(s.status)] ?? '⚪'} ${String(s.status ?? '—')}`,
          qty(s.qty_from, s.from_asset),
          qty(s.qty_to, s.to_asset),
          shortId(s.payment_hash ?? '—', 12),
          formatTime(s.requested_at),
          formatTime(s.expires_at),
        ]),
      },
    };
  },
});

export const swapCommands: AnyCommand[] = [makerInit, makerExecute, taker, decode, list];
