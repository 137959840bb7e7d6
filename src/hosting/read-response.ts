/**
 * Reading the management API's answers: JSON or not, enveloped in `{ data }` or not, with
 * errors that name the endpoint and the field, and the service's own message (redacted).
 */
import type { z } from 'zod';
import { messageSchema } from './schemas.js';
import { ServiceError } from './service-error.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface CallSpec {
  method: Method;
  /** Template shown in errors, e.g. `POST /api/nodes/{id}/stop`. */
  endpoint: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

export interface CallResult {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  json: unknown;
  /** Raw text of the body. */
  text: string;
  /** True when the text was not JSON. */
  notJson: boolean;
  retryAfter?: string;
}

export const short = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Retry-After as milliseconds (seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterMs(header: unknown): number | undefined {
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  const secs = Number(header);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(header);
  if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  return undefined;
}

export function describeIssue(err: z.ZodError, prefix: string): string {
  const issue = err.issues[0];
  if (!issue) return 'the body does not have the expected shape';
  const path = [prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))].join('').replace(/^\./, '');
  return `field \`${path || '(body)'}\` is wrong: ${issue.message}`;
}

/** The readers of one client; `redact` removes its token from whatever the service echoes. */
export function createResponseReader(redact: (s: string) => string) {
  function messageFrom(json: unknown, text: string, notJson: boolean): string | undefined {
    const pick = (o: unknown): string | undefined => {
      if (!o || typeof o !== 'object') return undefined;
      const r = o as Record<string, unknown>;
      for (const key of ['message', 'error', 'detail', 'title']) {
        const v = r[key];
        if (typeof v === 'string' && v.trim()) return v;
        if (v && typeof v === 'object' && typeof (v as Record<string, unknown>).message === 'string') {
          return (v as Record<string, string>).message;
        }
      }
      return r.data ? pick(r.data) : undefined;
    };
    const found = typeof json === 'string' ? json : pick(json);
    if (found) return short(redact(found));
    if (notJson && text.trim()) return short(redact(text.trim()), 200);
    return undefined;
  }
  function badResponse(endpoint: string, status: number, detail: string): ServiceError {
    return new ServiceError({ endpoint, kind: 'bad_response', status, detail: redact(detail) });
  }

  /** Parses JSON, telling a truncated or malformed body apart from a valid one. */
  function requireJson(spec: CallSpec, r: CallResult): unknown {
    if (r.notJson) {
      const t = r.text.trim();
      const looksTruncated = /^[[{]/.test(t);
      throw badResponse(
        spec.endpoint,
        r.status,
        `${looksTruncated ? 'the body is truncated or malformed JSON' : 'the body is not JSON'} (${t.length} chars, starts ${JSON.stringify(short(t, 60))})`,
      );
    }
    if (r.json === undefined) throw badResponse(spec.endpoint, r.status, 'the body is empty, a JSON object was expected');
    return r.json;
  }

  /** Parses with the schema, accepting a bare object or one wrapped in `{ data: ... }`. */
  function parseEnveloped<S extends z.ZodType>(spec: CallSpec, r: CallResult, schema: S): z.infer<S> {
    const json = requireJson(spec, r);
    const direct = schema.safeParse(json);
    if (direct.success) return direct.data;
    const data = json && typeof json === 'object' ? (json as Record<string, unknown>).data : undefined;
    if (data !== undefined && data !== null) {
      const wrapped = schema.safeParse(data);
      if (wrapped.success) return wrapped.data;
      throw badResponse(spec.endpoint, r.status, describeIssue(wrapped.error, 'data'));
    }
    throw badResponse(spec.endpoint, r.status, describeIssue(direct.error, ''));
  }

  function parseStrict<S extends z.ZodType>(spec: CallSpec, r: CallResult, schema: S): z.infer<S> {
    const json = requireJson(spec, r);
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    throw badResponse(spec.endpoint, r.status, describeIssue(parsed.error, ''));
  }

  /** For operations whose body is not documented: a message if there is one, anything else is fine. */
  function messageOf(r: CallResult): { message?: string } {
    if (r.notJson) return r.text.trim() ? { message: short(redact(r.text.trim()), 300) } : {};
    if (typeof r.json === 'string') return { message: short(redact(r.json)) };
    const direct = messageSchema.safeParse(r.json);
    let message = direct.success ? direct.data.message : undefined;
    if (!message && r.json && typeof r.json === 'object') {
      const inner = messageSchema.safeParse((r.json as Record<string, unknown>).data);
      if (inner.success) message = inner.data.message;
    }
    return message ? { message: redact(message) } : {};
  }

  return { messageFrom, badResponse, requireJson, parseEnveloped, parseStrict, messageOf };
}
