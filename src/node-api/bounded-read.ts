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

/** An answer's body as it arrives (undici's): a readable stream of Buffers. */
interface BodyStream {
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  on(event: 'end', fn: () => void): unknown;
  on(event: 'error', fn: (e: Error) => void): unknown;
  destroy(): unknown;
}

/**
 * The body as UTF-8 text, read up to `maxBytes`; undefined (and the stream destroyed, the rest
 * unread) when its Content-Length announces more or it passes that as it arrives. Rejects with the
 * stream's error (a connection cut, the attempt's timeout).
 */
export function readBounded(body: BodyStream, contentLength: string | string[] | undefined, maxBytes: number): Promise<string | undefined> {
  if (Number(contentLength) > maxBytes) {
    body.destroy();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over = false;
    body.on('data', (chunk) => {
      if (over) return;
      bytes += chunk.length;
      if (bytes > maxBytes) {
        over = true;
        chunks.length = 0;
        body.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    body.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, bytes).toString('utf8')));
    body.on('error', (e) => (over ? undefined : reject(e)));
  });
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
 * Whether JSON `text` is long enough to hold a list of more than LONG_LIST elements: n elements
 * take 2n - 1 characters at least. Most answers are shorter, and need no walk of their schema.
 */
export const mayHoldLongList = (text: string): boolean => text.length > 2 * LONG_LIST;

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
