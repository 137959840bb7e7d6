/**
 * SQL of the notify room (tables of migrations/notify.ts): events, watches, mutes,
 * outbox, incidents and notices. Synchronous (better-sqlite3); callers group writes in
 * `store.tx(() => ...)` so an event and its outbox rows commit together.
 * Watches and mutes, the outbox and incidents each have their repository (notify-watches.ts,
 * notify-outbox.ts, notify-incidents.ts); this store is the one face the notify room sees.
 */
import type { Db } from './database.js';
import { statementCache, type Statement } from './statement-cache.js';
import { routingIndexOf, type NotifyRoutingIndex } from './notify-routing-index.js';
import type { EventRow, NoticeRow } from './notify-rows.js';
import { NotifyWatches } from './notify-watches.js';
import { NotifyOutbox } from './notify-outbox.js';
import { NotifyIncidents } from './notify-incidents.js';

export type { EventRow, WatchRow, MuteRow, OutboxState, OutboxRow, OutboxEventRow, IncidentRow, NoticeRow } from './notify-rows.js';

export class NotifyStore {
  /** Statements prepared once and reused (this store is on the webhook and outbox hot paths). */
  private readonly q: (sql: string) => Statement;
  /** Watches and mutes in memory for routing; every write to them (NotifyWatches) tells it. */
  private readonly routing: NotifyRoutingIndex;
  /** One transaction function for every tx() (better-sqlite3 builds a new one per db.transaction call). */
  private readonly txn: (fn: () => unknown) => unknown;

  /** The repositories the methods below hand their work to. */
  private readonly watchRepo: NotifyWatches;
  private readonly outboxRepo: NotifyOutbox;
  private readonly incidentRepo: NotifyIncidents;

  constructor(readonly db: Db) {
    this.q = statementCache(db);
    this.routing = routingIndexOf(db, this.q);
    this.txn = db.transaction((fn: () => unknown) => fn());
    this.watchRepo = new NotifyWatches(this.q, this.routing);
    this.outboxRepo = new NotifyOutbox(this.q, (fn) => this.tx(fn));
    this.incidentRepo = new NotifyIncidents(this.q);
  }

  tx<T>(fn: () => T): T {
    return this.txn(fn) as T;
  }

  // ---- events ----
  /** Inserts an event; undefined when its dedupe key is already stored (a redelivery). */
  insertEvent(e: Omit<EventRow, 'id'>): number | undefined {
    const r = this.q(
        `INSERT INTO notify_events (dedupe_key, node_id, node_name, event_type, status, event_ts, received_at, payload, event_ms)
         VALUES (@dedupe_key, @node_id, @node_name, @event_type, @status, @event_ts, @received_at, @payload, @event_ms)
         ON CONFLICT (dedupe_key) DO NOTHING`,
      )
      .run({ event_ms: null, ...e });
    return r.changes ? Number(r.lastInsertRowid) : undefined;
  }

  eventByKey(key: string): EventRow | undefined {
    return this.q('SELECT * FROM notify_events WHERE dedupe_key = ?').get(key) as EventRow | undefined;
  }

  /** The status of the node's last event before `beforeEventId` (for counting changes). */
  previousStatus(nodeId: string, beforeEventId: number): string | undefined {
    return (
      (this.q('SELECT status FROM notify_events WHERE node_id = ? AND id < ? AND status IS NOT NULL ORDER BY id DESC LIMIT 1')
        .pluck()
        .get(nodeId, beforeEventId) as string | undefined) ?? undefined
    );
  }

  /** The node's most recent events that carry a status and a timestamp, newest arrival first. */
  recentStatusEvents(nodeId: string, limit = 50): Array<{ id: number; status: string; event_ts: string }> {
    return this.q(
      'SELECT id, status, event_ts FROM notify_events WHERE node_id = ? AND status IS NOT NULL AND event_ts IS NOT NULL ORDER BY id DESC LIMIT ?',
    ).all(nodeId, limit) as Array<{ id: number; status: string; event_ts: string }>;
  }

  countEvents(): number {
    return this.q('SELECT COUNT(*) FROM notify_events').pluck().get() as number;
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
  updateIncident(...a: Parameters<NotifyIncidents['updateIncident']>): ReturnType<NotifyIncidents['updateIncident']> {
    return this.incidentRepo.updateIncident(...a);
  }

  // ---- notices ----
  insertNotice(n: Omit<NoticeRow, 'id'>): number {
    return Number(
      this.q('INSERT INTO notify_notices (platform, channel_id, kind, text, created_at) VALUES (@platform, @channel_id, @kind, @text, @created_at)').run(n)
        .lastInsertRowid,
    );
  }

  /** When the channel last had a notice of this kind, if ever. */
  lastNoticeAt(platform: string, channelId: string, kind: string): number | undefined {
    return (
      (this.q('SELECT MAX(created_at) FROM notify_notices WHERE platform = ? AND channel_id = ? AND kind = ?').pluck().get(platform, channelId, kind) as
        | number
        | null) ?? undefined
    );
  }

  notices(): NoticeRow[] {
    return this.q('SELECT * FROM notify_notices ORDER BY id').all() as NoticeRow[];
  }
}
