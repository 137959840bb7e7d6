import { z } from 'zod';
import { Amount, Int, obj, openEnum, opt } from './common.js';

export const Swap = obj({
  qty_from: Amount,
  qty_to: Amount,
  from_asset: opt(z.string()),
  to_asset: opt(z.string()),
  payment_hash: z.string(),
  status: openEnum(['Waiting', 'Pending', 'Succeeded', 'Expired', 'Failed']),
  requested_at: Int,
  initiated_at: opt(Int),
  expires_at: opt(Int),
  completed_at: opt(Int),
});
export const MakerInitRequest = obj({
  qty_from: Amount,
  qty_to: Amount,
  from_asset: z.string().optional(),
  to_asset: z.string().optional(),
  timeout_sec: Int.positive().optional(),
});
export const MakerInitResponse = obj({ payment_hash: z.string(), payment_secret: z.string(), swapstring: z.string() });
export const MakerExecuteRequest = obj({
  swapstring: z.string().min(1),
  payment_secret: z.string().min(1),
  taker_pubkey: z.string().min(1),
});
export const TakerRequest = obj({ swapstring: z.string().min(1) });
export const ListSwapsResponse = obj({ maker: z.array(Swap), taker: z.array(Swap) });
export const GetSwapRequest = obj({ payment_hash: z.string().min(1), taker: z.boolean().optional() });
export const GetSwapResponse = obj({ swap: Swap });
export const DecodeSwapstringRequest = obj({ swapstring: z.string().min(1) });
export const DecodeSwapstringResponse = obj({
  qty_from: Amount,
  qty_to: Amount,
  from_asset: opt(z.string()),
  to_asset: opt(z.string()),
  expiry: Int,
  payment_hash: z.string(),
});
