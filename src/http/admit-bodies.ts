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

export function admitBodies(opts: AdmitBodiesOptions): onRequestHookHandler {
  let inFlight = 0;
  let bytesInFlight = 0;
  const maxBytes = opts.maxBytesInFlight ?? opts.maxInFlight * opts.bodyLimit;
  return function admit(req, reply, done) {
    if (req.method !== 'POST') return done();
    const declared = Number(req.headers['content-length']);
    const length = Number.isFinite(declared) ? declared : undefined;
    const close = () => reply.header('connection', 'close');
    if (!opts.signed(req)) {
      const small = opts.unsignedBodyLimit ?? 0;
      if (length === undefined || length > small) {
        close();
        opts.refuse(req, reply, 401, opts.unsignedReason ?? 'missing_signature', opts.unsignedMessage ?? 'the request is not signed');
        return;
      }
    }
    if (length !== undefined && length > opts.bodyLimit) {
      close();
      opts.refuse(req, reply, 413, 'too_large', `the body is over ${opts.bodyLimit} bytes`);
      return;
    }
    const cost = length ?? opts.bodyLimit;
    if (inFlight >= opts.maxInFlight || bytesInFlight + cost > maxBytes) {
      close();
      reply.header('retry-after', '1');
      opts.refuse(req, reply, 503, 'busy', 'too many requests are being read right now; retry shortly');
      return;
    }
    inFlight++;
    bytesInFlight += cost;
    // A response emits 'close' once: when it has finished (a tick after 'finish') or when its
    // connection ends before.
    reply.raw.once('close', () => {
      inFlight--;
      bytesInFlight -= cost;
    });
    done();
  };
}
