import { z } from 'zod';
import { Amount, AssetSchema, Assignment, BitcoinNetwork, Int, obj, openEnum, opt } from './common.js';

export const LNInvoiceRequest = obj({
  amt_msat: Amount.optional(),
  expiry_sec: Int.positive().optional(),
  asset_id: z.string().optional(),
  asset_amount: Amount.optional(),
  /** 6887cbf (a5c10d4): what the invoice is for, or the SHA-256 of a longer text; not both. */
  description: z.string().optional(),
  description_hash: z.string().optional(),
});
export const LNInvoiceResponse = obj({ invoice: z.string() });

/**
 * `invoice rgb`'s one meaning on both generations: an expiry (a time, or seconds from now) and the
 * transport endpoints. f379330 takes `duration_seconds` and no endpoints (the node uses the proxy it was
 * unlocked with); 6887cbf takes `expiration_timestamp` and the endpoints (empty: out of band).
 */
export const RgbInvoiceRequest = obj({
  min_confirmations: Int.optional(),
  asset_id: z.string().optional(),
  assignment: Assignment.optional(),
  duration_seconds: Int.positive().optional(),
  expiration_timestamp: Int.positive().optional(),
  witness: z.boolean().optional(),
  transport_endpoints: z.array(z.string().min(1)).optional(),
}).optional();
export const RgbInvoiceF379330 = z.strictObject({
  min_confirmations: Int.min(0),
  asset_id: z.string().optional(),
  assignment: Assignment.optional(),
  duration_seconds: Int.positive().optional(),
  witness: z.boolean(),
});
export const RgbInvoiceG6887cbf = z.strictObject({
  min_confirmations: Int.min(0),
  asset_id: z.string().optional(),
  assignment: Assignment.optional(),
  expiration_timestamp: Int.positive(),
  witness: z.boolean(),
  transport_endpoints: z.array(z.string().min(1)),
});
export const RgbInvoiceResponse = obj({
  recipient_id: z.string(),
  invoice: z.string(),
  expiration_timestamp: opt(Int),
  batch_transfer_idx: Int,
});

export const InvoiceRequest = obj({ invoice: z.string().min(1) });
export const DecodeLNInvoiceResponse = obj({
  amt_msat: opt(Amount),
  expiry_sec: Int,
  timestamp: Int,
  asset_id: opt(z.string()),
  asset_amount: opt(Amount),
  payment_hash: z.string(),
  payment_secret: z.string(),
  payee_pubkey: opt(z.string()),
  network: BitcoinNetwork,
  /** 6887cbf (a5c10d4). */
  description: opt(z.string()),
  description_hash: opt(z.string()),
});
export const DecodeRGBInvoiceResponse = obj({
  recipient_id: z.string(),
  recipient_type: openEnum(['Blind', 'Witness']),
  asset_schema: opt(AssetSchema),
  asset_id: opt(z.string()),
  assignment: Assignment,
  network: BitcoinNetwork,
  expiration_timestamp: opt(Int),
  transport_endpoints: z.array(z.string()),
});
export const InvoiceStatusResponse = obj({ status: openEnum(['Pending', 'Succeeded', 'Failed', 'Expired']) });
