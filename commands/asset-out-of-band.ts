/**
 * Out-of-band RGB transfers (RLN 358f71b and later): an RGB invoice made with `transport_endpoints=none`
 * and paid by `asset send` leaves the consignment with the sender, and no proxy carries it.
 * - `asset consignment`: the sender's consignment of a transfer, as a file, to hand to the receiver;
 * - `asset deliver`: the receiver takes it (pasted as hex or base64, or read from the sending node when it
 *   is one of this account's), and checks it;
 * - `asset ack`: the sender records that the receiver accepted it, which completes and broadcasts the transfer.
 */
import { z } from 'zod';
import { UserError, messageFile, msg, shortId, thousands, withPrecision, type Field } from '../src/vocabulary/index.js';
import { transferStatusText, type NodeApiClient } from '../src/node-api/index.js';
import { findNode } from '../src/hosting/index.js';
import type { AnyCommand } from '../src/engine/index.js';
import { defineCommand } from './define-command.js';
import { assetIdArg, nodeArg } from './support/arg-types.js';
import { describeAsset, resolveAssetId } from './support/asset-table.js';
import { needsCapability, requireCapability, type NeedsCapability } from './support/needs-capability.js';
import { nodeClient } from './support/node-client.js';
import { titled } from './support/present.js';

const txidArg = () =>
  z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{64}$/, 'a transaction id: 64 hex digits, as `asset send` or `asset transfers` shows it')
    .transform((v) => v.toLowerCase());

const gate = (command: string): NeedsCapability => ({ command, feature: 'out-of-band RGB transfers (consignments handed over by hand)' });

/** The most a consignment may be when pasted in a chat command (chat platforms cut longer messages first). */
const MAX_PASTED_BYTES = 256 * 1024;

/** A consignment pasted as text: hex (even length), else base64; refused when it is neither. */
export function consignmentBytes(text: string): Buffer {
  const t = text.replace(/\s+/g, '');
  if (/^([0-9a-fA-F]{2})+$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t) && t.length % 4 !== 1) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length) return b;
  }
  throw new UserError(
    'invalid_arguments',
    '`consignment` is neither hex nor base64.',
    'Paste the consignment file as hex (as `asset consignment` shows it) or base64, or give `from=<sending node> txid=… asset_id=…` when the sender is a node of this account.',
  );
}

type ListedTransfer = Awaited<ReturnType<NodeApiClient['listtransfers']>>['transfers'][number];

/**
 * The transfer with its asset: a transfer listed across every asset carries no `asset_id` (6887cbf's
 * Transfer has none), so the asset is the one whose own list holds it.
 */
async function withAssetId(api: NodeApiClient, t: ListedTransfer | undefined, same: (x: ListedTransfer) => boolean) {
  if (!t || t.asset_id) return t;
  const { nia = [], cfa = [], uda = [], ifa = [] } = await api.listassets({ filter_asset_schemas: [] }).catch(() => ({}) as never);
  for (const { asset_id } of [...nia, ...cfa, ...uda, ...ifa]) {
    const { transfers = [] } = await api.listtransfers({ asset_id }).catch(() => ({ transfers: [] }));
    if (transfers.some(same)) return { ...t, asset_id };
  }
  return t;
}

/** A transfer of the node, by its index (the indexes a consignment's answer names), with its asset. */
async function transferByIdx(api: NodeApiClient, idx: string) {
  const { transfers = [] } = await api.listtransfers({}).catch(() => ({ transfers: [] }));
  const same = (t: ListedTransfer) => String(t.idx) === idx;
  return withAssetId(api, transfers.find(same), same);
}

/** The sum of a transfer's assignments, in the asset's display units with its ticker. */
async function transferAmount(api: NodeApiClient, t: { asset_id?: string | null; assignments?: Array<{ value?: unknown }> | null }) {
  if (!t.asset_id) return '—';
  const raw = (t.assignments ?? []).reduce((s, a) => s + BigInt(Number(a.value ?? 0)), 0n);
  const { label, precision } = await describeAsset(api, t.asset_id);
  return `${withPrecision(raw, precision)} ${label}`;
}

const consignment = defineCommand({
  path: 'asset consignment',
  summary: 'Get the consignment of an out-of-band send, as a file to give the receiver',
  example: '/rln asset consignment alice USDT 33cf3e42…',
  args: z.object({
    node: nodeArg(),
    asset_id: assetIdArg(),
    txid: txidArg().describe('The transfer’s txid, as `asset send` showed it'),
  }),
  role: 'read',
  check: (ctx) => needsCapability(ctx, 'outofband', gate('asset consignment')),
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await requireCapability(ctx, 'outofband', gate('asset consignment'));
    const assetId = await resolveAssetId(api, node.name, ctx.args.asset_id);
    const { bytes_hex } = await api.getconsignment({ asset_id: assetId, txid: ctx.args.txid });
    const bytes = Buffer.from(bytes_hex, 'hex');
    const { label } = await describeAsset(api, assetId);
    const small = bytes_hex.length <= 2_000;
    return {
      header: titled('Consignment', node),
      tone: 'info',
      summary: `${node.name}: consignment of ${label} ${ctx.args.txid.slice(0, 12)}…`,
      blocks: [
        msg.fields([
          { label: 'Asset', value: label, inline: true },
          { label: 'Size', value: `${thousands(bytes.length)} bytes`, inline: true },
          { label: 'Txid', value: [{ code: ctx.args.txid }] },
        ]),
        ...(small ? [msg.code(bytes_hex)] : []),
        msg.context(
          `Give it to the receiver, who runs \`asset deliver <their node> consignment=<hex>\` (a node of this account: \`asset deliver <node> from=${node.name} asset_id=${label} txid=${ctx.args.txid}\`). ` +
            `When they accept it: \`asset ack ${node.name} <recipient id>\`.`,
        ),
      ],
      files: [
        messageFile({
          name: `consignment-${ctx.args.txid.slice(0, 12)}.rgbc`,
          mime: 'application/octet-stream',
          bytes,
          title: `Consignment ${ctx.args.txid.slice(0, 12)}…`,
          alt: `RGB consignment of ${label}, ${bytes.length} bytes`,
        }),
      ],
    };
  },
});

const deliverArgs = z.object({
  node: nodeArg(),
  consignment: z.string().trim().min(2).optional().describe('The consignment file, pasted as hex or base64 (chat limits its size)'),
  from: z.string().trim().min(1).optional().describe('Instead: the sending node, when it is one of this account'),
  asset_id: z.string().trim().min(1).optional().describe('With from=: the asset sent (rgb: id or ticker on the sender)'),
  txid: txidArg().optional().describe('With from=: the transfer’s txid'),
});

/** The consignment's bytes: pasted, or read from the sending node of this account. */
async function deliveredBytes(ctx: Parameters<(typeof deliver)['handler']>[0]): Promise<{ bytes: Buffer; sender?: string }> {
  const a = ctx.args;
  if ((a.consignment === undefined) === (a.from === undefined)) {
    throw new UserError(
      'invalid_arguments',
      'Give the consignment (`consignment=<hex or base64>`) or where to read it (`from=<node> asset_id=… txid=…`), one of the two.',
      'Example: `/rln asset deliver bob from=alice asset_id=USDT txid=<txid>`.',
    );
  }
  if (a.consignment !== undefined) {
    const bytes = consignmentBytes(a.consignment);
    if (bytes.length > MAX_PASTED_BYTES)
      throw new UserError(
        'invalid_arguments',
        'The consignment is too large to paste.',
        'Use `from=` when the sender is a node of this account.',
      );
    return { bytes };
  }
  if (!a.asset_id || !a.txid) {
    throw new UserError(
      'invalid_arguments',
      '`from=` needs the transfer: `asset_id=` and `txid=`.',
      `Example: \`/rln asset deliver ${ctx.node?.name ?? '<node>'} from=${a.from} asset_id=USDT txid=<txid>\`.`,
    );
  }
  const sender = findNode(await ctx.services.hosting.listNodes(), a.from!);
  if (!sender)
    throw new UserError(
      'invalid_arguments',
      `No node ${a.from} in this account.`,
      'Paste the consignment instead (`consignment=<hex>`), or see `node list`.',
    );
  if (sender.nodeId === ctx.node?.nodeId)
    throw new UserError('invalid_arguments', 'A node does not deliver a consignment to itself.', 'Name the sending node in `from=`.');
  const api = ctx.services.nodeApi(sender);
  const assetId = await resolveAssetId(api, sender.name, a.asset_id);
  const { bytes_hex } = await api.getconsignment({ asset_id: assetId, txid: a.txid });
  return { bytes: Buffer.from(bytes_hex, 'hex'), sender: sender.name };
}

const deliver = defineCommand({
  path: 'asset deliver',
  summary: 'Give a node the consignment of an out-of-band transfer it receives',
  example: '/rln asset deliver bob from=alice asset_id=USDT txid=33cf3e42…',
  args: deliverArgs,
  role: 'operate',
  confirm: 'none',
  mutates: true,
  check: (ctx) => needsCapability(ctx, 'outofband', gate('asset deliver')),
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await requireCapability(ctx, 'outofband', gate('asset deliver'));
    const { bytes, sender } = await deliveredBytes(ctx);
    const { transfers = {} } = await api.provideoutofbandconsignment({
      file: new Uint8Array(bytes),
      mime: 'application/octet-stream',
      filename: 'consignment',
    });
    const entries = Object.entries(transfers);
    const failed = entries.filter(([, t]) => t.failure);
    const fields: Field[] = [];
    let recipient: string | undefined;
    for (const [idx, t] of entries) {
      const mine = await transferByIdx(api, idx);
      recipient ??= mine?.recipient_id ?? undefined;
      fields.push({
        label: `Transfer ${idx}${mine ? `: ${await transferAmount(api, mine)}` : ''}`,
        value: t.failure ? `refused: ${t.failure.message} (${t.failure.name})` : transferStatusText(t.updated_status ?? undefined),
      });
    }
    if (!entries.length)
      fields.push({ label: 'Transfers', value: 'none changed: this consignment was taken already, or waits for nothing here' });
    const ack = recipient && !failed.length ? `asset ack ${sender ?? '<sending node>'} ${recipient}` : undefined;
    return {
      header: titled(failed.length ? 'Consignment refused' : 'Consignment accepted', node),
      tone: failed.length ? 'danger' : entries.length ? 'success' : 'neutral',
      summary: `${node.name}: consignment ${failed.length ? 'refused' : 'accepted'}`,
      blocks: [
        msg.fields(fields),
        ...(ack
          ? [
              msg.context(
                `The sender now broadcasts it once told: \`${ack}\`${recipient ? ` (recipient id \`${shortId(recipient, 40)}\`)` : ''}.`,
              ),
            ]
          : []),
      ],
      ...(ack && sender && recipient
        ? { buttons: [{ label: `Acknowledge on ${sender}`, command: 'asset ack', args: { node: sender, recipient_id: recipient } }] }
        : {}),
    };
  },
});

/** The send that waits for this recipient's ACK on the node, if any. */
async function waitingSend(api: NodeApiClient, recipientId: string) {
  const { transfers = [] } = await api.listtransfers({});
  return transfers.find((t) => t.recipient_id === recipientId && t.kind === 'Send');
}

/** The send with its asset (see withAssetId). */
async function waitingSendOfAsset(api: NodeApiClient, recipientId: string) {
  return withAssetId(api, await waitingSend(api, recipientId), (x) => x.recipient_id === recipientId && x.kind === 'Send');
}

const ack = defineCommand({
  path: 'asset ack',
  summary: 'Tell the sender that the receiver accepted an out-of-band consignment: the transfer is broadcast',
  example: '/rln asset ack alice utxob:2Bwv2Vx-…',
  args: z.object({
    node: nodeArg(),
    recipient_id: z.string().trim().min(1).describe('The receiver’s recipient id (from its RGB invoice)'),
  }),
  role: 'admin',
  confirm: 'button',
  mutates: true,
  async check(ctx) {
    const refused = await needsCapability(ctx, 'outofband', gate('asset ack'));
    if (refused) return refused;
    const { node, api } = nodeClient(ctx);
    const t = await waitingSend(api, ctx.args.recipient_id);
    if (!t)
      return {
        reason: `${node.name} has no send to this recipient.`,
        next: `See its transfers with \`asset transfers ${node.name} <asset>\`.`,
      };
    if (t.status !== 'WaitingCounterparty')
      return {
        reason: `The send to this recipient is ${transferStatusText(t.status).toLowerCase()}: it waits for no acknowledgement.`,
        next: `Follow it with \`asset transfers ${node.name} ${typeof t.asset_id === 'string' ? t.asset_id : '<asset>'}\`.`,
      };
    return undefined;
  },
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const t = await waitingSendOfAsset(api, ctx.args.recipient_id);
    return [
      { label: 'Sends', value: t ? await transferAmount(api, t) : '—', inline: true },
      { label: 'To', value: [{ code: shortId(ctx.args.recipient_id, 40) }], inline: true },
      ...(t?.txid ? [{ label: 'Txid', value: [{ code: t.txid }] }] : []),
      { label: 'Then', value: 'the transaction is broadcast: the transfer can no longer be cancelled', inline: true },
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await requireCapability(ctx, 'outofband', gate('asset ack'));
    const { operation } = await api.provideoutofbandack({ recipient_id: ctx.args.recipient_id });
    return {
      header: titled(operation ? 'Transfer broadcast' : 'Acknowledgement recorded', node),
      tone: 'success',
      summary: `${node.name}: out-of-band acknowledgement recorded`,
      blocks: [
        msg.fields([
          { label: 'Recipient', value: [{ code: shortId(ctx.args.recipient_id, 40) }] },
          ...(operation ? [{ label: 'Txid', value: [{ code: operation.txid }] }] : []),
        ]),
        msg.context(
          operation
            ? 'Every recipient of the batch has accepted: it was broadcast. It settles after a confirmation (`asset refresh`).'
            : 'Other recipients of the same batch have not accepted yet: it is broadcast when the last one is acknowledged.',
        ),
      ],
    };
  },
});

export const assetOutOfBandCommands: AnyCommand[] = [consignment, deliver, ack];
