/**
 * Paging on-call: an incident nobody acknowledged within its watch's delay (ESCALATE_AFTER_MIN,
 * 10 min by default, or `escalate_after=` on the watch) is escalated to PagerDuty Events API v2
 * and/or a generic webhook signed with HMAC-SHA256; when someone acknowledges it in chat the page
 * is acknowledged, and when the node recovers it is resolved.
 *
 * Durable like the chat outbox: each call is a row of notify_page_outbox, stored in the same
 * transaction as the decision (and the note that refreshes the incident message: "escalated at
 * … to …"), then sent; 429, 5xx and network errors are retried with backoff (Retry-After when
 * given), a 4xx refusal fails the row and is logged. Pages of one incident go in order.
 */
import { createHmac } from 'node:crypto';
import { every } from '../vocabulary/index.js';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { IncidentRow, NotifyPages, NotifyStore, PageAction, PageRow } from '../store/index.js';
import { checkUrlTarget, guardedLookup, type AllowList } from '../vocabulary/index.js';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
/** The header carrying `sha256=<hex HMAC of the body>` on escalation webhooks. */
export const ESCALATION_SIGNATURE_HEADER = 'x-rln-chatops-signature';

export interface PagingOptions {
  store: NotifyStore;
  pages: NotifyPages;
  now: () => number;
  log: Logger;
  metrics?: Metrics;
  /** PagerDuty: the Events v2 URL (default PAGERDUTY_EVENTS_URL) and the account-wide routing key. */
  pagerduty?: { url?: string; routingKey?: string };
  /** A generic endpoint, signed with `secret` when given. */
  webhook?: { url: string; secret?: string };
  /**
   * ALLOW_PRIVATE_URLS: with it, a page to a URL that names or resolves to a private, loopback,
   * link-local or metadata address not on the list is refused (not retried), checked again when
   * the connection is made. Without it (tests of paging alone), URLs are not checked.
   */
  allowPrivate?: AllowList;
  /** Minutes an incident may stay unacknowledged before it is paged. Default 10. */
  escalateAfterMin?: number;
  /** How often due incidents and pages are looked for. Default 1000 ms. */
  pollMs?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** Wakes the chat outbox (the incident message is refreshed with the escalation). */
  wake(): void;
  /**
   * Replicas on one database: a pass runs only on the replica that holds the paging lease for
   * it (true), so an incident is paged once, not once per replica. Without it, always.
   */
  claimPass?(now: number): Promise<boolean>;
}

export interface Paging {
  start(): void;
  stop(): Promise<void>;
  /** One pass: escalate what is due, queue acknowledgements and resolutions, send due pages. */
  tick(): Promise<void>;
}

/** How long a page's call may take (a fetch time-out). */
const SEND_TIMEOUT_MS = 10_000;
/** A page being sent is held this long: its call's time-out and a margin to record the outcome. */
const PAGE_CLAIM_MS = SEND_TIMEOUT_MS + 5_000;

export const dedupKeyOf = (incidentId: number): string => `rln-chatops-incident-${incidentId}`;

/** A page's URL names or resolves to an address ALLOW_PRIVATE_URLS does not allow. */
class RefusedUrl extends Error {}

/** How much of an answer is read: the status and a few hundred characters are all a page needs. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs a page with node:http(s), whose `lookup` checks the addresses the connection uses
 * (guardedLookup) when `allow` is given; the answer is read up to MAX_ANSWER_BYTES.
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  allow: AllowList | undefined,
): Promise<{ status: number; text: string; retryAfterMs?: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const request = u.protocol === 'http:' ? httpRequest : httpsRequest;
    const req = request(
      u,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: SEND_TIMEOUT_MS,
        ...(allow ? { lookup: guardedLookup(allow) as never } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(c);
          size += c.length;
          if (size >= MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          const ra = Number(res.headers['retry-after']);
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8').slice(0, 300),
            retryAfterMs: Number.isFinite(ra) && ra > 0 ? ra * 1000 : undefined,
          });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export function createPaging(o: PagingOptions): Paging {
  const { store, pages } = o;
  const pdUrl = o.pagerduty?.url ?? PAGERDUTY_EVENTS_URL;
  const base = o.retry?.baseDelayMs ?? 2_000;
  const maxDelay = o.retry?.maxDelayMs ?? 5 * 60_000;
  const maxAttempts = o.retry?.maxAttempts ?? 20;

  /** The watch of the incident's channel that covers its node (its own watch before `all`). */
  const watchOf = async (inc: IncidentRow) =>
    (await store.watchesFor(inc.node_id))
      .filter((w) => w.platform === inc.platform && w.channel_id === inc.channel_id)
      .sort((a, b) => Number(b.target === inc.node_id) - Number(a.target === inc.node_id))[0];

  function triggerBodies(inc: IncidentRow, afterMin: number, routingKey: string | undefined): Array<{ target: string; body: object }> {
    const name = inc.node_name ?? inc.node_id;
    const summary = `${name} is ${inc.last_status} (incident #${inc.id}, not acknowledged within ${afterMin} min)`;
    const details = {
      incident_id: inc.id,
      node_id: inc.node_id,
      node_name: name,
      channel: `${inc.platform}:${inc.channel_id}`,
      opened_at: new Date(inc.opened_at).toISOString(),
    };
    const out: Array<{ target: string; body: object }> = [];
    if (routingKey) {
      out.push({
        target: 'pagerduty',
        body: {
          routing_key: routingKey,
          event_action: 'trigger',
          dedup_key: dedupKeyOf(inc.id),
          payload: {
            summary,
            source: name,
            severity: 'critical',
            timestamp: new Date(inc.opened_at).toISOString(),
            component: 'rln-node',
            group: 'rln-chatops',
            custom_details: details,
          },
          client: 'rln-chatops',
        },
      });
    }
    if (o.webhook)
      out.push({
        target: 'webhook',
        body: { event_action: 'trigger', dedup_key: dedupKeyOf(inc.id), summary, source: name, severity: 'critical', ...details },
      });
    return out;
  }

  const describe = (targets: string[]) =>
    targets.map((t) => (t === 'pagerduty' ? 'PagerDuty' : `the escalation webhook (${new URL(o.webhook!.url).host})`)).join(' and ');

  async function escalateDue(now: number): Promise<void> {
    for (const inc of await pages.unpagedOpenIncidents()) {
      const w = await watchOf(inc);
      const afterMin = w?.escalate_after_min ?? o.escalateAfterMin ?? 10;
      if (now < inc.opened_at + afterMin * 60_000) continue;
      const bodies = triggerBodies(inc, afterMin, w?.pagerduty_key ?? o.pagerduty?.routingKey);
      if (!bodies.length) continue;
      const to = describe(bodies.map((b) => b.target));
      const escalated = await pages.tx(async () => {
        // Two replicas may both find the incident unpaged (a pass lease that ran out during a
        // slow pass): the escalation row is the claim, and only its writer queues the pages.
        if (!(await pages.insertEscalation({ incident_id: inc.id, escalated_at: now, escalated_to: to }))) return false;
        for (const b of bodies)
          await pages.insertPage({
            incident_id: inc.id,
            action: 'trigger',
            target: b.target,
            body: JSON.stringify(b.body),
            next_attempt_at: now,
            created_at: now,
          });
        await store.insertOutbox({
          platform: inc.platform,
          channel_id: inc.channel_id,
          kind: 'incident',
          incident_id: inc.id,
          note: `Escalated to ${to} at ${new Date(now).toISOString()}: nobody acknowledged incident #${inc.id} within ${afterMin} min.`,
          next_attempt_at: now,
          created_at: now,
        });
        return true;
      });
      if (!escalated) continue;
      o.log.warn({ incident: inc.id, nodeId: inc.node_id, to }, 'incident not acknowledged in time: escalated');
      o.wake();
    }
  }

  /** Acknowledge or resolve, to wherever the trigger went. */
  async function followUp(now: number, which: 'ack' | 'resolve'): Promise<void> {
    const action: PageAction = which === 'ack' ? 'acknowledge' : 'resolve';
    for (const inc of await pages.pagedToFollowUp(which)) {
      await pages.tx(async () => {
        await pages.markQueued(inc.id, which);
        for (const t of await pages.triggersOf(inc.id)) {
          const trigger = JSON.parse(t.body) as { routing_key?: string; dedup_key: string; source?: string };
          const body =
            t.target === 'pagerduty'
              ? { routing_key: trigger.routing_key, event_action: action, dedup_key: trigger.dedup_key }
              : {
                  event_action: action,
                  dedup_key: trigger.dedup_key,
                  incident_id: inc.id,
                  node_id: inc.node_id,
                  source: trigger.source,
                  by: inc.acked_by ?? undefined,
                };
          await pages.insertPage({
            incident_id: inc.id,
            action,
            target: t.target,
            body: JSON.stringify(body),
            next_attempt_at: now,
            created_at: now,
          });
        }
      });
    }
  }

  async function send(p: PageRow): Promise<{ status: number; text: string; retryAfterMs?: number }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    let url = pdUrl;
    if (p.target === 'webhook') {
      url = o.webhook!.url;
      if (o.webhook!.secret)
        headers[ESCALATION_SIGNATURE_HEADER] = `sha256=${createHmac('sha256', o.webhook!.secret).update(p.body).digest('hex')}`;
    }
    if (o.allowPrivate) {
      const refused = await checkUrlTarget(url, o.allowPrivate, {
        what: p.target === 'webhook' ? 'the escalation webhook URL' : 'the PagerDuty URL',
      });
      if (refused) throw new RefusedUrl(refused);
    }
    return post(url, headers, p.body, o.allowPrivate);
  }

  async function sendDue(now: number): Promise<void> {
    for (const p of await pages.duePages(now)) {
      if (await pages.earlierPending(p)) continue;
      // The pass lease may pass to another replica while a send is slow: the row itself is taken
      // before it is sent, so no page goes twice (a generic webhook does not dedupe).
      const claimedAt = o.now();
      if (!(await pages.claimPage(p.id, claimedAt + PAGE_CLAIM_MS, claimedAt))) continue;
      let outcome: 'sent' | 'retry' | 'failed';
      let why: string;
      let wait: number | undefined;
      try {
        const r = await send(p);
        why = `HTTP ${r.status}: ${r.text}`;
        wait = r.retryAfterMs;
        outcome = r.status >= 200 && r.status < 300 ? 'sent' : r.status === 429 || r.status >= 500 ? 'retry' : 'failed';
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
        // An inside address is refused for good: retrying would not make it public.
        outcome = err instanceof RefusedUrl || (err as NodeJS.ErrnoException).code === 'EPRIVATEADDRESS' ? 'failed' : 'retry';
      }
      if (outcome === 'retry' && p.attempts + 1 >= maxAttempts) outcome = 'failed';
      o.metrics?.escalations.inc({ target: p.target, action: p.action, outcome });
      if (outcome === 'sent') await pages.markPageSent(p.id, o.now());
      else if (outcome === 'failed') {
        await pages.markPageFailed(p.id, why);
        o.log.error(
          { incident: p.incident_id, target: p.target, action: p.action, reason: why },
          'escalation refused or given up; not retried',
        );
      } else {
        const delay = wait ?? Math.min(maxDelay, base * 2 ** p.attempts);
        await pages.postponePage(p.id, o.now() + delay, why);
        o.log.warn(
          { incident: p.incident_id, target: p.target, action: p.action, delayMs: delay, reason: why },
          'escalation not delivered; retrying with backoff',
        );
      }
    }
  }

  async function pass(): Promise<void> {
    try {
      const now = o.now();
      if (o.claimPass && !(await o.claimPass(now))) return;
      await escalateDue(now);
      await followUp(now, 'ack');
      await followUp(now, 'resolve');
      await sendDue(now);
    } catch (err) {
      o.log.error({ err }, 'paging pass failed');
    }
  }

  // Runs even with nothing configured account-wide: a watch may name its own PagerDuty key.
  const loop = every(pass, o.pollMs ?? 1000, (err) => o.log.error({ err }, 'paging pass failed'));
  return { start: () => loop.start(), stop: () => loop.stop(), tick: () => loop.run() };
}
