/**
 * The notifier: from a verified service event to the channels that watch its node.
 *
 *   ingestEvent(event)  stores the event and, in the same transaction, one outbox row
 *                       per watching channel (held while a mute covers it). Returns at once;
 *                       a redelivery (same dedupe key) is reported as a duplicate and routes nothing.
 *   start()             starts the outbox worker (it first routes events and posts rows left by a previous run).
 *   stop()              stops it without draining: waiting rows stay in the database for the next start.
 *   drain(timeoutMs)    posts until nothing is due (tests, shutdown).
 *   outbox              the durable Outbox (src/vocabulary/chat.ts) for reports and notices.
 *   watches             the WatchService behind the `watch` commands (services.watches).
 *   webhookRoutes(...)  the fastify plugin for POST /webhooks/service[/:nodeId]: stores each event
 *                       marked "not yet routed" (group commit) and answers 2xx after that commit;
 *                       the outbox worker routes marked events at the start of its next pass
 *                       (route-pending.ts), woken when the first event's coalescing window ends.
 *
 * This file holds the wiring (router, worker, watches, paging) and the webhook routes; how events
 * and activity are stored and routed is in ./event-intake.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import { sleep, type ButtonPreparer, type ChatPoster, type Outbox } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';
import type { HostingClient } from '../hosting/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { AnyDb } from '../store/index.js';
import { NotifyPages, NotifyStore } from '../store/index.js';
import { createLeases, groupCommit } from '../store/index.js';
import { randomUUID } from 'node:crypto';
import { createChannelClaims } from './channel-claims.js';
import { KeyCache } from '../webhooks/index.js';
import { createNodeDirectory, type NodeDirectory } from '../webhooks/index.js';
import { webhookRoutes, type IngestResult, type IngestWith } from '../webhooks/index.js';
import { createEventIntake, type IncomingEvent } from './event-intake.js';
import { OutboxWorker } from './outbox-worker.js';
import { createPaging, type Paging, type PagingOptions } from './paging.js';
import { createWatchService, type WatchService } from './watch-service.js';
import { createEventRouter } from './route-pending.js';
import { createDurableOutbox } from './durable-outbox.js';
import type { ActivityItem } from './render-notifications.js';

export interface NotifierOptions {
  db: AnyDb;
  posters: Partial<Record<Platform, ChatPoster>>;
  /** Gives buttons their stored ids (the engine's ButtonIds, shared with the dispatcher). */
  buttons: ButtonPreparer;
  hosting: HostingClient;
  logger: Logger;
  metrics?: Metrics;
  /** The clock (ms since the epoch). Default Date.now. */
  now?: () => number;
  pacing?: {
    /** Least time between posts in one channel. Default 1000 ms (Slack's ~1 message/s per channel). */
    perChannelIntervalMs?: number;
    /** Per platform, e.g. `{ discord: 500 }`; falls back to perChannelIntervalMs. */
    perPlatformIntervalMs?: Partial<Record<Platform, number>>;
    /** The first waiting event of a channel waits this long for others to join its message. Default 250 ms. */
    coalesceWindowMs?: number;
  };
  retry?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /** Worker poll period. Default 100 ms. */
  pollMs?: number;
  /** `PUBLIC_URL` (informational; the watch command reads services.publicUrl). */
  publicUrl?: string;
  /** ADMIN_USERS, named in channel-gone notices. */
  admins?: string[];
  /** Incidents opened at most per channel per round (a storm goes into the digest). Default 5. */
  maxIncidentsPerRound?: number;
  /** Nodes per digest message. Default 40. */
  digestMaxNodes?: number;
  /** Sent notifications and old events are deleted after this long. Default 30 days. */
  retentionMs?: number;
  /**
   * `MAX_FUTURE_SKEW_S` in ms (default 60 s): an event stamped further ahead of its arrival is
   * flagged in the log and in `webhooks{outcome="flagged",reason="future_timestamp"}`.
   */
  maxFutureSkewMs?: number;
  /** Told after a new event of a watched node was stored (e.g. to refresh Slack's App Home). Must not throw. */
  onNodeEvent?: (e: { nodeId: string; status?: string }) => void;
  /** This process among replicas on one database (lease owner); default a random id. */
  replicaId?: string;
  /** Escalation of unacknowledged incidents to PagerDuty or a webhook (paging.ts). */
  paging?: Pick<PagingOptions, 'pagerduty' | 'webhook' | 'escalateAfterMin' | 'pollMs' | 'retry' | 'allowPrivate'>;
}

export type { IncomingEvent } from './event-intake.js';

export interface WebhookRoutesOptions {
  /** `config.WEBHOOK_SIGNATURE_HEADER`. X-ThunderStack-Signature is always accepted too. */
  signatureHeader?: string;
  /** Least time between two key refetches caused by failed verifications. Default 60 000 ms. */
  keyRefetchIntervalMs?: number;
  /** Defaults to a KeyCache over `hosting.webhookPublicKey()`. */
  keys?: { verify(rawBody: Buffer, signature: string): boolean | Promise<boolean> };
  /** Defaults to a directory over `hosting.listNodes()` (cached 30 s, refreshed on a miss). */
  nodes?: NodeDirectory;
  /** `WEBHOOK_BODY_LIMIT`; default 64 KiB. */
  bodyLimit?: number;
}

export interface Notifier {
  store: NotifyStore;
  outbox: Outbox;
  watches: WatchService;
  /** Escalation to on-call (started and stopped with the notifier). */
  paging: Paging;
  ingestEvent(event: IncomingEvent): Promise<IngestResult & { routed: number }>;
  /**
   * Stores what the activity poller saw on a node and, in the same transaction, one outbox row
   * per watching channel whose kinds include the item's kind (held while muted; payments below
   * the watch's min_amount skipped). An item whose dedupe key is already stored routes nothing,
   * so a poll repeated after a crash never posts twice. Returns how many rows were queued.
   */
  ingestActivity(node: { nodeId: string; nodeName?: string }, items: ActivityItem[]): Promise<number>;
  /** ingestActivity for several nodes in one transaction: a channel gets them in one message (an upgrade wave). */
  ingestActivityBatch(entries: Array<{ node: { nodeId: string; nodeName?: string }; items: ActivityItem[] }>): Promise<number>;
  webhookRoutes(opts?: WebhookRoutesOptions): FastifyPluginAsync;
  start(): void;
  stop(): Promise<void>;
  /**
   * Posts until nothing is due and no round is in flight, or until timeoutMs (default 10 s).
   * Resolves true when drained, false at the time-out (what waits stays in the database). Held
   * (muted) rows do not count.
   */
  drain(timeoutMs?: number): Promise<boolean>;
  /** One worker pass (tests). */
  tick(): Promise<void>;
}

export function createNotifier(opts: NotifierOptions): Notifier {
  const store = new NotifyStore(opts.db);
  const nowMs = opts.now ?? Date.now;
  const log = opts.logger.child({ room: 'notify' });
  // Replicas on one PostgreSQL database share the work through leases: a channel's outbox is
  // posted by one replica at a time, and one replica at a time pages (channel-claims.ts).
  const replicaId = opts.replicaId ?? randomUUID();
  const leases = opts.db.engine === 'postgres' ? createLeases(opts.db) : undefined;
  const tellNodeChanged = (e: { nodeId: string; status?: string }) => {
    try {
      opts.onNodeEvent?.(e);
    } catch (err) {
      log.warn({ err }, 'onNodeEvent listener failed');
    }
  };
  // Events the webhook stored marked "not yet routed" are routed at the start of every worker
  // pass; the listener hears of those routed somewhere after the router's commit.
  const router = createEventRouter({
    store,
    now: nowMs,
    log,
    afterCommit: (routed) => {
      for (const r of routed) tellNodeChanged({ nodeId: r.nodeId, status: r.status });
    },
  });
  const worker = new OutboxWorker({
    store,
    route: () => router.routePending(),
    claims: leases && createChannelClaims({ leases, owner: replicaId }),
    posters: opts.posters,
    prepareMessage: (m) => opts.buttons.prepare(m),
    logger: opts.logger,
    metrics: opts.metrics,
    now: nowMs,
    perChannelIntervalMs: opts.pacing?.perChannelIntervalMs,
    perPlatformIntervalMs: opts.pacing?.perPlatformIntervalMs,
    retentionMs: opts.retentionMs,
    coalesceWindowMs: opts.pacing?.coalesceWindowMs,
    retry: opts.retry,
    pollMs: opts.pollMs,
    admins: opts.admins,
    maxIncidentsPerRound: opts.maxIncidentsPerRound,
    digestMaxNodes: opts.digestMaxNodes,
  });
  const watches = createWatchService({ store, now: nowMs, wake: () => worker.wake() });
  const pagingPollMs = opts.paging?.pollMs ?? 1000;
  const paging = createPaging({
    ...opts.paging,
    // Held for a few passes and renewed each pass: another replica takes over when this one stops.
    claimPass: leases && ((now) => leases.claim('notify:paging', replicaId, now + 5 * pagingPollMs, now)),
    store,
    pages: new NotifyPages(opts.db),
    now: nowMs,
    log,
    metrics: opts.metrics,
    wake: () => worker.wake(),
  });

  const retentionMs = opts.retentionMs ?? 30 * 24 * 3600_000;
  // Storing events and activity, and what follows each commit (event-intake.ts).
  const intake = createEventIntake({
    store,
    now: nowMs,
    log,
    metrics: opts.metrics,
    maxFutureSkewMs: opts.maxFutureSkewMs,
    coalesceWindowMs: opts.pacing?.coalesceWindowMs,
    wake: () => worker.wake(),
    tellNodeChanged,
  });
  const { storeEvent, storeEvents, storeEventsNow, afterCommit, ingestEvent, ingestActivity, ingestActivityBatch } = intake;

  const outbox = createDurableOutbox({ store, now: nowMs, wake: () => worker.wake() });

  return {
    store,
    outbox,
    watches,
    paging,
    ingestEvent,
    ingestActivity,
    ingestActivityBatch,
    webhookRoutes(o = {}) {
      const keys = o.keys ?? new KeyCache({ fetchKey: () => opts.hosting.webhookPublicKey(), refetchIntervalMs: o.keyRefetchIntervalMs });
      const nodes =
        o.nodes ??
        createNodeDirectory({
          hosting: opts.hosting,
          // Events of the nodes it knows are still accepted meanwhile; it is tried again at the next event.
          onRefreshFailed: (err) =>
            log.warn({ err }, 'webhooks: the account node list could not be refreshed; the last one is used meanwhile'),
        });
      // Events of one burst share a commit; each is answered 2xx only once it is committed. The
      // transaction stores the events (marked "not yet routed") and nothing else: no read of
      // the routing view, no outbox rows. The worker routes them after the 2xx (route-pending.ts).
      // A burst's events are written several per statement (storeEvents); if that fails, each
      // is written alone (storeEvent) in its own savepoint, and only the one that fails is refused.
      // On SQLite the burst is first written at once, synchronously (storeEventsNow), when no
      // transaction holds the connection: no promise on the way to the commit.
      const batch = groupCommit(
        (fn) => store.tx(fn),
        (event: IncomingEvent) => storeEvent(event),
        { writeMany: storeEvents, writeManyNow: storeEventsNow },
      );
      const ingest = (event: IncomingEvent) => batch(event).then(afterCommit);
      // The same by callbacks: no promise per event on the request path.
      const ingestWith: IngestWith = (event, onStored, onError) =>
        batch.add(
          event,
          (stored) => {
            let result: ReturnType<typeof afterCommit>;
            try {
              result = afterCommit(stored);
            } catch (err) {
              return onError(err);
            }
            onStored(result);
          },
          onError,
        );
      return webhookRoutes({
        keys,
        nodes,
        ingest,
        ingestWith,
        signatureHeader: o.signatureHeader,
        logger: opts.logger,
        metrics: opts.metrics,
        bodyLimit: o.bodyLimit,
        maxEventAgeMs: retentionMs,
        now: nowMs,
      });
    },
    start: () => {
      // The store's one question before the webhook path writes (a read of every key stored as given).
      store
        .prepareWrites()
        .catch((err: unknown) => log.warn({ err }, 'could not look for event keys stored as given; the first webhook batch asks'));
      worker.start();
      paging.start();
    },
    stop: async () => {
      intake.cancelWake();
      await paging.stop();
      await worker.stop();
    },
    tick: () => worker.tick(),
    async drain(timeoutMs = 10_000) {
      // A time-out in real time (a timer), whatever the clock says: the clock may be a test's.
      let late = false;
      const timer = setTimeout(() => (late = true), timeoutMs);
      try {
        for (;;) {
          await worker.tick();
          // Rows for a platform with no connection cannot be posted by waiting: they stay for a later start.
          // (Which channels wait, not every waiting row: this runs every 20 ms while a backlog drains.)
          const waiting =
            (await store.pendingChannels()).some((ch) => opts.posters[ch.platform as Platform]) || (await store.eventsToRouteCount()) > 0;
          if (!waiting && worker.idle) return true;
          if (late) {
            const pending = (await store.outboxRows({ state: 'pending' })).filter((r) => opts.posters[r.platform as Platform]).length;
            log.warn({ pending, timeoutMs }, 'notifications still waiting at the end of drain; they stay in the outbox');
            return false;
          }
          await sleep(Math.min(worker.pollMs, 20));
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
