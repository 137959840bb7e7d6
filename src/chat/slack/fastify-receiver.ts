/**
 * A Bolt Receiver for HTTP mode that lives on the bot's one fastify server: `POST /slack/events`.
 * Transport only (as bolt-js receivers are): it verifies the signature over the raw body,
 * parses the form or JSON, hands the event to Bolt, and answers the HTTP request as soon as a
 * listener calls ack() (the work continues after the answer).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { App as BoltApp, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../../log.js';
import { admitBodies, createReplayGuard, type ReplayGuard } from '../../http/index.js';
import { within } from '../../vocabulary/index.js';

export const SLACK_EVENTS_PATH = '/slack/events';
/**
 * When no listener has acked by then, the receiver answers for it (Slack gives up at 3 s).
 * Listeners' own budgets end earlier (SLACK_LISTENER_BUDGET_MS), so their answer, with the
 * shape its request needs, wins the race; the fallback is for a listener that hangs.
 */
export const SLACK_ACK_FALLBACK_MS = 2_500;
/** What a listener may spend before it must ack: a margin below the fallback. */
export const SLACK_LISTENER_BUDGET_MS = 2_000;
/** Slack's payloads (a view with its state) stay well under this. */
export const SLACK_BODY_LIMIT = 1024 * 1024;
/** Unsigned requests are read only when this small: Slack's `ssl_check` is not signed. */
const SLACK_UNSIGNED_BODY_LIMIT = 4 * 1024;
/** Slack refuses (and so do we) a request timestamp older than five minutes. */
export const SLACK_MAX_REQUEST_AGE_SEC = 300;

export interface FastifyReceiverOptions {
  signingSecret: string;
  logger: Logger;
  /** When no listener acks within this, answer for it and log it (Slack's limit is 3 s). Default SLACK_ACK_FALLBACK_MS. */
  ackTimeoutMs?: number;
  now?: () => number;
  /** Signed requests already accepted; pass one backed by the database so it survives a restart. Default: in memory. */
  replays?: ReplayGuard;
  /** Bodies read at once; more get 503 before their body is read. Default 32. */
  maxInFlight?: number;
}

type Answer = { status: number; body?: unknown };

/** Checks `X-Slack-Signature` (v0 HMAC-SHA256 over `v0:ts:body`) and the timestamp's age. */
export function verifySlackSignature(opts: {
  signingSecret: string;
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
  nowMs: number;
}): { ok: true } | { ok: false; reason: string } {
  const { signature, timestamp } = opts;
  if (!signature || !timestamp) return { ok: false, reason: 'missing X-Slack-Signature or X-Slack-Request-Timestamp' };
  const ts = Number(timestamp);
  if (!Number.isInteger(ts)) return { ok: false, reason: 'bad X-Slack-Request-Timestamp' };
  if (Math.abs(opts.nowMs / 1000 - ts) > SLACK_MAX_REQUEST_AGE_SEC) return { ok: false, reason: 'request timestamp older than 5 minutes' };
  const expected = 'v0=' + createHmac('sha256', opts.signingSecret).update(`v0:${timestamp}:`).update(opts.rawBody).digest('hex');
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}

/** Parses a Slack HTTP body: a form (with `payload=` JSON for interactions) or JSON. */
export function parseSlackBody(contentType: string | undefined, raw: string): Record<string, unknown> {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    if (payload !== null) return JSON.parse(payload) as Record<string, unknown>;
    return Object.fromEntries(form.entries());
  }
  if (type === 'application/json') return JSON.parse(raw) as Record<string, unknown>;
  throw new Error(`unsupported content-type ${JSON.stringify(type)}`);
}

export class FastifyReceiver implements Receiver {
  private bolt?: BoltApp;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly log: Logger;
  /** Signatures already accepted: the same signed request is refused a second time. */
  private readonly replays: ReplayGuard;

  constructor(private readonly opts: FastifyReceiverOptions) {
    this.log = opts.logger;
    this.replays = opts.replays ?? createReplayGuard({ windowMs: SLACK_MAX_REQUEST_AGE_SEC * 1000 });
  }

  init(app: BoltApp): void {
    this.bolt = app;
  }

  async start(): Promise<void> {
    /* The fastify server is started by the app; nothing to listen on here. */
  }

  /** Waits (up to timeoutMs) for listeners still working after their ack. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (!this.inFlight.size) return;
    await within(Promise.allSettled([...this.inFlight]), timeoutMs);
  }

  /** The fastify plugin: `POST /slack/events`, with a raw-body parser local to this context. */
  readonly routes: FastifyPluginAsync = async (f) => {
    f.removeAllContentTypeParsers();
    f.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SLACK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    f.addHook(
      'onRequest',
      admitBodies({
        bodyLimit: SLACK_BODY_LIMIT,
        maxInFlight: this.opts.maxInFlight ?? 32,
        signed: (req) => Boolean(req.headers['x-slack-signature'] && req.headers['x-slack-request-timestamp']),
        unsignedBodyLimit: SLACK_UNSIGNED_BODY_LIMIT,
        refuse: (_req, reply, code, reason) => {
          this.log.warn({ reason, status: code }, 'refused a Slack request before reading it');
          return reply.code(code).send({ error: code === 401 ? 'invalid_signature' : reason });
        },
      }),
    );
    f.post(SLACK_EVENTS_PATH, { bodyLimit: SLACK_BODY_LIMIT }, async (req, reply) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = (n: string) => {
        const v = req.headers[n];
        return Array.isArray(v) ? v[0] : v;
      };
      const nowMs = (this.opts.now ?? Date.now)();
      const signature = header('x-slack-signature');
      if (!signature && this.isSslCheck(header('content-type'), raw)) {
        // Slack's certificate check is not signed; Bolt's own receivers answer it with 200.
        return reply.code(200).send('');
      }
      const check = verifySlackSignature({
        signingSecret: this.opts.signingSecret,
        rawBody: raw,
        signature,
        timestamp: header('x-slack-request-timestamp'),
        nowMs,
      });
      if (!check.ok) {
        this.log.warn({ reason: check.reason }, 'refused a Slack request: bad signature');
        return reply.code(401).send({ error: 'invalid_signature' });
      }
      let body: Record<string, unknown>;
      try {
        body = parseSlackBody(header('content-type'), raw.toString('utf8'));
      } catch (e) {
        this.log.warn({ reason: (e as Error).message }, 'refused a Slack request: unreadable body');
        return reply.code(400).send({ error: 'bad_request' });
      }
      // A repeat of a request already accepted is a replay (a command or a click would run twice).
      // Options requests are read-only and carry no unique id, so two identical ones may both come.
      if (body.type !== 'block_suggestion' && !(await this.replays.firstTime(signature!, nowMs))) {
        this.log.warn({ type: body.type }, 'refused a Slack request: the same signed request was already accepted (replay)');
        return reply.code(401).send({ error: 'replayed_request' });
      }
      if (body.type === 'url_verification') return reply.send({ challenge: body.challenge });
      if (body.ssl_check) return reply.code(200).send('');
      const answer = await this.handle(body, header('x-slack-retry-num'), header('x-slack-retry-reason'));
      reply.code(answer.status);
      if (answer.body === undefined || answer.body === '') return reply.send('');
      if (typeof answer.body === 'string') return reply.type('text/plain; charset=utf-8').send(answer.body);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
    });
  };

  private isSslCheck(contentType: string | undefined, raw: Buffer): boolean {
    if (raw.length > SLACK_UNSIGNED_BODY_LIMIT) return false;
    try {
      return Boolean(parseSlackBody(contentType, raw.toString('utf8')).ssl_check);
    } catch {
      return false;
    }
  }

  private handle(body: Record<string, unknown>, retryNum?: string, retryReason?: string): Promise<Answer> {
    const bolt = this.bolt;
    if (!bolt) return Promise.resolve({ status: 503, body: 'not ready' });
    return new Promise<Answer>((resolve) => {
      let acked = false;
      const timer = setTimeout(() => {
        if (acked) return;
        acked = true;
        this.log.warn({ type: body.type }, 'no Slack listener acknowledged in time; answered for it');
        resolve({ status: 200, body: emptyAnswerFor(body) });
      }, this.opts.ackTimeoutMs ?? SLACK_ACK_FALLBACK_MS);
      const event: ReceiverEvent = {
        body,
        retryNum: retryNum !== undefined ? Number(retryNum) : undefined,
        retryReason,
        ack: async (response?: unknown) => {
          if (acked) return;
          acked = true;
          clearTimeout(timer);
          resolve({ status: 200, body: response });
        },
      };
      const work = bolt
        .processEvent(event)
        .catch((e: unknown) => {
          this.log.error({ err: e, type: body.type }, 'a Slack listener failed');
          if (!acked) {
            acked = true;
            clearTimeout(timer);
            resolve({ status: 500 });
          }
        })
        .finally(() => {
          this.inFlight.delete(work);
          if (!acked) {
            // Nobody listens for this event type: acknowledge so Slack does not retry it.
            acked = true;
            clearTimeout(timer);
            resolve({ status: 200 });
          }
        });
      this.inFlight.add(work);
    });
  }
}

/**
 * The answer that says "nothing" in the shape each request type needs: an options request
 * (external select) must get `{"options":[]}` (an empty body is an error there); others an empty 200.
 */
export function emptyAnswerFor(body: Record<string, unknown>): unknown {
  if (body.type === 'block_suggestion') return { options: [] };
  return undefined;
}
