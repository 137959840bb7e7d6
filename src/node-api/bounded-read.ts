/**
 * What a node may send is bounded (issue 27): an answer is read up to NODE_API_MAX_BYTES and
 * refused as it arrives when longer (never held whole), and a long list whose elements do not
 * have the expected shape is one summarised error, not one validation issue per element (a
 * million `null`s made a million issue objects, 690 MiB).
 */
import type { z } from 'zod';

/** The most a node's answer may hold by default (NODE_API_MAX_BYTES). */
export const NODE_API_MAX_BYTES = 16 * 1024 * 1024;

/** `16 MiB`, `512 KiB`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number.isInteger(bytes / 1024 / 1024) ? bytes / 1024 / 1024 : (bytes / 1024 / 1024).toFixed(1)} MiB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}

/** A got request (the promise it returns): cancellable, with progress events. */
interface Cancellable {
  on(event: 'response', fn: (r: { headers: Record<string, string | string[] | undefined> }) => void): unknown;
  on(event: 'downloadProgress', fn: (p: { transferred: number }) => void): unknown;
  cancel(): void;
}

/**
 * Cancels `request` once its answer announces or passes `maxBytes`; returns a function telling
 * whether it did (the request then rejects with got's CancelError).
 */
export function limitAnswer(request: Cancellable, maxBytes: number): () => boolean {
  let over = false;
  const stop = () => {
    if (over) return;
    over = true;
    request.cancel();
  };
  request.on('response', (r) => {
    if (Number(r.headers['content-length']) > maxBytes) stop();
  });
  request.on('downloadProgress', ({ transferred }) => {
    if (transferred > maxBytes) stop();
  });
  return () => over;
}

/** Lists longer than this are checked element by element, stopping at the first bad one. */
const LONG_LIST = 1_000;

interface Def {
  type?: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod?: { def?: Def } })._zod?.def ?? {};

/** The schema under its wrappers (optional, nullable, default, a pipe's input…). */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 10; i++) {
    const d = defOf(s);
    const next = d.innerType ?? (d.type === 'pipe' ? d.in : undefined);
    if (!next) break;
    s = next;
  }
  return s;
}

export interface LongListProblem {
  /** `channels[0]`. */
  path: string;
  length: number;
  message: string;
}

/**
 * The first element of a long list in `value` that its schema refuses, checked one element at a
 * time (each issue dropped before the next is made), or undefined. Lists under objects are
 * followed down the schema; anything else is left to the schema's own parse.
 */
export function firstBadLongList(schema: z.ZodType, value: unknown, path = ''): LongListProblem | undefined {
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === 'array' && d.element && Array.isArray(value)) {
    if (value.length > LONG_LIST) {
      for (let i = 0; i < value.length; i++) {
        const r = d.element.safeParse(value[i]);
        if (!r.success) return { path: `${path}[${i}]`, length: value.length, message: r.error.issues[0]?.message ?? 'unexpected shape' };
      }
    }
    return undefined;
  }
  if (d.type === 'object' && d.shape && value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, sub] of Object.entries(d.shape)) {
      const found = firstBadLongList(sub, (value as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      if (found) return found;
    }
  }
  return undefined;
}
