import { z } from 'zod';
import { Amount, HTLCStatus, Int, obj, opt } from './common.js';

export const Payment = obj({
  amt_msat: opt(Amount),
  asset_amount: opt(Amount),
  asset_id: opt(z.string()),
  payment_hash: z.string(),
  inbound: z.boolean(),
  status: HTLCStatus,
  created_at: Int,
  updated_at: Int,
  payee_pubkey: z.string(),
  preimage: opt(z.string()),
  description: opt(z.string()),
  description_hash: opt(z.string()),
});
export const SendPaymentRequest = obj({ invoice: z.string().min(1), amt_msat: Amount.optional() });
/** 6887cbf adds `payment_id` and may leave the hash and secret out (an offer). */
export const SendPaymentResponse = obj({
  payment_id: opt(z.string()),
  payment_hash: opt(z.string()),
  payment_secret: opt(z.string()),
  status: HTLCStatus,
});
export const KeysendRequest = obj({
  dest_pubkey: z.string().min(1),
  amt_msat: Amount,
  asset_id: z.string().optional(),
  asset_amount: Amount.optional(),
});
export const KeysendResponse = obj({ payment_hash: z.string(), payment_preimage: z.string(), status: HTLCStatus });
export const ListPaymentsResponse = obj({ payments: z.array(Payment) });
export const GetPaymentRequest = obj({ payment_hash: z.string().min(1) });
export const GetPaymentResponse = obj({ payment: Payment });
