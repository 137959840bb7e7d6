/** `channel …`: Lightning channels: list, open, close, id. */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { formatSats, msatToSat, shortId, thousands, withPrecision } from '../src/vocabulary/index.js';
import { msg, type Field, type Inline } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { open } from './channel-open.js';
import { type AnyCommand } from '../src/engine/index.js';
import { flag, nodeArg, pagingArgs } from './support/arg-types.js';
import { ourNodeNames, pubkeyLabel, resolvePubkey } from './support/our-nodes.js';
import { assetIndex, assetIndexIf } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { nodeListCommand } from './support/list-command.js';
import { nodeFacts, titled } from './support/present.js';
import { readOnce } from './support/read-once.js';

const STATE_MARK: Record<string, string> = { Opening: '🟡', Opened: '🟢', Closing: '🔴' };

const list = nodeListCommand({
  path: 'channel list',
  summary: 'List channels: state, peer, capacity, local/remote, asset amounts',
  example: '/rln channel list alice',
  args: z.object({ node: nodeArg(), ...pagingArgs }),
  title: 'Channels',
  async load({ api }) {
    const { channels = [] } = await api.listchannels();
    return { rows: channels };
  },
  empty: (node) => [
    msg.text('No channels.'),
    msg.context(
      `Open one: \`channel open ${node.name} <pubkey>@<host>:<port> <capacity_sat>\`, ` +
        'or give another of your nodes by name instead of the pubkey.',
    ),
  ],
  async page({ ctx, node, api, items, all: channels }) {
    const assets = await assetIndexIf(
      api,
      channels.some((c) => c.asset_id),
    );
    const ours = await ourNodeNames(ctx);
    let cap = 0n;
    let local = 0n;
    let remote = 0n;
    let usable = 0;
    for (const c of channels) {
      cap += BigInt(c.capacity_sat ?? 0);
      local += msatToSat(c.outbound_balance_msat ?? 0);
      remote += msatToSat(c.inbound_balance_msat ?? 0);
      if (c.is_usable) usable++;
    }
    return {
      tone: usable === channels.length ? 'success' : 'warning',
      before: [
        msg.fields([
          { label: 'Usable', value: `${usable} / ${channels.length}`, inline: true },
          { label: 'Capacity', value: formatSats(cap), inline: true },
          { label: 'Local / remote', value: `${formatSats(local)} / ${formatSats(remote)}`, inline: true },
        ]),
      ],
      table: {
        columns: msg.columns(
          'State',
          'Peer',
          msg.right('Capacity (sat)'),
          msg.right('Local (sat)'),
          msg.right('Remote (sat)'),
          msg.right('Asset local / remote'),
          'Channel',
        ),
        rows: items.map((c) => {
          const st = String(c.status ?? '—');
          const state = `${STATE_MARK[st] ?? '⚪'} ${st}${c.status === 'Opened' && !c.is_usable ? ' (not usable)' : ''}`;
          let asset = '—';
          if (c.asset_id) {
            const info = assets.get(c.asset_id);
            const p = info?.precision ?? 0;
            const amounts = `${withPrecision(c.asset_local_amount ?? 0, p)} / ${withPrecision(c.asset_remote_amount ?? 0, p)}`;
            asset = `${amounts} ${info?.label ?? shortId(c.asset_id, 10)}`;
          }
          return [
            state,
            ours.has((c.peer_pubkey ?? '').toLowerCase())
              ? pubkeyLabel(ours, c.peer_pubkey, (k) => shortId(k, 8))
              : c.peer_alias
                ? `${c.peer_alias} (${shortId(c.peer_pubkey ?? '', 8)})`
                : shortId(c.peer_pubkey ?? '—'),
            thousands(c.capacity_sat ?? 0),
            thousands(msatToSat(c.outbound_balance_msat ?? 0)),
            thousands(msatToSat(c.inbound_balance_msat ?? 0)),
            asset,
            shortId(c.channel_id ?? '—', 12),
          ];
        }),
      },
      after: [msg.context(`Close one with \`channel close ${node.name} <channel>\` (the id as shown is enough).`)],
    };
  },
});

/** A channel id as `channel list` shows it (a prefix, maybe with its `…`), or whole. */
const channelIdArg = () =>
  z
    .string()
    .trim()
    .transform((v) => v.replace(/(…|\.\.\.)$/, ''))
    .pipe(z.string().regex(/^[0-9a-fA-F]{8,64}$/, 'a channel id, or its first 8+ hex digits as `channel list` shows it'));

const closeArgs = z.object({
  node: nodeArg(),
  channel_id: channelIdArg().describe('Channel id, or its start as `channel list` shows it'),
  peer_pubkey: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('The channel peer: its pubkey, or the name of one of your nodes (default: the channel’s peer)'),
  force: flag().default(false).describe('Force-close without the peer (funds are locked for a while)'),
});

/** `bob (our node) 03ab…`, `alias 03ab…` or the pubkey shortened. */
function peerText(ours: Map<string, string>, pubkey: string, alias?: string | null): Inline[] {
  const name = ours.get(pubkey.toLowerCase());
  const lead = name ? `${name} (our node) ` : alias ? `${alias} ` : '';
  return [...(lead ? [lead] : []), { code: shortId(pubkey, 20) }];
}

/** closePlan once per attempt: the check and the confirmation's preview share it. */
const closePlan = (ctx: CommandContext<z.infer<typeof closeArgs>>) => readOnce(ctx, 'channel close plan', () => readClosePlan(ctx));

/** The channel `channel close` means (by a prefix of its id) and its peer; refused when there is none or several. */
async function readClosePlan(ctx: CommandContext<z.infer<typeof closeArgs>>) {
  const { node, api } = nodeClient(ctx);
  const wanted = ctx.args.channel_id.toLowerCase();
  const { channels = [] } = await api.listchannels();
  const matches = channels.filter((c) => (c.channel_id ?? '').toLowerCase().startsWith(wanted));
  if (matches.length === 0) {
    throw new UserError(
      'invalid_arguments',
      `${node.name} has no channel ${ctx.args.channel_id}.`,
      `See its channels with \`channel list ${node.name}\`.`,
    );
  }
  if (matches.length > 1) {
    throw new UserError(
      'invalid_arguments',
      `${matches.length} channels of ${node.name} start with ${ctx.args.channel_id}.`,
      'Give more digits of the channel id, or the whole id.',
    );
  }
  const channel = matches[0];
  const channelId = channel.channel_id;
  const given = ctx.args.peer_pubkey !== undefined ? (await resolvePubkey(ctx, ctx.args.peer_pubkey, 'peer_pubkey')).pubkey : undefined;
  const peer = given ?? channel.peer_pubkey;
  if (!peer) {
    throw new UserError(
      'invalid_arguments',
      `The node did not say who the peer of channel ${shortId(channelId, 12)} is.`,
      'Give it: `peer_pubkey=<66 hex digits>`.',
    );
  }
  if (given && channel.peer_pubkey && channel.peer_pubkey.toLowerCase() !== given) {
    throw new UserError(
      'invalid_arguments',
      `Channel ${shortId(channelId, 12)} is with ${channel.peer_pubkey}, not with ${given}.`,
      'Leave peer_pubkey out: the channel’s own peer is used.',
    );
  }
  return { channel, channelId, peer };
}

const close = defineCommand({
  path: 'channel close',
  summary: 'Close a channel (cooperatively, or forced)',
  example: '/rln channel close alice 8129afe1b1e4',
  positional: ['node', 'channel_id', 'peer_pubkey'],
  args: closeArgs,
  role: 'admin',
  confirm: 'button',
  mutates: true,
  // An unknown or ambiguous channel id, or a peer that is not the channel's, is refused before the confirmation.
  async check(ctx) {
    await closePlan(ctx);
    return undefined;
  },
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const { channel, peer } = await closePlan(ctx);
    const ours = await ourNodeNames(ctx);
    const fields: Field[] = [
      { label: 'Channel', value: [{ code: shortId(channel.channel_id ?? '—', 20) }], inline: true },
      { label: 'Peer', value: peerText(ours, peer, channel.peer_alias), inline: true },
      { label: 'Capacity', value: formatSats(channel.capacity_sat ?? 0), inline: true },
      {
        label: 'Local / remote',
        value: `${formatSats(msatToSat(channel.outbound_balance_msat ?? 0))} / ${formatSats(msatToSat(channel.inbound_balance_msat ?? 0))}`,
        inline: true,
      },
    ];
    if (channel.asset_id) {
      const info = (await assetIndex(api)).get(channel.asset_id);
      const p = info?.precision ?? 0;
      fields.push({
        label: 'Asset local / remote',
        value:
          `${withPrecision(channel.asset_local_amount ?? 0, p)} / ${withPrecision(channel.asset_remote_amount ?? 0, p)} ` +
          (info?.label ?? shortId(channel.asset_id, 10)),
        inline: true,
      });
    }
    fields.push({
      label: 'Then',
      value: ctx.args.force
        ? 'forced: the local balance returns on-chain only after a delay, and the peer is not asked.'
        : 'the local balance returns on-chain once the closing transaction confirms.',
    });
    return fields;
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { channel, channelId, peer } = await closePlan(ctx);
    await api.closechannel({ channel_id: channelId, peer_pubkey: peer, force: ctx.args.force });
    return {
      header: titled(ctx.args.force ? 'Channel force-closed' : 'Channel closing', node),
      tone: 'warning',
      blocks: [
        msg.fields([
          { label: 'Channel', value: [{ code: channelId }] },
          { label: 'Peer', value: channel.peer_alias ? [`${channel.peer_alias} `, { code: peer }] : [{ code: peer }] },
        ]),
      ],
    };
  },
});

const id = defineCommand({
  path: 'channel id',
  summary: 'The final channel id of a temporary channel id',
  example: '/rln channel id alice a8b60c8ce3…',
  args: z.object({ node: nodeArg(), temporary_channel_id: z.string().min(1).describe('Temporary channel id (given by `channel open`)') }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { channel_id } = await api.getchannelid({ temporary_channel_id: ctx.args.temporary_channel_id });
    return nodeFacts(node, 'Channel id', [
      { label: 'Temporary', value: [{ code: ctx.args.temporary_channel_id }] },
      { label: 'Channel id', value: [{ code: channel_id ?? '—' }] },
    ]);
  },
});

export const channelCommands: AnyCommand[] = [list, open, close, id];
