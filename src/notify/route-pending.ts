/**
 * Routing: from a stored event to one outbox row per channel that watches its node.
 *
 * `routesOf` is the one routing of a service event (its watches, their kinds and
 * statuses filter, an open incident letting a filtered status through, a mute holding the row),
 * used by both paths that route one:
 *   - `ingestEvent` (the direct API) stores and routes in one transaction;
 *   - the webhook path stores the event marked `route_pending` and answers 2xx after that
 *     commit (the 2xx promises only that the event is stored durably); the router below routes
 *     the marked events at the start of every outbox worker pass, before the pass reads what is
 *     due. Rows cannot be posted before their channel's coalescing window anyway, and they are
 *     dated at the event's arrival, so the window and the delivery latency count from there.
 *
 * An event left marked by a crash (2xx answered, not yet routed) is routed by the first pass
 * after the next start: nothing answered 2xx is lost. ("Marked": route_pending, and on SQLite
 * after the router's cursor: store/notify-route-queue.ts.) The router also keeps each node's
 * status row (node-status.ts): the webhook's commit writes the event row and nothing else.
 */
import type { Logger } from '../log.js';
import { letThrough } from '../vocabulary/index.js';
import type { EventOutboxRow, NotifyStore, RoutingView, WatchRow } from '../store/index.js';
import { kindsOf } from './watch-service.js';
import { trackNodeStatus } from './node-status.js';

/**
 * Events routed per transaction, with the event loop held: about a millisecond. At 250 the
 * chunks were stretches of several milliseconds that webhooks waited behind (p99 at a steady
 * 1,000 events/s 23–33 ms against 16–23 ms at 50, in alternating pairs).
 */
export const ROUTE_CHUNK = 50;
/**
 * A backlog is routed in chunks ROUTE_BACKLOG_GROWTH times as large. A chunk's own cost does not
 * grow with it: its transaction, the cursor, and one status row written per node it touches (in
 * a storm of 50 nodes, 50 rows whether the chunk holds 50 events or 200). A grown chunk holds
 * the event loop 2–4 ms instead of 1–2.
 *
 * A pass finds a backlog when it has routed this many full chunks (200 events: a storm, a start
 * after downtime), and routes the rest grown. Measured alone (router-cost.ts, 2,000 events a
 * pass, three alternating pairs), the router's CPU per event fell by a third: 17–21 to 13 µs
 * with no watch, 32–34 to 20–22 with every node watched (docs/benchmarks.md, 2026-11-29).
 *
 * The backlog also outlasts the pass: a pass that routes more than 200 events starts the next
 * one grown, and a pass that routes 200 or fewer ends it. In a storm the outbox worker passes
 * every ~100 ms (its poll), each finding a few hundred events, and each began again with four
 * chunks of 50: 27 % of a 20,000-event storm went in chunks of 50 (the whole bot's routed run
 * in cpu-per-event.ts: 115 of 242 chunks; 16 of 163 since). Alone (router-cost.ts with every
 * node watched, passes of 324 events): 26–27 µs per event before, 16–18 since. A steady 1,000
 * events/s is in the backlog too: the worker passes when a burst's coalescing window ends, and
 * finds about 200 events. Its p99 did not suffer: three alternating pairs (`cpu-per-event.ts
 * --rate 1000`) read 9.5, 8.1 and 7.5 ms against 12.4, 8.3 and 11.7 before, at 435–493 µs of
 * CPU per event against 488–537.
 */
export const ROUTE_FULL_CHUNKS_BEFORE_GROWTH = 4;
export const ROUTE_BACKLOG_GROWTH = 4;
/** Events per pass at most (the rest at the next pass, which follows at once). */
export const ROUTE_EVENTS_PER_PASS = 10_000;

/**
 * The outbox row of a stored event in a watching channel: held while a mute covers the node
 * there at `now`. The row is dated `at` (the event's arrival): its coalescing window and its
 * delivery latency count from then.
 */
export function rowFor(
  routing: RoutingView,
  w: { platform: string; channel_id: string },
  eventId: number,
  nodeId: string,
  now: number,
  at: number = now,
): EventOutboxRow {
  const muted = routing.activeMute(w.platform, w.channel_id, nodeId, now) !== undefined;
  return {
    platform: w.platform,
    channel_id: w.channel_id,
    event_id: eventId,
    state: muted ? 'held' : 'pending',
    held_by_mute: muted ? 1 : 0,
    at,
  };
}

/** A watch's kinds and statuses filter, split once per watch row (rows are kept by the routing view). */
const parsedWatches = new WeakMap<object, { status: boolean; filter: string[] | undefined }>();
function parsed(w: Pick<WatchRow, 'kinds' | 'statuses'>): { status: boolean; filter: string[] | undefined } {
  let p = parsedWatches.get(w);
  if (!p) {
    p = { status: kindsOf(w).includes('status'), filter: w.statuses ? w.statuses.split(',') : undefined };
    parsedWatches.set(w, p);
  }
  return p;
}

/**
 * routesOf's answer when it needs no look-up (no await): undefined when a watch's statuses
 * filter drops the event's status, where an open incident would let it through (then ask routesOf).
 * An event on a node no channel watches: none, at the cost of one map look-up.
 */
export function routesNow(
  routing: RoutingView,
  event: { id: number; nodeId: string; status?: string },
  now: number,
  at: number = now,
): EventOutboxRow[] | undefined {
  const watches = routing.watchesFor(event.nodeId);
  if (!watches.length) return [];
  const seen = new Set<string>();
  const rows: EventOutboxRow[] = [];
  for (const w of watches) {
    const { status, filter } = parsed(w);
    const key = `${w.platform}|${w.channel_id}`;
    if (seen.has(key) || !status) continue;
    if (filter && (event.status === undefined || !filter.includes(event.status))) return undefined;
    seen.add(key);
    rows.push(rowFor(routing, w, event.id, event.nodeId, now, at));
  }
  return rows;
}

/**
 * Routes one stored service event: one outbox row per channel with a watch on its node (or on
 * `all`) that hears statuses, whose statuses filter lets its status through (or that has an
 * incident open for the node: the change that resolves it must be heard). Returns the rows, for
 * the caller to write (`store.insertEventRows`) in the transaction that holds the event's own
 * (or, for the router, its mark cleared).
 */
export async function routesOf(
  store: NotifyStore,
  routing: RoutingView,
  event: { id: number; nodeId: string; status?: string },
  now: number,
  at: number = now,
): Promise<EventOutboxRow[]> {
  const seen = new Set<string>();
  const rows: EventOutboxRow[] = [];
  for (const w of routing.watchesFor(event.nodeId)) {
    const { status, filter } = parsed(w);
    const key = `${w.platform}|${w.channel_id}`;
    if (seen.has(key) || !status) continue;
    const passes =
      !filter ||
      (event.status !== undefined && filter.includes(event.status)) ||
      (await store.openIncident(w.platform, w.channel_id, event.nodeId)) !== undefined;
    if (!passes) continue;
    seen.add(key);
    rows.push(rowFor(routing, w, event.id, event.nodeId, now, at));
  }
  return rows;
}

/** An event the router routed somewhere. */
export interface RoutedEvent {
  nodeId: string;
  status?: string;
  routed: number;
}

/**
 * Routes stored events, in id order, inside the caller's transaction (which holds the routing
 * turn, store.lockRouting): each moves its node's status row, its outbox rows carry the status
 * the node had before it, and the rows are written in a few statements. The events routed
 * somewhere, with how many rows each. (The router's chunks and ingestEvent's one event.)
 */
export async function routeStoredEvents(
  store: NotifyStore,
  routing: RoutingView,
  events: ReadonlyArray<{ id: number; node_id: string; status: string | null; event_ts: string | null; received_at?: number }>,
  now: number,
): Promise<RoutedEvent[]> {
  const nodes = await trackNodeStatus(
    store,
    events.map((e) => e.node_id),
  );
  const rows: EventOutboxRow[] = [];
  const out: RoutedEvent[] = [];
  for (const e of events) {
    // Every event moves its node's row (in id order), routed somewhere or not. No await where
    // nothing waits (the node's row known, no incident to look up): each costs a promise and,
    // with the SQLite layer's AsyncLocalStorage, its hooks.
    let prev = nodes.observe(e);
    if (typeof prev !== 'string') prev = await prev;
    const status = e.status ?? undefined;
    const one = { id: e.id, nodeId: e.node_id, status };
    const at = e.received_at ?? now;
    const mine = routesNow(routing, one, now, at) ?? (await routesOf(store, routing, one, now, at));
    if (!mine.length) continue;
    for (const r of mine) r.prev_status = prev;
    rows.push(...mine);
    out.push({ nodeId: e.node_id, status, routed: mine.length });
  }
  // In event order, a few statements for all of them; then the nodes' rows, one statement.
  await store.insertEventRows(rows);
  await nodes.save();
  return out;
}

export interface EventRouter {
  /**
   * Routes the events stored but not yet routed, oldest first, ROUTE_CHUNK per transaction
   * (take, route, mark them routed, bring their nodes' rows up to date: one commit), larger
   * chunks once the pass finds a backlog (ROUTE_FULL_CHUNKS_BEFORE_GROWTH) or the last pass
   * routed more events than the small chunks hold, the event loop let through between chunks.
   * Routers take turns (store.lockRouting).
   * Resolves true when none is left, false when it stopped after ROUTE_EVENTS_PER_PASS events.
   */
  routePending(): Promise<boolean>;
}

export function createEventRouter(o: {
  store: NotifyStore;
  now: () => number;
  log: Logger;
  /** After each chunk's commit, the events it routed somewhere (App Home refresh...). Must not throw. */
  afterCommit?: (routed: RoutedEvent[]) => void;
  /** Events per transaction at first (ROUTE_CHUNK); ROUTE_BACKLOG_GROWTH times as many in a backlog. */
  chunk?: number;
  /** Events per pass at most (ROUTE_EVENTS_PER_PASS). */
  maxEvents?: number;
}): EventRouter {
  const first = o.chunk ?? ROUTE_CHUNK;
  const maxEvents = o.maxEvents ?? ROUTE_EVENTS_PER_PASS;
  const grown = first * ROUTE_BACKLOG_GROWTH;
  const growthAt = first * ROUTE_FULL_CHUNKS_BEFORE_GROWTH;
  const { store } = o;
  /** The last pass routed more than `growthAt` events: a backlog that the next pass starts in grown chunks. */
  let backlog = false;
  return {
    async routePending() {
      const smallChunks = backlog ? 0 : ROUTE_FULL_CHUNKS_BEFORE_GROWTH;
      backlog = false;
      for (let i = 0, done = 0; done < maxEvents; i++) {
        if (i > 0) await letThrough();
        const chunk = Math.min(i < smallChunks ? first : grown, maxEvents - done);
        const { taken, routed } = await store.routingTx(async () => {
          await store.lockRouting();
          const events = await store.takeEventsToRoute(chunk);
          if (!events.length) return { taken: 0, routed: [] as RoutedEvent[] };
          const out = await routeStoredEvents(store, await store.routingView(), events, o.now());
          return { taken: events.length, routed: out };
        });
        if (taken) o.log.debug({ events: taken, routedEvents: routed.length }, 'stored events routed');
        if (routed.length) o.afterCommit?.(routed);
        done += taken;
        // More than the small chunks hold: the next pass starts grown.
        if (done > growthAt) backlog = true;
        if (taken < chunk) return true;
      }
      return false;
    },
  };
}
