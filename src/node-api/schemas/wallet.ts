import { z } from 'zod';
import { Amount, Empty, Int, obj, openEnum, opt, SkipSync } from './common.js';

export const AddressRequest = Empty.optional();
export const AddressResponse = obj({ address: z.string() });

const BtcBalance = obj({ settled: Amount, future: Amount, spendable: Amount });
export const BtcBalanceRequest = SkipSync.optional();
export const BtcBalanceResponse = obj({ vanilla: BtcBalance, colored: BtcBalance });

/** `settled_only` (only settled allocations) is read from 6887cbf on, which requires it. */
export const ListUnspentsRequest = obj({ skip_sync: z.boolean().optional(), settled_only: z.boolean().optional() }).optional();
export const ListUnspentsF379330 = z.strictObject({ skip_sync: z.boolean() });
export const ListUnspentsG6887cbf = z.strictObject({ settled_only: z.boolean(), skip_sync: z.boolean() });
export const ListUnspentsResponse = obj({
  unspents: z.array(
    obj({
      utxo: obj({ outpoint: z.string(), btc_amount: Amount, colorable: z.boolean() }),
      rgb_allocations: z.array(
        obj({
          asset_id: opt(z.string()),
          assignment: opt(obj({ type: z.string(), value: opt(Amount) })),
          settled: z.boolean(),
        }),
      ),
    }),
  ),
});

export const CreateUtxosRequest = obj({
  up_to: z.boolean().optional(),
  num: Int.nonnegative().optional(),
  size: Amount.optional(),
  fee_rate: z.number().positive().optional(),
  skip_sync: z.boolean().optional(),
}).optional();

export const SendBtcRequest = obj({
  amount: Amount,
  address: z.string().min(1),
  fee_rate: z.number().positive().optional(),
  skip_sync: z.boolean().optional(),
});
export const SendBtcResponse = obj({ txid: z.string() });

export const ListTransactionsRequest = SkipSync.optional();
export const ListTransactionsResponse = obj({
  transactions: z.array(
    obj({
      /** 6887cbf replaces User with SendBtc and Incoming; other values are kept as they came. */
      transaction_type: openEnum(['RgbSend', 'Drain', 'CreateUtxos', 'User', 'SendBtc', 'Incoming']),
      txid: z.string(),
      received: Amount,
      sent: Amount,
      fee: Amount,
      confirmation_time: opt(obj({ height: Int, timestamp: Int })),
    }),
  ),
});

export const EstimateFeeRequest = obj({ blocks: Int.positive() });
export const EstimateFeeResponse = obj({ fee_rate: z.number() });

export const SignMessageRequest = obj({ message: z.string() });
export const SignMessageResponse = obj({ signed_message: z.string() });
