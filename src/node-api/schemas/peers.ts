import { z } from 'zod';
import { Amount, BitcoinNetwork, Int, obj, openEnum } from './common.js';

export const ConnectPeerRequest = obj({ peer_pubkey_and_addr: z.string().min(1) });
export const DisconnectPeerRequest = obj({ peer_pubkey: z.string().min(1) });
export const ListPeersResponse = obj({ peers: z.array(obj({ pubkey: z.string() })) });
export const NetworkInfoResponse = obj({ network: BitcoinNetwork, height: Int });
export const NodeInfoResponse = obj({
  pubkey: z.string(),
  num_channels: Int,
  num_usable_channels: Int,
  local_balance_sat: Amount,
  eventual_close_fees_sat: Amount,
  pending_outbound_payments_sat: Amount,
  num_peers: Int,
  account_xpub_vanilla: z.string().optional(),
  account_xpub_colored: z.string().optional(),
  max_media_upload_size_mb: Int.optional(),
  rgb_htlc_min_msat: Amount.optional(),
  rgb_channel_capacity_min_sat: Amount.optional(),
  channel_capacity_min_sat: Amount.optional(),
  channel_capacity_max_sat: Amount.optional(),
  channel_asset_min_amount: Amount.optional(),
  channel_asset_max_amount: Amount.optional(),
  network_nodes: Amount.optional(),
  network_channels: Amount.optional(),
});
export const CheckIndexerUrlRequest = obj({ indexer_url: z.string().min(1) });
export const CheckIndexerUrlResponse = obj({ indexer_protocol: openEnum(['Electrum', 'Esplora']) });
/** `proxy_endpoint` on both generations: the f379330 document says `proxy_url`, but the node read `proxy_endpoint` (corrected in de0ffac). */
export const CheckProxyEndpointRequest = obj({ proxy_endpoint: z.string().min(1) });
export const SendOnionMessageRequest = obj({ node_ids: z.array(z.string()).min(1), tlv_type: Int, data: z.string() });
