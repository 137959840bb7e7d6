import { z } from 'zod';

/**
 * A u64 amount (sats, msats, raw asset units). JSON numbers above 2^53 are parsed as bigint by the client, never
 * rounded; safe values stay numbers. Requests may pass either.
 */
export const Amount = z.union([z.number().int().nonnegative(), z.bigint().nonnegative()]);
export type Amount = z.infer<typeof Amount>;

/** A small integer (counts, timestamps, precision, indexes). */
export const Int = z.number().int();

export const obj = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);
/** An optional response field: RLN serializes absent values as null, which the client turns into undefined. */
export const opt = <T extends z.ZodType>(s: T) => z.preprocess((v) => (v === null ? undefined : v), s.optional());

export const Empty = obj({});
export const NoBody = z.undefined();
export const SkipSync = obj({ skip_sync: z.boolean().optional() });

export const BitcoinNetwork = z.enum(['Mainnet', 'Testnet', 'Testnet4', 'Signet', 'Regtest']);
export const AssetSchema = z.enum(['Nia', 'Uda', 'Cfa']);
export const HTLCStatus = z.enum(['Pending', 'Succeeded', 'Failed']);

export const AssignmentFungible = obj({ type: z.literal('Fungible'), value: Amount });
export const Assignment = z.discriminatedUnion('type', [
  AssignmentFungible,
  obj({ type: z.literal('NonFungible') }),
  obj({ type: z.literal('InflationRight'), value: Amount }),
  obj({ type: z.literal('ReplaceRight') }),
  obj({ type: z.literal('Any') }),
]);
export type Assignment = z.infer<typeof Assignment>;
