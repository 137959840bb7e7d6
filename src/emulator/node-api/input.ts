import { badRequest } from './errors.js';
import type { NodeState, WorldState } from './state.js';

export type Body = Record<string, unknown>;

/** What a handler gets: the world, the node it runs on, and the request body (an object). */
export interface Ctx {
  world: WorldState;
  node: NodeState;
  body: Body;
}

export type Handler = (ctx: Ctx) => unknown;

const missing = (field: string) => badRequest('InvalidRequest', `Failed to deserialize the JSON body: missing field \`${field}\``);
const wrongType = (field: string, type: string) =>
  badRequest('InvalidRequest', `Failed to deserialize the JSON body: field \`${field}\` must be ${type}`);

export function optString(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw wrongType(field, 'a string');
  return v;
}

export function reqString(body: Body, field: string): string {
  const v = optString(body, field);
  if (v === undefined) throw missing(field);
  return v;
}

export function optBool(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw wrongType(field, 'a boolean');
  return v;
}

/** A non-negative integer (u64 in RLN); a bigint within the safe range is accepted too. */
export function optInt(body: Body, field: string): number | undefined {
  let v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) v = Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw wrongType(field, 'a non-negative integer');
  return v;
}

export function reqInt(body: Body, field: string): number {
  const v = optInt(body, field);
  if (v === undefined) throw missing(field);
  return v;
}

export function optNumber(body: Body, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw wrongType(field, 'a number');
  return v;
}

export function optIntArray(body: Body, field: string): number[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw wrongType(field, 'an array of integers');
  return v.map((_, i) => optInt(v as unknown as Body, String(i)) ?? 0);
}

export function optStringArray(body: Body, field: string): string[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw wrongType(field, 'an array of strings');
  return v as string[];
}

/** A fungible assignment `{ type: 'Fungible', value }`; other kinds are refused with 400. */
export function optFungible(body: Body, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrongType(field, 'an assignment object');
  const a = v as Body;
  if (a.type === 'Any') return undefined;
  if (a.type !== 'Fungible') throw badRequest('InvalidAssignment', `Only Fungible assignments are supported, got ${String(a.type)}`);
  return reqInt(a, 'value');
}

export function validFeeRate(rate: number | undefined): number {
  const r = rate ?? 1;
  if (r < 1) throw badRequest('InvalidFeeRate', `Invalid fee rate: ${r} is below the minimum of 1 sat/vB`);
  return r;
}
