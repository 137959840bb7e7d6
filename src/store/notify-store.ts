/**
 * SQL of the notify room (tables of migrations/notify.ts): events, watches, mutes, outbox,
 * incidents and notices, on either engine (AnyDb). Async; callers group writes in
 * `store.tx(async () => ...)` so what belongs together commits together (an event and its
 * outbox rows on ingestEvent; a router's chunk: the marks cleared and the rows written).
 * Watches and mutes, the outbox and incidents each have their repository (notify-watches.ts,
 * notify-outbox.ts, notify-incidents.ts); this store is the one face the notify room sees.
 */
import type { AnyDb } from './database.js';
import { routingIndexOf, type NotifyRoutingIndex, type RoutingView } from './notify-routing-index.js';
import type { EventRow, EventToRoute, NoticeRow } from './notify-rows.js';
import { NotifyWatches } from './notify-watches.js';
import { NotifyOutbox } from './notify-outbox.js';
import { NotifyIncidents } from './notify-incidents.js';
import {
  BARE_KEYS_STORED,
  eventInserts,
  insertEventsOneByOne,
  storedEventKey,
  STORED_KEY_MARK,
  STORED_KEY_PREFIX_LENGTH,
} from './notify-event-inserts.js';
import { NotifyNodes, type NodeStatusState } from './notify-nodes.js';
import { NotifyRouteQueue } from './notify-route-queue.js';

export { storedEventKey } from './notify-event-inserts.js';
export type { EventToRoute } from './notify-rows.js';
export type { EventOutboxRow } from './notify-outbox.js';
export type { EventRow, WatchRow, MuteRow, OutboxState, OutboxRow, OutboxEventRow, IncidentRow, NoticeRow } from './notify-rows.js';
export type { RoutingView } from './notify-routing-index.js';
export type { NodeStatusState } from './notify-nodes.js';

export class NotifyStore {
  /** Watches and mutes in memory for routing; every write to them (NotifyWatches) bumps its counter. */
  private readonly routing: NotifyRoutingIndex;

  /** The repositories the methods below hand their work to. */
  private readonly watchRepo: NotifyWatches;
  private readonly outboxRepo: NotifyOutbox;
  private readonly incidentRepo: NotifyIncidents;
  private readonly nodes: NotifyNodes;
  private readonly routeQueue: NotifyRouteQueue;

  /** Whether a key may be stored as given by an older version (insertEventsNow); undefined until asked. */
  private bareKeysStored: boolean | undefined;

  constructor(readonly db: AnyDb) {
    this.routing = routingIndexOf(db);
    this.watchRepo = new NotifyWatches(db, this.routing);
    this.nodes = new NotifyNodes(db);
    this.routeQueue = new NotifyRouteQueue(db);
    this.outboxRepo = new NotifyOutbox(db, this.routeQueue.routedCondition());
    this.incidentRepo = new NotifyIncidents(db);
  }

  /**
   * One transaction (a savepoint inside another): everything `fn` does commits together or not at
   * all. (A savepoint that fails forgets the per-node rows kept in memory: notify-nodes-cache.ts.)
   */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.inTransaction ? this.nodes.cache.savepoint(fn) : this.db.tx(fn);
  }

  /**
   * A transaction that routes (the router's chunk, ingestEvent): as `tx`, and on SQLite the
   * per-node status rows are kept in memory across such transactions (notify-nodes-cache.ts).
   */
  routingTx<T>(fn: () => Promise<T>): Promise<T> {
    return this.nodes.cache.tx(fn);
  }

  /**
   * The watches and mutes routing reads, from memory unless another connection or replica
   * changed them (one read of their change counter). Read once per event or per batch.
   */
  routingView(): Promise<RoutingView> {
    return this.routing.view();
  }

  // ---- events ----
  /**
   * Inserts an event; undefined when its dedupe key is already stored (a redelivery).
   *
   * On SQLite the key is stored behind the event's own time (`storedEventKey`), so the unique
   * index on it grows at its end, as the events come, instead of at a random place for each
   * (a key is a hash): a batch of 9 events dirtied ~13 pages of that index, now ~3 (measured
   * with test/bench/store-write.ts). The time is the one the event carries (`event_ms`), so a
   * redelivery gets the same stored key; a key stored as it was before (no prefix) is still
   * found, in the same statement. PostgreSQL keeps the key as given: replicas of an older
   * version may share its database during an upgrade, and they look only for the bare key.
   */
  async insertEvent(e: Omit<EventRow, 'id'>): Promise<number | undefined> {
    const ordered = this.db.engine === 'sqlite' ? storedEventKey(e.dedupe_key, e.event_ms) : undefined;
    const r = ordered
      ? await this.db.run(
          `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms, route_pending)
           SELECT @stored_key, @node_id, @node_name, @event_type, @status, @event_ts, @received_at, @payload, @event_ms, @route_pending
           WHERE NOT EXISTS (SELECT 1 FROM notify_events WHERE dedupe_key = @dedupe_key)
           ON CONFLICT (dedupe_key) DO NOTHING
           RETURNING id`,
          { route_pending: null, ...e, stored_key: ordered },
        )
      : await this.db.run(
          `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms, route_pending)
           VALUES (@dedupe_key, @node_id, @node_name, @event_type, @status, @event_ts, @received_at, @payload, @event_ms, @route_pending)
           ON CONFLICT (dedupe_key) DO NOTHING
           RETURNING id`,
          { event_ms: null, route_pending: null, ...e },
        );
    return r.rows.length ? Number(r.rows[0].id) : undefined;
  }

  /**
   * Inserts a burst of events, several per statement (16, 8, 4, 2 or 1 rows: a few statement
   * texts, each prepared once), with insertEvent's answer for each, in the order given: its id,
   * or undefined for a duplicate, a key stored before (also as given, by an older version, on
   * SQLite) or earlier in the same burst (the first of a key wins, as one insertEvent after the
   * other would have it). A burst of 9 events is two statements instead of nine.
   *
   * The duplicates inside the burst are found here, by the key as it is stored, so no statement
   * holds two rows of one key; the statement finds those stored before. Its RETURNING gives the
   * stored key of each row it inserted (in no promised order), which says whose id it is.
   */
  async insertEvents(events: ReadonlyArray<Omit<EventRow, 'id'>>): Promise<Array<number | undefined>> {
    const { ids, statements } = eventInserts(events, this.db.engine === 'sqlite');
    for (const st of statements) st.answered(await this.db.run(st.text, st.params));
    return ids;
  }

  /**
   * Asks now insertEventsNow's question (BARE_KEYS_STORED: may a key be stored as given by an
   * older version?), so that the first webhook batch does not wait for it: it reads every key
   * stored without the time prefix, ~0.2 s for 100,000 activity events. For the notifier's
   * start; without it, the first insertEventsNow asks.
   */
  async prepareWrites(): Promise<void> {
    if (this.db.engine !== 'sqlite' || this.bareKeysStored !== undefined) return;
    const found = (await this.db.get(BARE_KEYS_STORED)) !== undefined;
    this.bareKeysStored ??= found;
  }

  /**
   * insertEvents at once, in a transaction of its own (Sql.txNow, SQLite): no promise on the way.
   * Undefined when the database cannot now (PostgreSQL, or a transaction holds the connection):
   * then insertEvents, in a tx(). The same answer; unless an older version's keys may be stored
   * as given, written one prepared row at a time, with no look for them (insertEventsOneByOne).
   */
  insertEventsNow(events: ReadonlyArray<Omit<EventRow, 'id'>>): Array<number | undefined> | undefined {
    return this.db.txNow?.((q) => {
      // Asked once, in the first such transaction: whether a key may be stored as given (BARE_KEYS_STORED).
      this.bareKeysStored ??= q.run(BARE_KEYS_STORED).rows.length > 0;
      if (!this.bareKeysStored) return insertEventsOneByOne(events, q);
      const { ids, statements } = eventInserts(events, this.db.engine === 'sqlite');
      for (const st of statements) st.answered(q.run(st.text, st.params));
      return ids;
    })?.value;
  }

  /**
   * Takes up to `limit` events stored but not yet routed, oldest first, and marks them routed
   * (notify-route-queue.ts: a cursor on SQLite, the marks cleared on PostgreSQL). Call it inside
   * the transaction that writes their outbox rows: if that transaction rolls back, they are
   * still to route and a later pass routes them. On PostgreSQL replicas routing at the same
   * time each take different events: every event is routed once.
   */
  takeEventsToRoute(limit: number): Promise<EventToRoute[]> {
    return this.routeQueue.take(limit);
  }

  /** Events stored but not yet routed (a count of the backlog only). */
  eventsToRouteCount(): Promise<number> {
    return this.routeQueue.count();
  }

  /**
   * Routers take turns (the rest of the caller's transaction): each reads the per-node rows the
   * one before it wrote, so the previous status it stores is the node's last one. PostgreSQL's
   * replicas each route (a transaction-level advisory lock); SQLite's transactions take turns
   * already.
   */
  async lockRouting(): Promise<void> {
    if (this.db.engine === 'postgres') await this.db.exec(`SELECT pg_advisory_xact_lock(${ROUTING_LOCK})`);
  }

  /** The per-node status rows of these nodes (notify-nodes.ts). */
  nodeStates(nodeIds: readonly string[]): Promise<Map<string, NodeStatusState>> {
    return this.nodes.states(nodeIds);
  }

  /** Writes per-node status rows, merged with what is stored (notify-nodes.ts). */
  saveNodeStates(states: readonly NodeStatusState[]): Promise<void> {
    return this.nodes.save(states);
  }

  /**
   * The event stored under this dedupe key (as given to insertEvent), if any. A key stored
   * behind its event's time is found by a scan: for tests and diagnostics, not a hot path.
   */
  async eventByKey(key: string): Promise<EventRow | undefined> {
    const row =
      (await this.db.get<EventRow>('SELECT * FROM notify_events WHERE dedupe_key = ?', [key])) ??
      (this.db.engine === 'sqlite'
        ? await this.db.get<EventRow>(
            `SELECT * FROM notify_events WHERE length(dedupe_key) = ? AND substr(dedupe_key, ${STORED_KEY_PREFIX_LENGTH + 1}) = ? AND substr(dedupe_key, 1, 1) = '${STORED_KEY_MARK}'`,
            [key.length + STORED_KEY_PREFIX_LENGTH, key],
          )
        : undefined);
    return row && { ...row, dedupe_key: key };
  }

  /**
   * The status of the node's last event before `beforeEventId`, from the events table: what a
   * round reads when an outbox row does not carry it (prev_status: rows written before it was).
   */
  previousStatus(nodeId: string, beforeEventId: number): Promise<string | undefined> {
    return this.nodes.statusBefore(nodeId, beforeEventId);
  }

  async countEvents(): Promise<number> {
    return (await this.db.value<number>('SELECT COUNT(*) FROM notify_events')) ?? 0;
  }

  // ---- watches and mutes (NotifyWatches) ----
  upsertWatch(...a: Parameters<NotifyWatches['upsertWatch']>): ReturnType<NotifyWatches['upsertWatch']> {
    return this.watchRepo.upsertWatch(...a);
  }
  deleteWatch(...a: Parameters<NotifyWatches['deleteWatch']>): ReturnType<NotifyWatches['deleteWatch']> {
    return this.watchRepo.deleteWatch(...a);
  }
  watches(...a: Parameters<NotifyWatches['watches']>): ReturnType<NotifyWatches['watches']> {
    return this.watchRepo.watches(...a);
  }
  watchesFor(...a: Parameters<NotifyWatches['watchesFor']>): ReturnType<NotifyWatches['watchesFor']> {
    return this.watchRepo.watchesFor(...a);
  }
  pauseWatches(...a: Parameters<NotifyWatches['pauseWatches']>): ReturnType<NotifyWatches['pauseWatches']> {
    return this.watchRepo.pauseWatches(...a);
  }
  upsertMute(...a: Parameters<NotifyWatches['upsertMute']>): ReturnType<NotifyWatches['upsertMute']> {
    return this.watchRepo.upsertMute(...a);
  }
  deleteMutes(...a: Parameters<NotifyWatches['deleteMutes']>): ReturnType<NotifyWatches['deleteMutes']> {
    return this.watchRepo.deleteMutes(...a);
  }
  mutes(...a: Parameters<NotifyWatches['mutes']>): ReturnType<NotifyWatches['mutes']> {
    return this.watchRepo.mutes(...a);
  }
  activeMute(...a: Parameters<NotifyWatches['activeMute']>): ReturnType<NotifyWatches['activeMute']> {
    return this.watchRepo.activeMute(...a);
  }
  deleteExpiredMutes(...a: Parameters<NotifyWatches['deleteExpiredMutes']>): ReturnType<NotifyWatches['deleteExpiredMutes']> {
    return this.watchRepo.deleteExpiredMutes(...a);
  }

  // ---- outbox (NotifyOutbox) ----
  insertOutbox(...a: Parameters<NotifyOutbox['insertOutbox']>): ReturnType<NotifyOutbox['insertOutbox']> {
    return this.outboxRepo.insertOutbox(...a);
  }
  insertEventRows(...a: Parameters<NotifyOutbox['insertEventRows']>): ReturnType<NotifyOutbox['insertEventRows']> {
    return this.outboxRepo.insertEventRows(...a);
  }
  pendingChannels(...a: Parameters<NotifyOutbox['pendingChannels']>): ReturnType<NotifyOutbox['pendingChannels']> {
    return this.outboxRepo.pendingChannels(...a);
  }
  duePending(...a: Parameters<NotifyOutbox['duePending']>): ReturnType<NotifyOutbox['duePending']> {
    return this.outboxRepo.duePending(...a);
  }
  releasableHeldIds(...a: Parameters<NotifyOutbox['releasableHeldIds']>): ReturnType<NotifyOutbox['releasableHeldIds']> {
    return this.outboxRepo.releasableHeldIds(...a);
  }
  releaseHeld(...a: Parameters<NotifyOutbox['releaseHeld']>): ReturnType<NotifyOutbox['releaseHeld']> {
    return this.outboxRepo.releaseHeld(...a);
  }
  markSent(...a: Parameters<NotifyOutbox['markSent']>): ReturnType<NotifyOutbox['markSent']> {
    return this.outboxRepo.markSent(...a);
  }
  markState(...a: Parameters<NotifyOutbox['markState']>): ReturnType<NotifyOutbox['markState']> {
    return this.outboxRepo.markState(...a);
  }
  postponeLaterStored(...a: Parameters<NotifyOutbox['postponeLaterStored']>): ReturnType<NotifyOutbox['postponeLaterStored']> {
    return this.outboxRepo.postponeLaterStored(...a);
  }
  failByDedupeKeys(...a: Parameters<NotifyOutbox['failByDedupeKeys']>): ReturnType<NotifyOutbox['failByDedupeKeys']> {
    return this.outboxRepo.failByDedupeKeys(...a);
  }
  postpone(...a: Parameters<NotifyOutbox['postpone']>): ReturnType<NotifyOutbox['postpone']> {
    return this.outboxRepo.postpone(...a);
  }
  pendingIdsOfChannel(...a: Parameters<NotifyOutbox['pendingIdsOfChannel']>): ReturnType<NotifyOutbox['pendingIdsOfChannel']> {
    return this.outboxRepo.pendingIdsOfChannel(...a);
  }
  depth(...a: Parameters<NotifyOutbox['depth']>): ReturnType<NotifyOutbox['depth']> {
    return this.outboxRepo.depth(...a);
  }
  outboxRows(...a: Parameters<NotifyOutbox['outboxRows']>): ReturnType<NotifyOutbox['outboxRows']> {
    return this.outboxRepo.outboxRows(...a);
  }
  prune(...a: Parameters<NotifyOutbox['prune']>): ReturnType<NotifyOutbox['prune']> {
    return this.outboxRepo.prune(...a);
  }

  // ---- incidents (NotifyIncidents) ----
  openIncident(...a: Parameters<NotifyIncidents['openIncident']>): ReturnType<NotifyIncidents['openIncident']> {
    return this.incidentRepo.openIncident(...a);
  }
  openIncidentsOf(...a: Parameters<NotifyIncidents['openIncidentsOf']>): ReturnType<NotifyIncidents['openIncidentsOf']> {
    return this.incidentRepo.openIncidentsOf(...a);
  }
  incident(...a: Parameters<NotifyIncidents['incident']>): ReturnType<NotifyIncidents['incident']> {
    return this.incidentRepo.incident(...a);
  }
  incidents(...a: Parameters<NotifyIncidents['incidents']>): ReturnType<NotifyIncidents['incidents']> {
    return this.incidentRepo.incidents(...a);
  }
  insertIncident(...a: Parameters<NotifyIncidents['insertIncident']>): ReturnType<NotifyIncidents['insertIncident']> {
    return this.incidentRepo.insertIncident(...a);
  }
  deleteIncident(...a: Parameters<NotifyIncidents['deleteIncident']>): ReturnType<NotifyIncidents['deleteIncident']> {
    return this.incidentRepo.deleteIncident(...a);
  }
  clearIncidentMessage(...a: Parameters<NotifyIncidents['clearIncidentMessage']>): ReturnType<NotifyIncidents['clearIncidentMessage']> {
    return this.incidentRepo.clearIncidentMessage(...a);
  }
  setIncidentMessage(...a: Parameters<NotifyIncidents['setIncidentMessage']>): ReturnType<NotifyIncidents['setIncidentMessage']> {
    return this.incidentRepo.setIncidentMessage(...a);
  }
  acknowledgeIncident(...a: Parameters<NotifyIncidents['acknowledgeIncident']>): ReturnType<NotifyIncidents['acknowledgeIncident']> {
    return this.incidentRepo.acknowledgeIncident(...a);
  }
  updateIncident(...a: Parameters<NotifyIncidents['updateIncident']>): ReturnType<NotifyIncidents['updateIncident']> {
    return this.incidentRepo.updateIncident(...a);
  }

  // ---- notices ----
  async insertNotice(n: Omit<NoticeRow, 'id'>): Promise<number> {
    const r = await this.db.run(
      'INSERT INTO notify_notices (platform, channel_id, kind, text, created_at) VALUES (@platform, @channel_id, @kind, @text, @created_at) RETURNING id',
      { platform: n.platform, channel_id: n.channel_id, kind: n.kind, text: n.text, created_at: n.created_at },
    );
    return Number(r.rows[0].id);
  }

  /** When the channel last had a notice of this kind, if ever. */
  async lastNoticeAt(platform: string, channelId: string, kind: string): Promise<number | undefined> {
    return this.db.value<number>('SELECT MAX(created_at) FROM notify_notices WHERE platform = ? AND channel_id = ? AND kind = ?', [
      platform,
      channelId,
      kind,
    ]);
  }

  async notices(): Promise<NoticeRow[]> {
    return this.db.all<NoticeRow>('SELECT * FROM notify_notices ORDER BY id');
  }
}

/** The advisory lock routers take turns on (PostgreSQL): see lockRouting. */
const ROUTING_LOCK = 7_264_229;
