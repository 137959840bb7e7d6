/**
 * What the webhook's routing step reads for every event, held in memory: the active watches
 * by target and the mutes by channel. Routing an event then costs map look-ups instead of two
 * or more SQL queries per event and per watch.
 *
 * Kept in step with the store: every NotifyStore method that writes watches or mutes calls
 * `changed()`, which drops the cached rows (they are read again on the next look-up). The
 * index is shared by every NotifyStore over the same connection, and `PRAGMA data_version`
 * tells when another connection to the same file has committed, which drops it too. A write
 * made inside a transaction is not cached until that transaction has ended (it may be rolled
 * back): until then, look-ups read the tables.
 */
import type { Db } from './database.js';
import type { Statement } from './statement-cache.js';
import type { MuteRow, WatchRow } from './notify-rows.js';

interface Loaded {
  /** Active watches by target (a node id or `all`), in id order. */
  watches: Map<string, WatchRow[]>;
  /** Mutes by `platform|channel`. */
  mutes: Map<string, MuteRow[]>;
  dataVersion: number;
}

const NONE: readonly WatchRow[] = Object.freeze([]);

export class NotifyRoutingIndex {
  private loaded: Loaded | undefined;
  /** Set by a write inside a transaction: nothing is cached until it ends. */
  private writtenInTx = false;

  constructor(
    private readonly db: Db,
    private readonly q: (sql: string) => Statement,
  ) {}

  /** A watch or a mute was written: read them again on the next look-up. */
  changed(): void {
    this.loaded = undefined;
    if (this.db.inTransaction) this.writtenInTx = true;
  }

  /** Active (not paused) watches on this node or on `all`, in id order; undefined: ask the table. */
  watchesFor(nodeId: string): readonly WatchRow[] | undefined {
    const l = this.current();
    if (!l) return undefined;
    const own = l.watches.get(nodeId);
    const all = l.watches.get('all');
    if (!own) return all ?? NONE;
    if (!all) return own;
    return [...own, ...all].sort((a, b) => a.id - b.id);
  }

  /** The mute that silences `nodeId` in this channel at `now`; null: none; undefined: ask the table. */
  activeMute(platform: string, channelId: string, nodeId: string, now: number): MuteRow | null | undefined {
    const l = this.current();
    if (!l) return undefined;
    let best: MuteRow | null = null;
    for (const m of l.mutes.get(`${platform}|${channelId}`) ?? []) {
      if ((m.target === nodeId || m.target === 'all') && m.until > now && (!best || m.until > best.until)) best = m;
    }
    return best;
  }

  private current(): Loaded | undefined {
    if (this.writtenInTx) {
      if (this.db.inTransaction) return undefined;
      this.writtenInTx = false;
      this.loaded = undefined;
    }
    const dataVersion = this.q('PRAGMA data_version').pluck().get() as number;
    if (this.loaded && this.loaded.dataVersion === dataVersion) return this.loaded;
    const watches = new Map<string, WatchRow[]>();
    for (const w of this.q('SELECT * FROM notify_watches WHERE paused_at IS NULL ORDER BY id').all() as WatchRow[]) {
      const list = watches.get(w.target);
      if (list) list.push(w);
      else watches.set(w.target, [w]);
    }
    const mutes = new Map<string, MuteRow[]>();
    for (const m of this.q('SELECT * FROM notify_mutes').all() as MuteRow[]) {
      const key = `${m.platform}|${m.channel_id}`;
      const list = mutes.get(key);
      if (list) list.push(m);
      else mutes.set(key, [m]);
    }
    this.loaded = { watches, mutes, dataVersion };
    return this.loaded;
  }
}

const indexes = new WeakMap<Db, NotifyRoutingIndex>();

/** The one index of this connection (every NotifyStore over it shares it, so each one's writes reach the others). */
export function routingIndexOf(db: Db, q: (sql: string) => Statement): NotifyRoutingIndex {
  let index = indexes.get(db);
  if (!index) {
    index = new NotifyRoutingIndex(db, q);
    indexes.set(db, index);
  }
  return index;
}
