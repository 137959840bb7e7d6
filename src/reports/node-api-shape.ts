/**
 * The part of the node API client (src/node-api `NodeApiClient`) the reports use, typed
 * leniently so the real client is assignable to it whatever its optional fields.
 */
import type { Amount } from '../vocabulary/index.js';

type N = Amount | null | undefined;

export interface BtcBalanceShape {
  settled?: N;
  future?: N;
  spendable?: N;
}

export interface AssetBalanceShape {
  settled?: N;
  future?: N;
  spendable?: N;
  offchain_outbound?: N;
  offchain_inbound?: N;
}

export interface AssetShape {
  asset_id: string;
  ticker?: string | null;
  name?: string | null;
  precision?: number | bigint | null;
  balance?: AssetBalanceShape | null;
}

export interface ChannelShape {
  channel_id: string;
  peer_pubkey?: string | null;
  peer_alias?: string | null;
  status?: string | null;
  ready?: boolean | null;
  is_usable?: boolean | null;
  public?: boolean | null;
  capacity_sat?: N;
  local_balance_sat?: N;
  outbound_balance_msat?: N;
  inbound_balance_msat?: N;
  asset_id?: string | null;
  asset_local_amount?: N;
  asset_remote_amount?: N;
}

export interface ReportNodeApi {
  btcbalance(req: { skip_sync: boolean }): Promise<{ vanilla?: BtcBalanceShape | null; colored?: BtcBalanceShape | null }>;
  listassets(req: { filter_asset_schemas: Array<'Nia' | 'Uda' | 'Cfa'> }): Promise<{
    nia?: AssetShape[] | null;
    uda?: AssetShape[] | null;
    cfa?: AssetShape[] | null;
  }>;
  assetbalance(req: { asset_id: string }): Promise<AssetBalanceShape>;
  listchannels(): Promise<{ channels?: ChannelShape[] | null }>;
  networkinfo(): Promise<{ network?: string | null; height?: N }>;
}

/** u64 amounts as bigint, never through a float; missing is 0. */
export function big(a: N): bigint {
  if (a === null || a === undefined) return 0n;
  if (typeof a === 'bigint') return a;
  return Number.isFinite(a) ? BigInt(Math.trunc(a)) : 0n;
}
