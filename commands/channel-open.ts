/** `channel open`: a channel to a peer (another node of the account by name), maybe with an RGB asset, some of it given to the peer. */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { formatSats, msatToSat, shortId, thousands } from '../src/vocabulary/index.js';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { needsCapability, requireCapability, type NeedsCapability } from './support/needs-capability.js';
import { assetAmount, checkAssetPair, flag, int, msatAmount, nodeArg, rawFlag, satAmount } from './support/arg-types.js';
import { assetNamed, rawAssetAmount } from './support/asset-amount.js';
import { ourNodeNames } from './support/our-nodes.js';
import { assetAmountText, resolveAssetId } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { peerOfAccountNode } from './support/peer-of-account-node.js';
import { compact, titled } from './support/present.js';
import { channelOpenSpend } from './support/spend.js';
import { capacityRefusal, fundsRefusal } from './support/onchain-checks.js';
import { readOnce } from './support/read-once.js';

const openArgs = z.object({
  node: nodeArg(),
  peer_pubkey_and_opt_addr: z
    .string()
    .trim()
    .regex(
      /^([0-9a-fA-F]{66}(@.+:\d+)?|[A-Za-z0-9][A-Za-z0-9_.-]*)$/,
      'a pubkey, pubkey@host:port, or the name of another node of the account',
    )
    .describe('The peer: pubkey, pubkey@host:port if not connected, or another node of the account'),
  capacity_sat: satAmount()
    .refine((v) => v > 0, 'must be more than 0')
    .describe('Channel capacity in sats, or with a unit: 100k sats, 0.001 BTC'),
  push_msat: msatAmount().default(0).describe('Millisats given to the peer at opening, or with a unit: 10 sat (default 0)'),
  asset_id: z.string().trim().min(1).optional().describe('RGB asset to put in the channel: its rgb: id or ticker'),
  asset_amount: assetAmount().optional().describe('Asset amount in display units: 500 or 500 USDT (raw units with raw=true)'),
  push_asset_amount: assetAmount()
    .optional()
    .describe('Part of asset_amount given to the peer at opening, in display units (6887cbf images)'),
  raw: rawFlag(),
  public: flag().default(true).describe('Announce the channel to the network (default yes)'),
  with_anchors: flag().default(true).describe('Use anchor outputs (default yes)'),
  fee_base_msat: msatAmount().optional().describe('Base routing fee in millisats'),
  fee_proportional_millionths: int().min(0).optional().describe('Proportional routing fee in millionths'),
});

/** `push_asset_amount` came with RLN d419b04 (2026-03-11); `/sync`'s `options` (bf0a18e) came after it. */
const PUSH_ASSET: NeedsCapability = { command: 'channel open … push_asset_amount=', feature: 'giving asset units to the peer at opening' };

/** The usual size of a funding transaction: one input, the channel output and change. */
const FUNDING_VBYTES = 154;

/** openPlan once per attempt: the check and the confirmation's preview share it. */
const openPlan = (ctx: CommandContext<z.infer<typeof openArgs>>, api: ReturnType<typeof nodeClient>['api']) =>
  readOnce(ctx, 'channel open plan', () => readOpenPlan(ctx, api));

/** What `channel open` sends: the peer by pubkey or our node's name, the asset by id or ticker, its amount in raw units. */
async function readOpenPlan(ctx: CommandContext<z.infer<typeof openArgs>>, api: ReturnType<typeof nodeClient>['api']) {
  const node = nodeClient(ctx).node;
  const { node: _n, raw, asset_amount: amountText, push_asset_amount: pushText, ...given } = ctx.args;
  const a: Omit<typeof given, 'asset_id'> & { asset_id?: string; asset_amount?: number; push_asset_amount?: number } = {
    ...given,
    asset_id: assetNamed(given.asset_id, amountText),
  };
  if (pushText !== undefined && (a.asset_id === undefined || amountText === undefined)) {
    throw new UserError(
      'invalid_arguments',
      '`push_asset_amount` gives the peer part of the asset put in the channel: the channel needs an asset.',
      'Give `asset_amount="500 USDT"` with it, e.g. `push_asset_amount="100 USDT"`.',
    );
  }
  checkAssetPair({ asset_id: a.asset_id, asset_amount: amountText });
  let peerName: string | undefined;
  if (!/^[0-9a-fA-F]{66}(@|$)/.test(a.peer_pubkey_and_opt_addr)) {
    const own = await peerOfAccountNode(ctx, node, a.peer_pubkey_and_opt_addr);
    if (!own) {
      throw new UserError(
        'invalid_arguments',
        `${JSON.stringify(a.peer_pubkey_and_opt_addr)} is neither a pubkey nor a node of this account.`,
        'Give the peer’s pubkey (pubkey@host:port if not connected), or the name of one of your nodes: see `node list`.',
      );
    }
    a.peer_pubkey_and_opt_addr = own.peer;
    peerName = own.name;
  } else {
    peerName = (await ourNodeNames(ctx)).get(a.peer_pubkey_and_opt_addr.slice(0, 66).toLowerCase());
  }
  if (a.asset_id) a.asset_id = await resolveAssetId(api, node.name, a.asset_id);
  if (a.asset_id && amountText !== undefined) {
    a.asset_amount = await rawAssetAmount(api, a.asset_id, amountText, { arg: 'asset_amount', raw, example: '`asset_amount="500 USDT"`' });
  }
  if (a.asset_id && pushText !== undefined) {
    const push = await rawAssetAmount(api, a.asset_id, pushText, {
      arg: 'push_asset_amount',
      raw,
      example: '`push_asset_amount="100 USDT"`',
    });
    if (push > (a.asset_amount ?? 0)) {
      throw new UserError(
        'invalid_arguments',
        `\`push_asset_amount\` (${await assetAmountText(api, a.asset_id, push)}) is more than the channel holds (${await assetAmountText(api, a.asset_id, a.asset_amount ?? 0)}).`,
        'Give the peer at most `asset_amount`.',
      );
    }
    if (push > 0) a.push_asset_amount = push;
  }
  return { a, peerName };
}

export const open = defineCommand({
  path: 'channel open',
  summary: 'Open a channel to a peer, optionally with an RGB asset',
  example: '/rln channel open alice bob 100k sats asset_amount="500 USDT"',
  args: openArgs,
  role: 'admin',
  // Opening commits the capacity on-chain: it is confirmed with the amounts, the peer and the fee.
  confirm: 'button',
  mutates: true,
  spend: channelOpenSpend,
  // The peer and the asset are resolved before the confirmation: a wrong name is refused at once;
  // so is a capacity outside the node's channel size limits, or more than its wallet can spend.
  async check(ctx) {
    const { node, api } = nodeClient(ctx);
    const { a } = await openPlan(ctx, api);
    return (
      (a.push_asset_amount !== undefined ? await needsCapability(ctx, 'sync', PUSH_ASSET) : undefined) ??
      (await capacityRefusal(api, node.name, a.capacity_sat, !!a.asset_id)) ??
      (await fundsRefusal(api, node.name, a.capacity_sat))
    );
  },
  async preview(ctx) {
    const { api } = nodeClient(ctx);
    const { a, peerName } = await openPlan(ctx, api);
    const rate = await api
      .estimatefee({ blocks: 6 })
      .then((r) => Number(r.fee_rate))
      .catch(() => undefined);
    return [
      {
        label: 'Peer',
        value: [...(peerName ? [`${peerName} (our node) `] : []), { code: shortId(a.peer_pubkey_and_opt_addr, 20) }],
        inline: true,
      },
      { label: 'Capacity', value: `${formatSats(a.capacity_sat)} committed on-chain`, inline: true },
      ...(a.push_msat
        ? [{ label: 'Given to the peer', value: `${formatSats(msatToSat(a.push_msat))} (${thousands(a.push_msat)} msat)`, inline: true }]
        : []),
      ...(a.asset_id ? [{ label: 'Asset', value: await assetAmountText(api, a.asset_id, a.asset_amount ?? 0), inline: true }] : []),
      ...(a.asset_id && a.push_asset_amount
        ? [{ label: 'Asset given to the peer', value: await assetAmountText(api, a.asset_id, a.push_asset_amount), inline: true }]
        : []),
      {
        label: 'Estimated fee',
        value:
          rate !== undefined
            ? `about ${formatSats(Math.ceil(rate * FUNDING_VBYTES))} on-chain (${FUNDING_VBYTES} vB at ${rate} sat/vB, the 6-block estimate)`
            : 'the node did not give a fee estimate',
        inline: true,
      },
    ];
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { a, peerName } = await openPlan(ctx, api);
    if (a.push_asset_amount !== undefined) await requireCapability(ctx, 'sync', PUSH_ASSET);
    const { temporary_channel_id } = await api.openchannel(compact(a));
    const assetText = a.asset_id ? await assetAmountText(api, a.asset_id, a.asset_amount ?? 0) : '';
    const pushText = a.asset_id && a.push_asset_amount ? await assetAmountText(api, a.asset_id, a.push_asset_amount) : '';
    return {
      header: titled('Channel opening', node),
      tone: 'info',
      blocks: [
        msg.fields([
          {
            label: 'Peer',
            value: [...(peerName ? [`${peerName} `] : []), { code: shortId(a.peer_pubkey_and_opt_addr, 20) }],
            inline: true,
          },
          { label: 'Capacity', value: formatSats(a.capacity_sat), inline: true },
          ...(a.asset_id ? [{ label: 'Asset', value: assetText, inline: true }] : []),
          ...(pushText ? [{ label: 'Asset given to the peer', value: pushText, inline: true }] : []),
          { label: 'Temporary id', value: [{ code: temporary_channel_id ?? '—' }] },
        ]),
        msg.context(
          `It opens after the funding confirms. Follow it with \`channel list ${node.name}\`; ` +
            `final id: \`channel id ${node.name} ${temporary_channel_id ?? '<temporary id>'}\`.`,
        ),
      ],
    };
  },
});
