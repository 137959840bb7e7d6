import { z } from 'zod';
import { AnyAssignment, Amount, AssetSchema, AssetSchemaName, Assignment, AssignmentFungible, Int, obj, openEnum, opt } from './common.js';

export const AssetBalance = obj({
  settled: Amount,
  future: Amount,
  spendable: Amount,
  offchain_outbound: opt(Amount),
  offchain_inbound: opt(Amount),
});
const Media = obj({ file_path: z.string(), mime: z.string(), digest: opt(z.string()) });

const assetBase = {
  asset_id: z.string(),
  name: z.string(),
  details: opt(z.string()),
  precision: Int,
  timestamp: Int,
  added_at: Int,
  balance: AssetBalance,
};
export const AssetNIA = obj({ ...assetBase, ticker: z.string(), issued_supply: Amount, media: opt(Media) });
export const AssetCFA = obj({ ...assetBase, issued_supply: Amount, media: opt(Media) });
const TokenLight = obj({
  index: Int,
  ticker: opt(z.string()),
  name: opt(z.string()),
  details: opt(z.string()),
  embedded_media: opt(z.boolean()),
  media: opt(Media),
  attachments: opt(z.record(z.string(), Media)),
  reserves: opt(z.boolean()),
});
export const AssetUDA = obj({ ...assetBase, ticker: z.string(), token: opt(TokenLight) });
/** An inflatable fungible asset (6887cbf). */
export const AssetIFA = obj({
  ...assetBase,
  ticker: z.string(),
  initial_supply: Amount,
  max_supply: Amount,
  known_circulating_supply: Amount,
  media: opt(Media),
  reject_list_url: opt(z.string()),
});

export const IssueAssetNIARequest = obj({
  amounts: z.array(Amount).min(1),
  ticker: z.string().min(1),
  name: z.string().min(1),
  precision: Int.min(0),
});
export const IssueAssetNIAResponse = obj({ asset: AssetNIA });
export const IssueAssetCFARequest = obj({
  amounts: z.array(Amount).min(1),
  name: z.string().min(1),
  details: z.string().optional(),
  precision: Int.min(0),
  file_digest: z.string().optional(),
});
export const IssueAssetCFAResponse = obj({ asset: AssetCFA });
export const IssueAssetUDARequest = obj({
  ticker: z.string().min(1),
  name: z.string().min(1),
  details: z.string().optional(),
  precision: Int.min(0),
  media_file_digest: z.string().optional(),
  attachments_file_digests: z.array(z.string()).optional(),
});
export const IssueAssetUDAResponse = obj({ asset: AssetUDA });

export const IssueAssetIFARequest = obj({
  amounts: z.array(Amount).min(1),
  inflation_amounts: z.array(Amount),
  ticker: z.string().min(1),
  name: z.string().min(1),
  precision: Int.min(0),
  reject_list_url: z.string().optional(),
});
export const IssueAssetIFAResponse = obj({ asset: AssetIFA });
export const InflateRequest = obj({
  asset_id: z.string().min(1),
  inflation_amounts: z.array(Amount).min(1),
  fee_rate: Int.positive(),
  min_confirmations: Int.min(0),
});
export const InflateResponse = obj({ txid: z.string() });

export const ListAssetsRequest = obj({ filter_asset_schemas: z.array(AssetSchemaName) }).optional();
export const ListAssetsResponse = obj({
  nia: opt(z.array(AssetNIA)),
  uda: opt(z.array(AssetUDA)),
  cfa: opt(z.array(AssetCFA)),
  ifa: opt(z.array(AssetIFA)),
});

export const AssetIdRequest = obj({ asset_id: z.string().min(1) });
export const AssetBalanceResponse = AssetBalance;
export const AssetMetadataResponse = obj({
  asset_schema: AssetSchema,
  initial_supply: opt(Amount),
  max_supply: opt(Amount),
  known_circulating_supply: opt(Amount),
  timestamp: Int,
  name: z.string(),
  precision: Int,
  ticker: opt(z.string()),
  details: opt(z.string()),
  token: opt(obj({ index: Int, ticker: opt(z.string()), name: opt(z.string()), details: opt(z.string()), media: opt(Media) })),
});

export const GetAssetMediaRequest = obj({ digest: z.string().min(1) });
export const GetAssetMediaResponse = obj({ bytes_hex: z.string() });
/** Sent as multipart/form-data (field `file`), as RLN expects. */
export const PostAssetMediaRequest = z.object({
  file: z.instanceof(Uint8Array),
  mime: z.string().optional(),
  filename: z.string().optional(),
});
export const PostAssetMediaResponse = obj({ digest: z.string() });

const WitnessData = obj({ amount_sat: Amount, blinding: opt(Amount) });

/**
 * `asset send`'s one meaning on both generations: one recipient of one asset. The client sends it
 * to `/sendasset` (f379330) or as a one-entry `recipient_map` to `/sendrgb` (6887cbf).
 */
export const SendAssetRequest = obj({
  asset_id: z.string().min(1),
  assignment: AssignmentFungible,
  recipient_id: z.string().min(1),
  witness_data: WitnessData.optional(),
  donation: z.boolean().optional(),
  fee_rate: Int.positive().optional(),
  min_confirmations: Int.min(0).optional(),
  transport_endpoints: z.array(z.string()).optional(),
  skip_sync: z.boolean().optional(),
  /** When the transfer expires (unix seconds): 6887cbf only; default a day from now. */
  expiration_timestamp: Int.positive().optional(),
});
export const SendAssetResponse = obj({ txid: z.string() });

/** `/sendasset` as f379330 reads it (every field is required by the node). */
export const SendAssetF379330 = z.strictObject({
  asset_id: z.string().min(1),
  assignment: AssignmentFungible,
  recipient_id: z.string().min(1),
  witness_data: WitnessData.optional(),
  donation: z.boolean(),
  fee_rate: Int.positive(),
  min_confirmations: Int.min(0),
  transport_endpoints: z.array(z.string()),
  skip_sync: z.boolean(),
});
const Recipient = z.strictObject({
  recipient_id: z.string().min(1),
  witness_data: WitnessData.optional(),
  assignment: Assignment,
  transport_endpoints: z.array(z.string()),
});
/** `/sendrgb` (6887cbf): several recipients of several assets in one transaction. */
export const SendRgbRequest = z.strictObject({
  donation: z.boolean(),
  fee_rate: Int.positive(),
  min_confirmations: Int.min(0),
  expiration_timestamp: Int.positive(),
  recipient_map: z.record(z.string().min(1), z.array(Recipient).min(1)),
});
export const SendRgbResponse = obj({ txid: z.string() });

/** Transfer statuses: 6887cbf adds Initiated, WaitingSafeHeight and WaitingBroadcast; others are kept as they came. */
export const TransferStatus = openEnum([
  'Initiated',
  'WaitingCounterparty',
  'WaitingSafeHeight',
  'WaitingConfirmations',
  'WaitingBroadcast',
  'Settled',
  'Failed',
]);
/** Transfer kinds: 6887cbf adds Burn. */
export const TransferKind = openEnum(['Issuance', 'ReceiveBlind', 'ReceiveWitness', 'Send', 'Inflation', 'Burn']);
export const Transfer = obj({
  idx: Int,
  created_at: Int,
  updated_at: Int,
  status: TransferStatus,
  requested_assignment: opt(AnyAssignment),
  assignments: z.array(AnyAssignment),
  kind: TransferKind,
  txid: opt(z.string()),
  recipient_id: opt(z.string()),
  receive_utxo: opt(z.string()),
  change_utxo: opt(z.string()),
  /** f379330's name of the expiry. */
  expiration: opt(Int),
  /** 6887cbf's name of the expiry. */
  expiration_timestamp: opt(Int),
  transport_endpoints: z.array(obj({ endpoint: z.string(), transport_type: z.string(), used: z.boolean() })),
});
/** `asset transfers`' one meaning: the transfers of one asset (f379330 needs one), or of every asset (6887cbf). */
export const ListTransfersRequest = obj({ asset_id: z.string().min(1).optional(), txid: z.string().min(1).optional() }).optional();
export const ListTransfersF379330 = z.strictObject({ asset_id: z.string().min(1) });
const AssetFilter = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('AnyOrNone') }),
  z.strictObject({ type: z.literal('None') }),
  z.strictObject({ type: z.literal('Id'), value: z.string().min(1) }),
]);
export const ListTransfersG6887cbf = z.strictObject({ asset_filter: AssetFilter, txid: z.string().min(1).optional() });
export const ListTransfersResponse = obj({ transfers: z.array(Transfer) });

/** `asset refresh`: f379330 takes `skip_sync`; 6887cbf also an asset and a filter (empty: every transfer). */
export const RefreshRequest = obj({ skip_sync: z.boolean().optional(), asset_id: z.string().min(1).optional() }).optional();
export const RefreshF379330 = z.strictObject({ skip_sync: z.boolean() });
export const RefreshG6887cbf = z.strictObject({
  asset_id: z.string().min(1).optional(),
  filter: z.array(z.strictObject({ status: z.enum(['WaitingCounterparty', 'WaitingConfirmations']), incoming: z.boolean() })),
  skip_sync: z.boolean(),
});
/** f379330 answers `{}`; 6887cbf what changed, per transfer idx. */
export const RefreshResponse = obj({
  transfers: opt(
    z.record(z.string(), obj({ updated_status: opt(TransferStatus), failure: opt(obj({ name: z.string(), message: z.string() })) })),
  ),
});
export const FailTransfersRequest = obj({
  batch_transfer_idx: Int.optional(),
  no_asset_only: z.boolean().optional(),
  skip_sync: z.boolean().optional(),
}).optional();
export const FailTransfersResponse = obj({ transfers_changed: z.boolean() });

export const GetConsignmentRequest = obj({ asset_id: z.string().min(1), txid: z.string().min(1) });
export const GetConsignmentResponse = obj({ bytes_hex: z.string() });
export const ProvideOutOfBandAckRequest = obj({ recipient_id: z.string().min(1) });
export const ProvideOutOfBandAckResponse = obj({ operation: opt(obj({ txid: z.string(), batch_transfer_idx: Int, entropy: Amount })) });
/** Sent as multipart/form-data (field `file`), as RLN expects. */
export const ProvideOutOfBandConsignmentRequest = z.object({
  file: z.instanceof(Uint8Array),
  mime: z.string().optional(),
  filename: z.string().optional(),
});
/** The receiver's transfers the consignment changed, by index: the new status, or why it failed. */
export const ProvideOutOfBandConsignmentResponse = obj({
  transfers: z.record(z.string(), obj({ updated_status: opt(z.string()), failure: opt(obj({ name: z.string(), message: z.string() })) })),
});
