import { z } from 'zod';
import { Amount, AssetSchema, AssignmentFungible, Int, obj, opt, SkipSync } from './common.js';

export const AssetBalance = obj({ settled: Amount, future: Amount, spendable: Amount, offchain_outbound: opt(Amount), offchain_inbound: opt(Amount) });
const Media = obj({ file_path: z.string(), mime: z.string(), digest: opt(z.string()) });

const assetBase = {
  asset_id: z.string(), name: z.string(), details: opt(z.string()), precision: Int, timestamp: Int, added_at: Int,
  balance: AssetBalance,
};
export const AssetNIA = obj({ ...assetBase, ticker: z.string(), issued_supply: Amount, media: opt(Media) });
export const AssetCFA = obj({ ...assetBase, issued_supply: Amount, media: opt(Media) });
const TokenLight = obj({
  index: Int, ticker: opt(z.string()), name: opt(z.string()), details: opt(z.string()), embedded_media: opt(z.boolean()),
  media: opt(Media), attachments: opt(z.record(z.string(), Media)), reserves: opt(z.boolean()),
});
export const AssetUDA = obj({ ...assetBase, ticker: z.string(), token: opt(TokenLight) });

export const IssueAssetNIARequest = obj({ amounts: z.array(Amount).min(1), ticker: z.string().min(1), name: z.string().min(1), precision: Int.min(0) });
export const IssueAssetNIAResponse = obj({ asset: AssetNIA });
export const IssueAssetCFARequest = obj({ amounts: z.array(Amount).min(1), name: z.string().min(1), details: z.string().optional(), precision: Int.min(0), file_digest: z.string().optional() });
export const IssueAssetCFAResponse = obj({ asset: AssetCFA });
export const IssueAssetUDARequest = obj({
  ticker: z.string().min(1), name: z.string().min(1), details: z.string().optional(), precision: Int.min(0),
  media_file_digest: z.string().optional(), attachments_file_digests: z.array(z.string()).optional(),
});
export const IssueAssetUDAResponse = obj({ asset: AssetUDA });

export const ListAssetsRequest = obj({ filter_asset_schemas: z.array(AssetSchema) }).optional();
export const ListAssetsResponse = obj({ nia: opt(z.array(AssetNIA)), uda: opt(z.array(AssetUDA)), cfa: opt(z.array(AssetCFA)) });

export const AssetIdRequest = obj({ asset_id: z.string().min(1) });
export const AssetBalanceResponse = AssetBalance;
export const AssetMetadataResponse = obj({
  asset_schema: AssetSchema, initial_supply: opt(Amount), max_supply: opt(Amount), known_circulating_supply: opt(Amount),
  timestamp: Int, name: z.string(), precision: Int, ticker: opt(z.string()), details: opt(z.string()),
  token: opt(obj({ index: Int, ticker: opt(z.string()), name: opt(z.string()), details: opt(z.string()), media: opt(Media) })),
});

export const GetAssetMediaRequest = obj({ digest: z.string().min(1) });
export const GetAssetMediaResponse = obj({ bytes_hex: z.string() });
/** Sent as multipart/form-data (field `file`), as RLN expects. */
export const PostAssetMediaRequest = z.object({ file: z.instanceof(Uint8Array), mime: z.string().optional(), filename: z.string().optional() });
export const PostAssetMediaResponse = obj({ digest: z.string() });

export const SendAssetRequest = obj({
  asset_id: z.string().min(1), assignment: AssignmentFungible, recipient_id: z.string().min(1),
  witness_data: obj({ amount_sat: Amount, blinding: opt(Amount) }).optional(), donation: z.boolean().optional(),
  fee_rate: z.number().positive().optional(), min_confirmations: Int.optional(), transport_endpoints: z.array(z.string()).optional(),
  skip_sync: z.boolean().optional(),
});
export const SendAssetResponse = obj({ txid: z.string() });

export const TransferStatus = z.enum(['WaitingCounterparty', 'WaitingConfirmations', 'Settled', 'Failed']);
export const Transfer = obj({
  idx: Int, created_at: Int, updated_at: Int, status: TransferStatus,
  requested_assignment: opt(obj({ type: z.string(), value: opt(Amount) })),
  assignments: z.array(obj({ type: z.string(), value: opt(Amount) })),
  kind: z.enum(['Issuance', 'ReceiveBlind', 'ReceiveWitness', 'Send', 'Inflation']),
  txid: opt(z.string()), recipient_id: opt(z.string()), receive_utxo: opt(z.string()), change_utxo: opt(z.string()),
  expiration: opt(Int),
  transport_endpoints: z.array(obj({ endpoint: z.string(), transport_type: z.string(), used: z.boolean() })),
});
export const ListTransfersRequest = obj({ asset_id: z.string().min(1).optional() }).optional();
export const ListTransfersResponse = obj({ transfers: z.array(Transfer) });
export const RefreshRequest = SkipSync.optional();
export const FailTransfersRequest = obj({ batch_transfer_idx: Int.optional(), no_asset_only: z.boolean().optional(), skip_sync: z.boolean().optional() }).optional();
export const FailTransfersResponse = obj({ transfers_changed: z.boolean() });
