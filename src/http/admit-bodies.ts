/**
 * An `onRequest` hook that decides, before a byte of the body is read, whether a signed
 * endpoint reads it at all. Unauthenticated traffic must not cost memory: a request with no
 * signature header, or one whose declared length is over the endpoint's limit, or one that
 * arrives while too many bodies are already being read, is answered at once and its
 * connection closed, so the body it was sending is never buffered.
 */
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

export interface AdmitBodiesOptions {
  /** The endpoint's body limit in bytes: a larger declared Content-Length gets 413. */
  bodyLimit: number;
  /** Bodies read (and handled) at once by this endpoint; more get 503 with Retry-After. */
  maxInFlight: number;
  /**
   * The bytes those bodies may hold at once (each counted at its declared length, or at the
   * body limit when it declares none); more get 503 too. Default `maxInFlight × bodyLimit`.
   * With a high `maxInFlight` and this budget, thousands of small events are handled at once
   * while large bodies stay bounded by memory, not by how many requests came.
   */
  maxBytesInFlight?: number;
  /** True when the request carries the endpoint's signature header(s) (not yet verified). */
  signed(req: FastifyRequest): boolean;
  /**
   * An unsigned request whose declared body is at most this long is let through (Slack's
   * unsigned `ssl_check`); default 0: every unsigned request is refused with 401.
   */
  unsignedBodyLimit?: number;
  unsignedReason?: string;
  unsignedMessage?: string;
  /** Sends the refusal (and logs and counts it as the endpoint does). */
  refuse(req: FastifyRequest, reply: FastifyReply, code: number, reason: string, message: string): unknown;
}

/** Why a request is not admitted: answer it with `code` (and Connection: close, so its body is never read). */
export interface BodyRefusal {
  code: number;
  reason: string;
  message: string;
  /** Retry-After, for a shed request. */
  retryAfter?: string;
}

export type BodyAdmissionOptions = Omit<AdmitBodiesOptions, 'signed' | 'refuse'>;

/**
 * The admission itself, for any server (admitBodies for a fastify route, a raw `node:http`
 * route directly): `take` answers the cost the request holds (give it back with `release` when
 * its response closes) or the refusal to send.
 */
export function createBodyAdmission(opts: BodyAdmissionOptions) {
  let inFlight = 0;
  let bytesInFlight = 0;
  const maxBytes = opts.maxBytesInFlight ?? opts.maxInFlight * opts.bodyLimit;
  const unsigned: BodyRefusal = {
    code: 401,
    reason: opts.unsignedReason ?? 'missing_signature',
    message: opts.unsignedMessage ?? 'the request is not signed',
  };
  const tooLarge: BodyRefusal = { code: 413, reason: 'too_large', message: `the body is over ${opts.bodyLimit} bytes` };
  const busy: BodyRefusal = {
    code: 503,
    reason: 'busy',
    message: 'too many requests are being read right now; retry shortly',
    retryAfter: '1',
  };
  return {
    take(signed: boolean, contentLength: string | undefined): number | BodyRefusal {
      const declared = Number(contentLength);
      const length = contentLength !== undefined && Number.isFinite(declared) ? declared : undefined;
      if (!signed) {
        const small = opts.unsignedBodyLimit ?? 0;
        if (length === undefined || length > small) return unsigned;
      }
      if (length !== undefined && length > opts.bodyLimit) return tooLarge;
      const cost = length ?? opts.bodyLimit;
      if (inFlight >= opts.maxInFlight || bytesInFlight + cost > maxBytes) return busy;
      inFlight++;
      bytesInFlight += cost;
      return cost;
    },
    release(cost: number): void {
      inFlight--;
      bytesInFlight -= cost;
    },
  };
}

export function admitBodies(opts: AdmitBodiesOptions): onRequestHookHandler {
  const admission = createBodyAdmission(opts);
  return function admit(req, reply, done) {
    if (req.method !== 'POST') return done();
    const taken = admission.take(opts.signed(req), req.headers['content-length']);
    if (typeof taken !== 'number') {
      reply.header('connection', 'close');
      if (taken.retryAfter) reply.header('retry-after', taken.retryAfter);
      opts.refuse(req, reply, taken.code, taken.reason, taken.message);
      return;
    }
    // A response emits 'close' once: when it has finished (a tick after 'finish') or when its
    // connection ends before.
    reply.raw.once('close', () => admission.release(taken));
    done();
  };
}
