/** `wallet …`: on-chain address, BTC balances, UTXOs, transactions, fee estimate, signing. */
import { z } from 'zod';
import { transactionTypeText } from '../src/node-api/index.js';
import { formatSats, shortId, thousands } from '../src/vocabulary/index.js';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { requireCapability, type NeedsCapability } from './support/needs-capability.js';
import { type AnyCommand } from '../src/engine/index.js';
import { flag, int, nodeArg, nodeOnly, pagingArgs, satAmount } from './support/arg-types.js';
import { assetIndexIf } from './support/asset-table.js';
import { withPrecision } from '../src/vocabulary/index.js';
import { nodeClient } from './support/node-client.js';
import { nodeListCommand } from './support/list-command.js';
import { bodyOf, formatTime, nodeFacts, shortOutpoint, titled, yesNo } from './support/present.js';
import { qrFile } from './support/qr-file.js';
import { walletSendSpend } from './support/spend.js';
import { fundsRefusal } from './support/onchain-checks.js';

const address = defineCommand({
  path: 'wallet address',
  summary: 'Get a new on-chain address of the node',
  example: '/rln wallet address alice',
  args: nodeOnly,
  role: 'operate',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { address: addr } = await api.address();
    return {
      header: titled('New address', node),
      tone: 'info',
      blocks: [msg.code(addr), msg.context(`Network: ${node.network}`)],
      files: [await qrFile(addr, { name: 'address.png', title: 'On-chain address' })],
    };
  },
});

const balance = defineCommand({
  path: 'wallet balance',
  summary: 'BTC balance: vanilla and colored, settled/spendable/future',
  example: '/rln wallet balance alice',
  args: z.object({
    node: nodeArg(),
    skip_sync: flag().default(false).describe('Skip the wallet sync first (faster, maybe stale)'),
  }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const b = await api.btcbalance({ skip_sync: ctx.args.skip_sync });
    const row = (label: string, x: { settled?: number | bigint; spendable?: number | bigint; future?: number | bigint } | undefined) => [
      label,
      thousands(x?.settled ?? 0),
      thousands(x?.spendable ?? 0),
      thousands(x?.future ?? 0),
    ];
    const total = BigInt(b.vanilla?.spendable ?? 0) + BigInt(b.colored?.spendable ?? 0);
    return {
      header: titled('BTC balance', node),
      tone: 'info',
      summary: `${node.name}: ${formatSats(total)} spendable`,
      blocks: [
        msg.table({
          columns: msg.columns('Wallet', msg.right('Settled (sat)'), msg.right('Spendable (sat)'), msg.right('Future (sat)')),
          rows: [row('vanilla', b.vanilla), row('colored', b.colored)],
        }),
        msg.context(`Spendable in total: ${formatSats(total)} (${formatSats(total, 'btc')})`),
      ],
    };
  },
});

/** `/listunspents`' `settled_only` is in 6887cbf's document; f379330 lists pending allocations too, always. */
const SETTLED_ONLY: NeedsCapability = { command: 'wallet unspents … settled_only=true', feature: 'listing only settled allocations' };

const unspents = nodeListCommand({
  path: 'wallet unspents',
  summary: 'List unspent outputs and their RGB allocations',
  example: '/rln wallet unspents alice',
  args: z.object({
    node: nodeArg(),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
    settled_only: flag().default(false).describe('Show only settled RGB allocations, not pending ones (6887cbf images)'),
    ...pagingArgs,
  }),
  async load({ ctx, api }) {
    const { skip_sync, settled_only } = ctx.args;
    if (settled_only) await requireCapability(ctx, 'listunspents', SETTLED_ONLY);
    const { unspents: list = [] } = await api.listunspents(settled_only ? { skip_sync, settled_only } : { skip_sync });
    return { rows: list, settledOnly: settled_only };
  },
  title: ({ settledOnly }) => (settledOnly ? 'Unspent outputs (settled allocations only)' : 'Unspent outputs'),
  empty: (node) => [msg.text('No unspent outputs.'), msg.context(`Fund it: \`wallet address ${node.name}\`.`)],
  async page({ api, items, all }) {
    // Allocations in display units with the ticker, as every other command shows assets.
    const assets = await assetIndexIf(
      api,
      items.some((u) => u.rgb_allocations?.length),
    );
    const allocation = (a: {
      asset_id?: string | null;
      assignment?: { value?: number | bigint | null } | null;
      settled?: boolean | null;
    }) => {
      const info = assets.get(a.asset_id ?? '');
      const value = a.assignment?.value ?? 0;
      const amount = info
        ? `${withPrecision(value, info.precision)} ${info.label}`
        : `${thousands(value)} raw ${shortId(a.asset_id ?? '?', 12)}`;
      return `${amount}${a.settled ? '' : ' (pending)'}`;
    };
    let total = 0n;
    for (const u of all) total += BigInt(u.utxo?.btc_amount ?? 0);
    return {
      table: {
        columns: msg.columns('Outpoint', msg.right('Sats'), 'Colorable', 'RGB allocations'),
        rows: items.map((u) => [
          shortOutpoint(u.utxo?.outpoint ?? '—'),
          thousands(u.utxo?.btc_amount ?? 0),
          yesNo(u.utxo?.colorable),
          (u.rgb_allocations ?? []).map(allocation).join(', ') || '—',
        ]),
      },
      after: [msg.context(`Total: ${formatSats(total)}`)],
    };
  },
});

const utxos = defineCommand({
  path: 'wallet utxos',
  summary: 'Create UTXOs for RGB use',
  example: '/rln wallet utxos alice num=4 size=32500 fee_rate=5',
  args: z.object({
    node: nodeArg(),
    num: int().min(1).max(100).optional().describe('How many UTXOs to create'),
    size: satAmount().optional().describe('Size of each UTXO, in sats, or with a unit: 32.5k sats'),
    fee_rate: z.coerce.number().positive().default(5).describe('Fee rate in sat/vB (default 5)'),
    up_to: flag().default(false).describe('Create only as many as needed to reach num'),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
  }),
  role: 'operate',
  // It spends on-chain: confirmed with the fee it will pay (the utxos alert's Create UTXOs button, issue 28).
  confirm: 'button',
  async preview(ctx) {
    const num = ctx.args.num ?? 5;
    const size = ctx.args.size ?? 32_500;
    // One input and one output per UTXO plus change, at the rate asked: an estimate, the node's wallet picks the inputs.
    const fee = Math.ceil(ctx.args.fee_rate * (110 + 31 * (num + 1)));
    return [
      { label: 'UTXOs', value: `${ctx.args.up_to ? 'up to ' : ''}${num} of ${formatSats(size)}`, inline: true },
      { label: 'Fee', value: `about ${formatSats(fee)} at ${ctx.args.fee_rate} sat/vB`, inline: true },
    ];
  },
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    // The node answers with nothing: what it made is read from its outputs before and after.
    const outpoints = async () => (await api.listunspents({ skip_sync: true }).catch(() => ({ unspents: [] }))).unspents ?? [];
    const before = new Set((await outpoints()).map((u) => u.utxo?.outpoint));
    await api.createutxos(bodyOf(ctx.args));
    const made = (await outpoints()).filter((u) => !before.has(u.utxo?.outpoint) && u.utxo?.colorable);
    const sizes = [...new Set(made.map((u) => Number(u.utxo?.btc_amount ?? 0)))];
    const txid = made[0]?.utxo?.outpoint?.split(':')[0];
    const tx = txid
      ? ((await api.listtransactions({ skip_sync: true }).catch(() => ({ transactions: [] }))).transactions ?? []).find(
          (t) => t.txid === txid,
        )
      : undefined;
    const what = made.length
      ? `Created ${made.length} UTXO${made.length === 1 ? '' : 's'} of ${sizes.map((n) => formatSats(n)).join(', ')}${tx?.fee !== undefined && tx.fee !== null ? `, fee ${formatSats(tx.fee)}` : ''} at ${ctx.args.fee_rate} sat/vB.`
      : `Asked for ${ctx.args.up_to ? 'up to ' : ''}${ctx.args.num ?? 'the default number of'} UTXO(s)${ctx.args.size ? ` of ${formatSats(ctx.args.size)}` : ''} at ${ctx.args.fee_rate} sat/vB (the new outputs are not listed yet).`;
    return {
      header: titled('UTXOs created', node),
      tone: 'success',
      blocks: [
        msg.text(what),
        ...(txid ? [msg.fields([{ label: 'Txid', value: [{ code: txid }] }])] : []),
        msg.context(`See them with \`wallet unspents ${node.name}\`.`),
      ],
    };
  },
});

const transactions = nodeListCommand({
  path: 'wallet transactions',
  summary: 'List on-chain transactions, newest first',
  example: '/rln wallet transactions alice',
  args: z.object({
    node: nodeArg(),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
    ...pagingArgs,
  }),
  title: 'Transactions',
  async load({ ctx, api }) {
    const { transactions: list = [] } = await api.listtransactions({ skip_sync: ctx.args.skip_sync });
    // Newest first: unconfirmed ones on top, then by block height.
    const heightOf = (t: (typeof list)[number]) => Number(t.confirmation_time?.height ?? Number.MAX_SAFE_INTEGER);
    return {
      rows: list
        .map((t, i) => ({ t, i }))
        .sort((a, b) => heightOf(b.t) - heightOf(a.t) || b.i - a.i)
        .map(({ t }) => t),
    };
  },
  empty: () => [msg.text('No transactions.')],
  // The node's `received` and `sent` are the wallet's outputs and the wallet's spent inputs, so a send
  // counts its change on both sides (P38). What an operator reads, as wallets show it, is the net.
  page: ({ items }) => ({
    table: {
      columns: msg.columns('Type', 'Txid', msg.right('Net', 'Fee paid'), 'Confirmed'),
      rows: items.map((t) => {
        const net = BigInt(t.received ?? 0) - BigInt(t.sent ?? 0);
        return [
          transactionTypeText(t.transaction_type),
          shortId(t.txid ?? '—', 12),
          net > 0n ? `+${thousands(net)}` : thousands(net),
          // The fee is ours only when the wallet spent inputs; an incoming payment's fee was the sender's.
          BigInt(t.sent ?? 0) > 0n && t.fee !== undefined && t.fee !== null ? thousands(t.fee) : '—',
          t.confirmation_time
            ? `${formatTime(t.confirmation_time.timestamp)} (#${thousands(t.confirmation_time.height ?? 0)})`
            : 'unconfirmed',
        ];
      }),
    },
    after: [
      msg.context(
        'Amounts in sats. Net: what the wallet gained (+) or lost (-), fee included; change sent back to the wallet is not counted (a 200,000-sat send with a 500-sat fee shows -200,500).',
      ),
    ],
  }),
});

/** A one-input, two-output P2WPKH spend: what the confirmation's fee estimate assumes. */
const TYPICAL_SEND_VBYTES = 141;

const send = defineCommand({
  path: 'wallet send',
  summary: 'Send BTC on-chain to an address',
  example: '/rln wallet send alice bcrt1q… 50k sats',
  args: z.object({
    node: nodeArg(),
    address: z
      .string()
      .trim()
      .regex(/^(bc|tb|bcrt)1[0-9a-zA-Z]{20,}$|^[123mn2][1-9A-HJ-NP-Za-km-z]{25,39}$/, 'a Bitcoin address (bc1…, tb1…, bcrt1…)')
      .describe('The Bitcoin address to pay'),
    amount: satAmount()
      .refine((v) => v > 0, 'must be more than 0')
      .describe('Amount in sats, or with a unit: 50k sats, 0.001 BTC'),
    fee_rate: z.coerce.number().positive().optional().describe('Fee rate in sat/vB (default: the node’s estimate for 6 blocks)'),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  // On-chain sats leave the node: approval thresholds and spend limits apply as to a payment.
  spend: walletSendSpend,
  /** More than the wallet can spend is refused before the confirmation. */
  async check(ctx) {
    const { node, api } = nodeClient(ctx);
    return fundsRefusal(api, node.name, ctx.args.amount);
  },
  /** The confirmation shows the amount and what the fee will be about. */
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const rate = await sendFeeRate(api, ctx.args.fee_rate);
    return [
      { label: 'Sends', value: formatSats(ctx.args.amount), inline: true },
      { label: 'To', value: [{ code: ctx.args.address }], inline: true },
      { label: 'Fee rate', value: `${rate} sat/vB${ctx.args.fee_rate === undefined ? ' (estimate for 6 blocks)' : ''}`, inline: true },
      {
        label: 'Estimated fee',
        value: `about ${formatSats(Math.ceil(rate * TYPICAL_SEND_VBYTES))} (${TYPICAL_SEND_VBYTES} vB, one input)`,
        inline: true,
      },
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const rate = await sendFeeRate(api, ctx.args.fee_rate);
    const { txid } = await api.sendbtc({ amount: ctx.args.amount, address: ctx.args.address, fee_rate: rate, skip_sync: false });
    return {
      header: titled('BTC sent', node),
      tone: 'success',
      summary: `${node.name} sent ${formatSats(ctx.args.amount)}`,
      blocks: [
        msg.fields([
          { label: 'Amount', value: formatSats(ctx.args.amount), inline: true },
          { label: 'Fee rate', value: `${rate} sat/vB`, inline: true },
          { label: 'To', value: [{ code: ctx.args.address }] },
          { label: 'Txid', value: [{ code: txid }] },
        ]),
        msg.context(`Follow it with \`wallet transactions ${node.name}\`.`),
      ],
    };
  },
});

/** The fee rate given, or the node's estimate to confirm within 6 blocks. */
async function sendFeeRate(api: ReturnType<typeof nodeClient>['api'], given: number | undefined): Promise<number> {
  if (given !== undefined) return given;
  return Number((await api.estimatefee({ blocks: 6 })).fee_rate);
}

const fee = defineCommand({
  path: 'wallet fee',
  summary: 'Estimate the fee rate to confirm within N blocks',
  example: '/rln wallet fee alice 6',
  positional: ['node', 'blocks'],
  args: z.object({
    node: nodeArg(),
    blocks: int().min(1).max(1008).default(6).describe('Target confirmation, in blocks (default 6)'),
  }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { fee_rate } = await api.estimatefee({ blocks: ctx.args.blocks });
    return nodeFacts(node, 'Fee estimate', [{ label: `Within ${ctx.args.blocks} blocks`, value: `${Number(fee_rate)} sat/vB` }]);
  },
});

const sign = defineCommand({
  path: 'wallet sign',
  summary: "Sign a message with the node's key",
  example: '/rln wallet sign alice message="hello"',
  args: z.object({
    node: nodeArg(),
    message: z.string().min(1).max(2000).describe('The message to sign'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { signed_message } = await api.signmessage({ message: ctx.args.message });
    return nodeFacts(node, 'Signed message', [{ label: 'Message', value: ctx.args.message }], { after: [msg.code(signed_message)] });
  },
});

export const walletCommands: AnyCommand[] = [address, balance, unspents, utxos, transactions, fee, sign, send];
