/**
 * A fake PagerDuty Events API v2 on loopback (POST /v2/enqueue), answering as the real one does
 * (https://developer.pagerduty.com/docs/events-api-v2/overview/):
 *   202 {"status":"success","message":"Event processed","dedup_key":"…"}
 *   400 {"status":"invalid event","message":"Event object is invalid","errors":[…]} for a bad payload
 *   429 (and 5xx on demand) from `failNext`.
 * It keeps every accepted event and the state of each alert (triggered, acknowledged, resolved)
 * by dedup_key. It also serves as a generic escalation webhook: POST /hook records body and headers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PdEvent {
  routing_key: string;
  event_action: 'trigger' | 'acknowledge' | 'resolve';
  dedup_key?: string;
  payload?: { summary?: string; source?: string; severity?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface FakePagerDuty {
  /** The Events v2 URL (…/v2/enqueue). */
  eventsUrl: string;
  /** A generic webhook URL (…/hook). */
  hookUrl: string;
  /** Accepted events, in order. */
  events: PdEvent[];
  /** Every request's answer status, in order (also refused ones). */
  answers: number[];
  /** Requests to the generic webhook: body text and headers. */
  hooks: Array<{ body: string; headers: IncomingMessage['headers'] }>;
  /** The alert's state by dedup_key. */
  alerts: Map<string, 'triggered' | 'acknowledged' | 'resolved'>;
  /** Answers the next N requests with this status (429, 500…). */
  failNext(status: number, times?: number): void;
  /** Answers every request this long after it arrived (a slow endpoint). Default 0. */
  delayMs: number;
  close(): Promise<void>;
}

const SEVERITIES = ['critical', 'error', 'warning', 'info'];

function problems(e: Partial<PdEvent>): string[] {
  const out: string[] = [];
  if (typeof e.routing_key !== 'string' || e.routing_key.length !== 32) out.push('routing_key must be a 32-character integration key');
  if (!['trigger', 'acknowledge', 'resolve'].includes(String(e.event_action)))
    out.push("'event_action' must be one of trigger, acknowledge, resolve");
  if (e.event_action === 'trigger') {
    if (!e.payload?.summary) out.push("'payload.summary' is missing or blank");
    if (!e.payload?.source) out.push("'payload.source' is missing or blank");
    if (!SEVERITIES.includes(String(e.payload?.severity))) out.push("'payload.severity' must be one of critical, error, warning, info");
  } else if (!e.dedup_key) out.push("'dedup_key' is required for acknowledge and resolve");
  return out;
}

export async function startFakePagerDuty(): Promise<FakePagerDuty> {
  const events: PdEvent[] = [];
  const answers: number[] = [];
  const hooks: FakePagerDuty['hooks'] = [];
  const alerts = new Map<string, 'triggered' | 'acknowledged' | 'resolved'>();
  let failing: { status: number; times: number } | undefined;
  let seq = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      setTimeout(() => {
        const text = Buffer.concat(chunks).toString('utf8');
        const answer = (status: number, body: object, headers: Record<string, string> = {}) => {
          answers.push(status);
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
        if (failing && failing.times > 0) {
          failing.times--;
          const { status } = failing;
          return status === 429
            ? answer(
                429,
                { status: 'throttle event', message: 'Requests for this service are arriving too quickly. Please retry later.' },
                { 'retry-after': '1' },
              )
            : answer(status, { status: 'error', message: 'Internal error' });
        }
        if (req.method === 'POST' && req.url === '/hook') {
          hooks.push({ body: text, headers: req.headers });
          return answer(200, { ok: true });
        }
        if (req.method !== 'POST' || req.url !== '/v2/enqueue') return answer(404, { status: 'not found', message: 'Not found' });
        let e: Partial<PdEvent>;
        try {
          e = JSON.parse(text) as Partial<PdEvent>;
        } catch {
          return answer(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Body is not valid JSON'] });
        }
        const errors = problems(e);
        if (errors.length) return answer(400, { status: 'invalid event', message: 'Event object is invalid', errors });
        const key = e.dedup_key ?? `fake-${++seq}`;
        events.push({ ...(e as PdEvent), dedup_key: key });
        const state = e.event_action === 'trigger' ? 'triggered' : e.event_action === 'acknowledge' ? 'acknowledged' : 'resolved';
        // As PagerDuty: acknowledge/resolve of an unknown or resolved alert is accepted and changes nothing.
        if (e.event_action === 'trigger' || (alerts.has(key) && alerts.get(key) !== 'resolved')) alerts.set(key, state);
        return answer(202, { status: 'success', message: 'Event processed', dedup_key: key });
      }, fake.delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakePagerDuty = {
    delayMs: 0,
    eventsUrl: `${base}/v2/enqueue`,
    hookUrl: `${base}/hook`,
    events,
    answers,
    hooks,
    alerts,
    failNext(status, times = 1) {
      failing = { status, times };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
