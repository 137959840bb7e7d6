/**
 * Asks one node's API for what a report needs. Throws what the client throws; the caller
 * turns it into a NodeProblem.
 */
import type { AssetBalanceShape, AssetShape, ChannelShape, ReportNodeApi } from './node-api-shape.js';
import { big } from './node-api-shape.js';
import type { AssetBalanceLine, BalanceData, ChannelData, ChannelLine, ChannelState } from './types.js';
import { shortId } from '../vocabulary/index.js';

interface AssetMeta {
  assetId: string;
  label: string;
  schema: 'Nia' | 'Uda' | 'Cfa';
  precision: number;
}

const LABEL_MAX = 16;

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function assetMetas(list: { nia?: AssetShape[] | null; uda?: AssetShape[] | null; cfa?: AssetShape[] | null }): AssetMeta[] {
  const out: AssetMeta[] = [];
  const add = (schema: AssetMeta['schema'], items: AssetShape[] | null | undefined) => {
    for (const a of items ?? []) {
      const raw = schema === 'Cfa' ? a.name || a.ticker : a.ticker || a.name;
      out.push({
        assetId: a.asset_id,
        label: clip(raw || shortId(a.asset_id, 12), LABEL_MAX),
        schema,
        precision: Number(a.precision ?? 0),
      });
    }
  };
  add('Nia', list.nia);
  add('Cfa', list.cfa);
  add('Uda', list.uda);
  return out;
}

function channelState(c: ChannelShape): ChannelState {
  if (c.status === 'Opening') return 'opening';
  if (c.status === 'Closing') return 'closing';
  return c.is_usable ? 'usable' : 'not_usable';
}

function channelLine(c: ChannelShape, assets: Map<string, AssetMeta>): ChannelLine {
  const pubkey = c.peer_pubkey ?? '';
  const alias = (c.peer_alias ?? '').trim();
  const meta = c.asset_id ? assets.get(c.asset_id) : undefined;
  return {
    channelId: c.channel_id,
    peer: clip(alias || shortId(pubkey, 10) || '?', 14),
    peerPubkey: pubkey,
    state: channelState(c),
    public: c.public !== false,
    capacitySat: big(c.capacity_sat),
    localSat: big(c.local_balance_sat),
    sendableSat: big(c.outbound_balance_msat) / 1000n,
    receivableSat: big(c.inbound_balance_msat) / 1000n,
    asset: c.asset_id
      ? {
          assetId: c.asset_id,
          label: meta?.label ?? shortId(c.asset_id, 12),
          precision: meta?.precision ?? 0,
          local: big(c.asset_local_amount),
          remote: big(c.asset_remote_amount),
        }
      : undefined,
  };
}

const ALL_SCHEMAS: Array<'Nia' | 'Uda' | 'Cfa'> = ['Nia', 'Cfa', 'Uda'];

/** The node's network and block height, for the header of its own section; absent when the report shows no section per node. */
async function chainOf(api: ReportNodeApi, shown: boolean): Promise<Pick<BalanceData, 'network' | 'height'>> {
  if (!shown) return {};
  const net = await api.networkinfo();
  return {
    network: net.network ?? undefined,
    height: net.height === null || net.height === undefined ? undefined : big(net.height),
  };
}

/**
 * `chainShown`: whether the report shows this node's network and block height. A report of many
 * nodes shows one row each and no height, so it does not ask /networkinfo (at 2,000 nodes, one
 * call in four of a balance report).
 */
export async function gatherBalance(api: ReportNodeApi, chainShown: boolean): Promise<BalanceData> {
  const [chain, btc, chans, assetList] = await Promise.all([
    chainOf(api, chainShown),
    api.btcbalance({ skip_sync: false }),
    api.listchannels(),
    api.listassets({ filter_asset_schemas: ALL_SCHEMAS }),
  ]);
  const metas = assetMetas(assetList);
  // /listassets embeds each asset's balance (both API generations; 6887cbf's OpenAPI requires it,
  // f379330's node sends it as well): the node's report is one round of calls. /assetbalance only
  // for an asset listed without one.
  const embedded = new Map<string, AssetBalanceShape>();
  for (const a of [...(assetList.nia ?? []), ...(assetList.cfa ?? []), ...(assetList.uda ?? [])]) {
    if (a.balance) embedded.set(a.asset_id, a.balance);
  }
  const balances = await Promise.all(metas.map(async (m) => embedded.get(m.assetId) ?? api.assetbalance({ asset_id: m.assetId })));
  const assets: AssetBalanceLine[] = metas.map((m, i) => ({
    ...m,
    spendable: big(balances[i].spendable),
    settled: big(balances[i].settled),
    outbound: big(balances[i].offchain_outbound),
    inbound: big(balances[i].offchain_inbound),
  }));
  const bucket = (b: { settled?: unknown; future?: unknown; spendable?: unknown } | null | undefined) => ({
    settled: big(b?.settled as never),
    future: big(b?.future as never),
    spendable: big(b?.spendable as never),
  });
  let local = 0n;
  let sendable = 0n;
  let receivable = 0n;
  for (const c of chans.channels ?? []) {
    local += big(c.local_balance_sat);
    if (c.is_usable) sendable += big(c.outbound_balance_msat);
    receivable += big(c.inbound_balance_msat);
  }
  return {
    ...chain,
    btc: { vanilla: bucket(btc.vanilla), colored: bucket(btc.colored) },
    ln: { local, sendable: sendable / 1000n, receivable: receivable / 1000n },
    assets,
  };
}

/** `chainShown` as for gatherBalance. */
export async function gatherChannels(api: ReportNodeApi, chainShown: boolean): Promise<ChannelData> {
  const [chain, chans] = await Promise.all([chainOf(api, chainShown), api.listchannels()]);
  const channels = chans.channels ?? [];
  let metas: AssetMeta[] = [];
  if (channels.some((c) => c.asset_id)) {
    // Tickers and precision for the asset columns; without them the raw amounts and ids still show.
    metas = await api.listassets({ filter_asset_schemas: ALL_SCHEMAS }).then(assetMetas, () => []);
  }
  const byId = new Map(metas.map((m) => [m.assetId, m]));
  return {
    ...chain,
    channels: channels.map((c) => channelLine(c, byId)),
  };
}
