/**
 * What routing (notify/route-pending.ts: the outbox worker's router for webhook events, and
 * ingestEvent/ingestActivity) reads for every event, held in memory: the active watches
 * by target and the mutes by channel. Routing an event then costs map look-ups instead of two
 * or more SQL queries per event and per watch.
 *
 * Kept in step with the database on either engine, across replicas: every write to watches or
 * mutes bumps the change counter `notify_routing` (store_generations) in its own transaction
 * (NotifyWatches), and `view()` reads that counter (one small query) and reloads both tables
 * when it differs from the one they were loaded at. So a watch added through one replica routes
 * the events another replica receives from its next view on. Routing reads one view per event,
 * or one per chunk of the router (route-pending.ts).
 *
 * The index is shared by every NotifyStore over the same connection. A write made inside a
 * caller's longer transaction is not cached until that transaction has ended (it may be rolled
 * back): until then, views are loaded afresh and not kept.
 */
import { perConnection } from './per-connection.js';
import type { AnyDb } from './database.js';
import { createGenerations, type Generations } from './leases.js';
import type { MuteRow, WatchRow } from './notify-rows.js';

/** The counter bumped by every write to notify_watches or notify_mutes. */
export const ROUTING_GENERATION = 'notify_routing';

/** Watches and mutes as of one read of the counter: plain look-ups, no I/O. */
export interface RoutingView {
  /** Active (not paused) watches on this node or on `all`, in id order. */
  watchesFor(nodeId: string): readonly WatchRow[];
  /** The mute that silences `nodeId` in this channel at `now`, if any. */
  activeMute(platform: string, channelId: string, nodeId: string, now: number): MuteRow | undefined;
}

const NONE: readonly WatchRow[] = Object.freeze([]);

class Loaded implements RoutingView {
  constructor(
    readonly gen: number,
    /** Active watches by target (a node id or `all`), in id order. */
    private readonly watches: Map<string, WatchRow[]>,
    /** Mutes by `platform|channel`. */
    private readonly mutes: Map<string, MuteRow[]>,
  ) {}

  watchesFor(nodeId: string): readonly WatchRow[] {
    const own = this.watches.get(nodeId);
    const all = this.watches.get('all');
    if (!own) return all ?? NONE;
    if (!all) return own;
    return [...own, ...all].sort((a, b) => a.id - b.id);
  }

  activeMute(platform: string, channelId: string, nodeId: string, now: number): MuteRow | undefined {
    let best: MuteRow | undefined;
    for (const m of this.mutes.get(`${platform}|${channelId}`) ?? []) {
      if ((m.target === nodeId || m.target === 'all') && m.until > now && (!best || m.until > best.until)) best = m;
    }
    return best;
  }
}

export class NotifyRoutingIndex {
  private loaded: Loaded | undefined;
  /** Set by a write inside a caller's transaction: nothing is cached until it ends. */
  private writtenInTx = false;
  readonly generations: Generations;

  constructor(private readonly db: AnyDb) {
    this.generations = createGenerations(db);
  }

  /** A watch or a mute was written (and its counter bumped): read them again on the next view. */
  changed(): void {
    this.loaded = undefined;
    if (this.db.inTransaction) this.writtenInTx = true;
  }

  /** The watches and mutes now: from memory unless the counter moved since they were loaded. */
  async view(): Promise<RoutingView> {
    // The counter first: rows read after it are at least as new as it says.
    const gen = await this.generations.current(ROUTING_GENERATION);
    if (this.writtenInTx) {
      if (this.db.inTransaction) return this.load(gen);
      this.writtenInTx = false;
      this.loaded = undefined;
    }
    if (this.loaded?.gen === gen) return this.loaded;
    const loaded = await this.load(gen);
    if (!this.writtenInTx) this.loaded = loaded;
    return loaded;
  }

  private async load(gen: number): Promise<Loaded> {
    const watches = new Map<string, WatchRow[]>();
    for (const w of await this.db.all<WatchRow>('SELECT * FROM notify_watches WHERE paused_at IS NULL ORDER BY id')) {
      const list = watches.get(w.target);
      if (list) list.push(w);
      else watches.set(w.target, [w]);
    }
    const mutes = new Map<string, MuteRow[]>();
    for (const m of await this.db.all<MuteRow>('SELECT * FROM notify_mutes')) {
      const key = `${m.platform}|${m.channel_id}`;
      const list = mutes.get(key);
      if (list) list.push(m);
      else mutes.set(key, [m]);
    }
    return new Loaded(gen, watches, mutes);
  }
}

/** The one index of this connection (every NotifyStore over it shares it, so each one's writes reach the others). */
export const routingIndexOf = perConnection((db) => new NotifyRoutingIndex(db));
