import { z } from 'zod';
import { Amount, AssetSchema, Assignment, BitcoinNetwork, Int, obj, opt } from './common.js';

export const LNInvoiceRequest = obj({ amt_msat: Amount.optional(), expiry_sec: Int.positive().optional(), asset_id: z.string().optional(), asset_amount: Amount.optional() });
export const LNInvoiceResponse = obj({ invoice: z.string() });

export const RgbInvoiceRequest = obj({
  min_confirmations: Int.optional(), asset_id: z.string().optional(), assignment: Assignment.optional(),
  duration_seconds: Int.positive().optional(), witness: z.boolean().optional(),
}).optional();
export const RgbInvoiceResponse = obj({ recipient_id: z.string(), invoice: z.string(), expiration_timestamp: opt(Int), batch_transfer_idx: Int });

export const InvoiceRequest = obj({ invoice: z.string().min(1) });
export const DecodeLNInvoiceResponse = obj({
  amt_msat: opt(Amount), expiry_sec: Int, timestamp: Int, asset_id: opt(z.string()), asset_amount: opt(Amount),
  payment_hash: z.string(), payment_secret: z.string(), payee_pubkey: opt(z.string()), network: BitcoinNetwork,
});
export const DecodeRGBInvoiceResponse = obj({
  recipient_id: z.string(), recipient_type: z.enum(['Blind', 'Witness']), asset_schema: opt(AssetSchema), asset_id: opt(z.string()),
  assignment: Assignment, network: BitcoinNetwork, expiration_timestamp: opt(Int), transport_endpoints: z.array(z.string()),
});
export const InvoiceStatusResponse = obj({ status: z.enum(['Pending', 'Succeeded', 'Failed', 'Expired']) });
