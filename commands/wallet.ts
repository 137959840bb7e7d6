/** `wallet …`: on-chain address, BTC balances, UTXOs, transactions, fee estimate, signing. */
import { z } from 'zod';
import { formatSats, shortId, thousands } from '../src/core/format.js';
import { msg } from '../src/core/message.js';
import { defineCommand, type CommandDefinition } from '../src/core/types.js';
import { amount, flag, int, nodeArg, pagingArgs } from './support/arg-types.js';
import { nodeClient } from './support/node-client.js';
import { paginate } from './support/paginate.js';
import { bodyOf, formatTime, shortOutpoint, titled, yesNo } from './support/present.js';
import { qrFile } from './support/qr-file.js';

const address = defineCommand({
  path: 'wallet address',
  summary: 'Get a new on-chain address of the node',
  example: '/rln wallet address alice',
  args: z.object({ node: nodeArg() }),
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
  confirm: 'none',
  mutates: false,
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
          columns: [{ header: 'Wallet' }, { header: 'Settled (sat)', align: 'right' }, { header: 'Spendable (sat)', align: 'right' }, { header: 'Future (sat)', align: 'right' }],
          rows: [row('vanilla', b.vanilla), row('colored', b.colored)],
        }),
        msg.context(`Spendable in total: ${formatSats(total)} (${formatSats(total, 'btc')})`),
      ],
    };
  },
});

const unspents = defineCommand({
  path: 'wallet unspents',
  summary: 'List unspent outputs and their RGB allocations',
  example: '/rln wallet unspents alice',
  args: z.object({
    node: nodeArg(),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
    ...pagingArgs,
  }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { unspents: list = [] } = await api.listunspents({ skip_sync: ctx.args.skip_sync });
    if (list.length === 0) {
      return { header: titled('Unspent outputs', node), tone: 'neutral', blocks: [msg.text('No unspent outputs.'), msg.context(`Fund it: \`wallet address ${node.name}\`.`)] };
    }
    const { items, caption } = paginate(list, ctx.args);
    let total = 0n;
    for (const u of list) total += BigInt(u.utxo?.btc_amount ?? 0);
    return {
      header: titled(`Unspent outputs (${list.length})`, node),
      tone: 'info',
      blocks: [
        msg.table({
          columns: [{ header: 'Outpoint' }, { header: 'Sats', align: 'right' }, { header: 'Colorable' }, { header: 'RGB allocations' }],
          rows: items.map((u) => [
            shortOutpoint(u.utxo?.outpoint ?? '—'),
            thousands(u.utxo?.btc_amount ?? 0),
            yesNo(u.utxo?.colorable),
            (u.rgb_allocations ?? [])
              .map((a) => `${shortId(a.asset_id ?? '?', 12)} ${thousands(a.assignment?.value ?? 0)}${a.settled ? '' : ' (pending)'}`)
              .join(', ') || '—',
          ]),
          caption,
        }),
        msg.context(`Total: ${formatSats(total)}`),
      ],
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
    size: amount().optional().describe('Size of each UTXO, in sats'),
    fee_rate: z.coerce.number().positive().default(5).describe('Fee rate in sat/vB (default 5)'),
    up_to: flag().default(false).describe('Create only as many as needed to reach num'),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.createutxos(bodyOf(ctx.args));
    return {
      header: titled('UTXOs created', node),
      tone: 'success',
      blocks: [
        msg.text(
          `Created ${ctx.args.up_to ? 'up to ' : ''}${ctx.args.num ?? 'the default number of'} UTXO(s)${ctx.args.size ? ` of ${formatSats(ctx.args.size)}` : ''} at ${ctx.args.fee_rate} sat/vB.`,
        ),
        msg.context(`See them with \`wallet unspents ${node.name}\`.`),
      ],
    };
  },
});

const transactions = defineCommand({
  path: 'wallet transactions',
  summary: 'List on-chain transactions, newest first',
  example: '/rln wallet transactions alice',
  args: z.object({
    node: nodeArg(),
    skip_sync: flag().default(false).describe('Skip the wallet sync first'),
    ...pagingArgs,
  }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { transactions: list = [] } = await api.listtransactions({ skip_sync: ctx.args.skip_sync });
    if (list.length === 0) return { header: titled('Transactions', node), tone: 'neutral', blocks: [msg.text('No transactions.')] };
    // Newest first: unconfirmed ones on top, then by block height.
    const heightOf = (t: (typeof list)[number]) => Number(t.confirmation_time?.height ?? Number.MAX_SAFE_INTEGER);
    const sorted = list.map((t, i) => ({ t, i })).sort((a, b) => heightOf(b.t) - heightOf(a.t) || b.i - a.i).map(({ t }) => t);
    const { items, caption } = paginate(sorted, ctx.args);
    return {
      header: titled(`Transactions (${list.length})`, node),
      tone: 'info',
      blocks: [
        msg.table({
          columns: [
            { header: 'Type' },
            { header: 'Txid' },
            { header: 'Received', align: 'right' },
            { header: 'Sent', align: 'right' },
            { header: 'Fee', align: 'right' },
            { header: 'Confirmed' },
          ],
          rows: items.map((t) => [
            String(t.transaction_type ?? '—'),
            shortId(t.txid ?? '—', 12),
            thousands(t.received ?? 0),
            thousands(t.sent ?? 0),
            thousands(t.fee ?? 0),
            t.confirmation_time ? `${formatTime(t.confirmation_time.timestamp)} (#${thousands(t.confirmation_time.height ?? 0)})` : 'unconfirmed',
          ]),
          caption,
        }),
        msg.context('Amounts in sats.'),
      ],
    };
  },
});

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
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { fee_rate } = await api.estimatefee({ blocks: ctx.args.blocks });
    return {
      header: titled('Fee estimate', node),
      tone: 'info',
      blocks: [msg.fields([{ label: `Within ${ctx.args.blocks} blocks`, value: `${Number(fee_rate)} sat/vB` }])],
    };
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
    return {
      header: titled('Signed message', node),
      tone: 'info',
      blocks: [msg.fields([{ label: 'Message', value: ctx.args.message }]), msg.code(signed_message)],
    };
  },
});

export const walletCommands: CommandDefinition<any>[] = [address, balance, unspents, utxos, transactions, fee, sign];
