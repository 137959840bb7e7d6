import { z } from 'zod';
import { Amount, Int, obj, openEnum, opt } from './common.js';

export const ChannelStatus = openEnum(['Opening', 'Opened', 'Closing']);
export const Channel = obj({
  channel_id: z.string(),
  funding_txid: opt(z.string()),
  peer_pubkey: z.string(),
  peer_alias: opt(z.string()),
  short_channel_id: opt(Amount),
  status: ChannelStatus,
  ready: z.boolean(),
  capacity_sat: Amount,
  local_balance_sat: Amount,
  outbound_balance_msat: Amount,
  inbound_balance_msat: Amount,
  next_outbound_htlc_limit_msat: Amount,
  next_outbound_htlc_minimum_msat: Amount,
  is_usable: z.boolean(),
  public: z.boolean(),
  asset_id: opt(z.string()),
  asset_local_amount: opt(Amount),
  asset_remote_amount: opt(Amount),
});
export const OpenChannelRequest = obj({
  peer_pubkey_and_opt_addr: z.string().min(1),
  capacity_sat: Amount,
  push_msat: Amount.optional(),
  asset_amount: Amount.optional(),
  asset_id: z.string().optional(),
  public: z.boolean().optional(),
  with_anchors: z.boolean().optional(),
  fee_base_msat: Amount.optional(),
  fee_proportional_millionths: Int.optional(),
  temporary_channel_id: z.string().optional(),
  /** 6887cbf: asset units pushed to the peer at opening. */
  push_asset_amount: Amount.optional(),
});
export const OpenChannelResponse = obj({ temporary_channel_id: z.string() });
export const CloseChannelRequest = obj({ channel_id: z.string().min(1), peer_pubkey: z.string().min(1), force: z.boolean().optional() });
export const ListChannelsResponse = obj({ channels: z.array(Channel) });
export const GetChannelIdRequest = obj({ temporary_channel_id: z.string().min(1) });
export const GetChannelIdResponse = obj({ channel_id: z.string() });
