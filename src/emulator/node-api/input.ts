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

/** Reads an optional field (absent or null: undefined); one `accepts` refuses is a 400 saying it must be `type`. */
const optional =
  <T>(type: string, accepts: (v: unknown) => boolean) =>
  (body: Body, field: string): T | undefined => {
    const v = body[field];
    if (v === undefined || v === null) return undefined;
    if (!accepts(v)) throw wrongType(field, type);
    return v as T;
  };

export const optString = optional<string>('a string', (v) => typeof v === 'string');
export const optBool = optional<boolean>('a boolean', (v) => typeof v === 'boolean');
export const optNumber = optional<number>('a number', (v) => typeof v === 'number' && Number.isFinite(v));
export const optStringArray = optional<string[]>('an array of strings', (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'));

/** The same reader for a field that must be there: absent is a 400 naming it. */
const required =
  <T>(read: (body: Body, field: string) => T | undefined) =>
  (body: Body, field: string): T => {
    const v = read(body, field);
    if (v === undefined) throw missing(field);
    return v;
  };

export const reqString = required(optString);
export const reqInt = required(optInt);

/** A non-negative integer (u64 in RLN); a bigint within the safe range is accepted too. */
export function optInt(body: Body, field: string): number | undefined {
  let v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER)) v = Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw wrongType(field, 'a non-negative integer');
  return v;
}

export function optIntArray(body: Body, field: string): number[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw wrongType(field, 'an array of integers');
  return v.map((_, i) => optInt(v as unknown as Body, String(i)) ?? 0);
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
