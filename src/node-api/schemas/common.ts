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

/**
 * An enum of the node API that may grow: the values both generations know are typed, and any
 * other string is kept as it came (a newer image's value is shown, never refused).
 */
export const openEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.string().min(1)]) as unknown as z.ZodType<OpenEnum<T[number]>, OpenEnum<T[number]>>;
/** Known values, or any other string as it came. */
export type OpenEnum<T extends string> = T | (string & {});

export const BitcoinNetwork = openEnum(['Mainnet', 'Testnet', 'Testnet4', 'Signet', 'SignetCustom', 'Regtest']);
/** Asset schemas a request may name (`Ifa` from 6887cbf on). */
export const AssetSchemaName = z.enum(['Nia', 'Uda', 'Cfa', 'Ifa']);
export const AssetSchema = openEnum(['Nia', 'Uda', 'Cfa', 'Ifa']);
export const HTLCStatus = openEnum(['Pending', 'Succeeded', 'Failed']);

export const AssignmentFungible = obj({ type: z.literal('Fungible'), value: Amount });
export const Assignment = z.discriminatedUnion('type', [
  AssignmentFungible,
  obj({ type: z.literal('NonFungible') }),
  obj({ type: z.literal('InflationRight'), value: Amount }),
  obj({ type: z.literal('ReplaceRight') }),
  obj({ type: z.literal('Any') }),
]);
/** An assignment in an answer: any `type` is kept as it came. */
export const AnyAssignment = obj({ type: z.string(), value: opt(Amount) });
export type Assignment = z.infer<typeof Assignment>;
