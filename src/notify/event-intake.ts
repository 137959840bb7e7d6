/**
 * The notifier's intake: how an event is stored, with its outbox rows or marked "not yet routed"
 * for the worker's router (the webhook path, one or a burst per statement), what follows each
 * commit (log, metrics, the worker's wake-up, the listener), and the activity poller's items,
 * stored and routed in one transaction.
 */
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { EventOutboxRow, NotifyStore, RoutingView } from '../store/index.js';
import { effectiveEventTime, type IngestResult, type ServiceEvent } from '../webhooks/index.js';
import { kindsOf } from './watch-service.js';
import { routeStoredEvents, rowFor } from './route-pending.js';
import { ACTIVITY_EVENT_PREFIX, type ActivityItem } from './render-notifications.js';

/** A verified event (from the webhook receiver, or a test). */
export type IncomingEvent = ServiceEvent & { nodeName?: string };

/** What storing an event gave, before its commit is followed up (afterCommit). */
export type Stored = IngestResult & {
  routed: number;
  /** Stored marked "not yet routed": the worker routes it (webhook path). */
  toRoute?: boolean;
  nodeId: string;
  status?: string;
  flagged?: { eventTimestamp: string | undefined; aheadMs: number };
};

export function createEventIntake(opts: {
  store: NotifyStore;
  now: () => number;
  log: Logger;
  metrics?: Metrics;
  /** See NotifierOptions.maxFutureSkewMs. */
  maxFutureSkewMs?: number;
  /** See NotifierOptions.pacing.coalesceWindowMs. */
  coalesceWindowMs?: number;
  /** Wakes the outbox worker. */
  wake: () => void;
  /** Tells the notifier's listener of a node that changed; never throws. */
  tellNodeChanged: (e: { nodeId: string; status?: string }) => void;
}) {
  const { store, log, wake, tellNodeChanged } = opts;
  const nowMs = opts.now;
  // A stored event cannot be posted before its channel's coalescing window has passed, so the
  // worker is woken once, when the window of the first event of a burst ends, rather than after
  // every commit: a pass reads every waiting row, and on the request path that cost grew with
  // the backlog. (The worker's poll still runs too.)
  const coalesceWindowMs = opts.coalesceWindowMs ?? 250;
  let wakeTimer: NodeJS.Timeout | undefined;
  const wakeAfterWindow = () => {
    if (wakeTimer) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      wake();
    }, coalesceWindowMs);
    wakeTimer.unref?.();
  };

  /** An event's row, as stored at `now` (marked "not yet routed" when `toRoute`), and its time. */
  const eventRow = (event: IncomingEvent, toRoute: boolean) => {
    const now = nowMs();
    // The time the event is ordered by: never later than its arrival (see effectiveEventTime).
    const time = effectiveEventTime(event.eventTimestamp, now, opts.maxFutureSkewMs ?? 60_000, event.eventMs);
    const row = {
      dedupe_key: event.dedupeKey,
      node_id: event.nodeId,
      node_name: event.nodeName ?? null,
      event_type: event.eventType,
      status: event.status ?? null,
      event_ts: time.effective,
      received_at: now,
      // The webhook's body text as it came (it parses to `payload`), or `payload` serialized.
      payload: event.payloadText ?? JSON.stringify(event.payload),
      event_ms: time.stampedMs,
      route_pending: toRoute ? 1 : null,
    };
    return { now, time, row };
  };

  /** What storing an event gave: a duplicate, or its id (and the rows routed, or to route). */
  const storedOf = (
    event: IncomingEvent,
    time: ReturnType<typeof effectiveEventTime>,
    eventId: number | undefined,
    routed: number,
    toRoute: boolean,
  ): Stored => {
    if (eventId === undefined) return { duplicate: true, routed: 0, nodeId: event.nodeId };
    const flagged = time.flagged ? { eventTimestamp: event.eventTimestamp, aheadMs: time.aheadMs } : undefined;
    return { duplicate: false, eventId, routed, toRoute, nodeId: event.nodeId, status: event.status, flagged };
  };

  /**
   * Stores one event. With `routing`, its outbox rows too (the caller's transaction holds them
   * together); without, the event is stored marked "not yet routed", for the worker's router.
   */
  const storeEvent = async (event: IncomingEvent, routing?: RoutingView): Promise<Stored> => {
    const { now, time, row } = eventRow(event, !routing);
    const eventId = await store.insertEvent(row);
    if (eventId === undefined) return storedOf(event, time, undefined, 0, !routing);
    let routed = 0;
    if (routing) {
      // Routed as the router routes (its node's row kept, its previous status on its rows), taking turns with it.
      await store.lockRouting();
      const [routedHere] = await routeStoredEvents(
        store,
        routing,
        [{ id: eventId, node_id: event.nodeId, status: row.status, event_ts: row.event_ts }],
        now,
      );
      routed = routedHere?.routed ?? 0;
    }
    return storedOf(event, time, eventId, routed, !routing);
  };

  /** Stores a burst of events marked "not yet routed" (the webhook path), several per statement: storeEvent's answer for each. */
  const storeEvents = async (events: readonly IncomingEvent[]): Promise<Stored[]> => {
    const made = events.map((event) => eventRow(event, true));
    return storedAll(events, made, await store.insertEvents(made.map((m) => m.row)));
  };

  /**
   * storeEvents at once, in a transaction of its own (NotifyStore.insertEventsNow): the webhook
   * path's first try. Undefined when the database cannot now; then storeEvents, in a tx().
   */
  const storeEventsNow = (events: readonly IncomingEvent[]): Stored[] | undefined => {
    const made = events.map((event) => eventRow(event, true));
    const ids = store.insertEventsNow(made.map((m) => m.row));
    return ids && storedAll(events, made, ids);
  };

  /** A burst's answers, from its rows as made and the ids the store gave (undefined: a duplicate). */
  const storedAll = (events: readonly IncomingEvent[], made: ReadonlyArray<ReturnType<typeof eventRow>>, ids: Array<number | undefined>) =>
    events.map((event, i) => storedOf(event, made[i].time, ids[i], 0, true));

  /** What follows a commit: the log, the metrics, the worker's wake-up and the listener. */
  const afterCommit = (r: Stored): IngestResult & { routed: number } => {
    if (!r.duplicate && r.flagged) {
      opts.metrics?.webhooks.inc({ outcome: 'flagged', reason: 'future_timestamp' });
      log.warn(
        { nodeId: r.nodeId, eventTimestamp: r.flagged.eventTimestamp, aheadS: Math.round(r.flagged.aheadMs / 1000), eventId: r.eventId },
        'event stamped ahead of this clock by more than MAX_FUTURE_SKEW_S: ordered by its arrival instead; check the clocks',
      );
    }
    if (!r.duplicate && r.toRoute) {
      // Routed by the worker's pass, which this wakes when the event's coalescing window ends
      // (its rows could not be posted sooner); the listener is told after the router's commit.
      // Built only when debug is on: the webhook path's every event comes through here.
      if (log.isLevelEnabled('debug')) log.debug({ nodeId: r.nodeId, status: r.status }, 'event stored; routed by the outbox worker');
      wakeAfterWindow();
    } else if (!r.duplicate) {
      log.debug({ nodeId: r.nodeId, status: r.status, routed: r.routed }, 'event stored and routed');
      if (r.routed > 0) {
        wakeAfterWindow();
        tellNodeChanged({ nodeId: r.nodeId, status: r.status });
      }
    }
    return r.duplicate ? { duplicate: true, routed: 0 } : { duplicate: false, eventId: r.eventId, routed: r.routed };
  };

  const ingestEvent = async (event: IncomingEvent): Promise<IngestResult & { routed: number }> =>
    afterCommit(await store.routingTx(async () => storeEvent(event, await store.routingView())));

  const ingestActivityBatch = async (
    entries: Array<{ node: { nodeId: string; nodeName?: string }; items: ActivityItem[] }>,
  ): Promise<number> => {
    const now = nowMs();
    const routed = await store.tx(async () => {
      const rows: EventOutboxRow[] = [];
      const routing = await store.routingView();
      for (const { node, items } of entries) {
        const watches = routing.watchesFor(node.nodeId);
        for (const item of items) {
          const eventId = await store.insertEvent({
            dedupe_key: item.dedupeKey,
            node_id: node.nodeId,
            node_name: node.nodeName ?? null,
            event_type: `${ACTIVITY_EVENT_PREFIX}${item.type.toUpperCase()}`,
            status: null,
            event_ts: new Date(now).toISOString(),
            received_at: now,
            payload: JSON.stringify({ kind: item.kind, message: item.message, ...(item.facts ? { facts: item.facts } : {}) }),
          });
          if (eventId === undefined) continue;
          const wanted = item.kinds ?? [item.kind];
          const seen = new Set<string>();
          for (const w of watches) {
            const key = `${w.platform}|${w.channel_id}`;
            if (seen.has(key) || !kindsOf(w).some((k) => wanted.includes(k))) continue;
            if (w.min_amount_msat && item.amountMsat !== undefined && item.amountMsat < w.min_amount_msat) continue;
            seen.add(key);
            rows.push(rowFor(routing, w, eventId, node.nodeId, now));
          }
        }
      }
      await store.insertEventRows(rows);
      return rows.length;
    });
    if (routed) {
      wake();
      // A payment or a channel change moves the numbers a dashboard shows (Slack's App Home).
      for (const { node } of entries) tellNodeChanged({ nodeId: node.nodeId });
    }
    return routed;
  };
  const ingestActivity = (node: { nodeId: string; nodeName?: string }, items: ActivityItem[]): Promise<number> =>
    ingestActivityBatch([{ node, items }]);

  /** Stops the pending wake-up (the notifier stops). */
  const cancelWake = () => {
    clearTimeout(wakeTimer);
    wakeTimer = undefined;
  };

  return { storeEvent, storeEvents, storeEventsNow, afterCommit, ingestEvent, ingestActivity, ingestActivityBatch, cancelWake };
}
