/**
 * Which channels watch which nodes, mutes, and incident acknowledgements: what the `watch`
 * commands use (through `services.watches`). Stored in the database; survives restarts.
 */
import { UserError, actorLabel } from '../vocabulary/index.js';
import type { Actor, Place, Platform } from '../vocabulary/index.js';
import type { IncidentRow, MuteRow, NotifyStore, WatchRow } from '../store/index.js';

/** `all`, or a node id. */
export type WatchTarget = string;
export const ALL_NODES = 'all';

export interface Watch {
  id: number;
  platform: Platform;
  channelId: string;
  target: WatchTarget;
  targetName?: string;
  /** Only these statuses are posted; undefined = every status. */
  statuses?: string[];
  /** What the watch hears: `status` and/or activity kinds (payments, channels, …). Default: status only. */
  kinds: string[];
  /** Payments and transfers below this (msat) are not posted. */
  minAmountMsat?: number;
  /** An incident not acknowledged within this many minutes is escalated (default: ESCALATE_AFTER_MIN). */
  escalateAfterMin?: number;
  /** A PagerDuty routing key for this watch's incidents (instead of PAGERDUTY_ROUTING_KEY). */
  pagerdutyKey?: string;
  /** The watch's own thresholds for the watch kinds (`utxos_below: 5`, …); the account's settings for the rest. */
  thresholds?: Record<string, number | string>;
  createdBy: string;
  createdAt: Date;
  /** Set when the channel was found gone; `watch add` again resumes it. */
  paused?: { at: Date; reason: string };
  /** Set while a mute covers this watch's target. */
  mutedUntil?: Date;
}

export interface Incident {
  id: number;
  platform: Platform;
  channelId: string;
  nodeId: string;
  nodeName?: string;
  state: 'open' | 'resolved';
  lastStatus: string;
  openedAt: Date;
  resolvedAt?: Date;
  ackedBy?: string;
  ackedAt?: Date;
  messageId?: string;
}

export interface WatchService {
  /** Adds (or replaces the filter of, or resumes) the channel's watch on a node or on `all`. */
  add(input: {
    place: Place;
    target: WatchTarget;
    targetName?: string;
    statuses?: string[];
    /** Default: status only (docs/ARCHITECTURE.md, "Adding an alert kind": without `kinds=` a watch hears status changes only). */
    kinds?: string[];
    minAmountMsat?: number;
    escalateAfterMin?: number;
    pagerdutyKey?: string;
    thresholds?: Record<string, number | string>;
    actor: Actor;
  }): Promise<Watch>;
  /** Whether an active watch hears any activity kind (not only status) of this node. */
  hearsActivity(nodeId: string): Promise<boolean>;
  /** The kinds and own thresholds of the active watches of this node that hear activity (the poller's profile). */
  activityWatches(nodeId: string): Promise<Array<{ kinds: string[]; thresholds: Record<string, number | string> }>>;
  /** True when a watch was removed. */
  remove(place: Place, target: WatchTarget): Promise<boolean>;
  /** The watches of one channel, or of every channel. */
  list(place?: Pick<Place, 'platform' | 'channelId'>): Promise<Watch[]>;
  /** Holds the channel's notifications for `target` (a node id or `all`) for `minutes`; they are summarised when the mute ends. */
  mute(input: { place: Place; target: WatchTarget; minutes: number; actor: Actor }): Promise<{ until: Date }>;
  /** The channel's mutes that have not ended yet: on what (a node id or `all`), until when, set by whom. */
  mutes(place: Pick<Place, 'platform' | 'channelId'>): Promise<Array<{ target: WatchTarget; until: Date; mutedBy: string }>>;
  /** Ends mutes in the channel (one target, or all of them); returns how many ended. The held events are posted as one summary. */
  unmute(place: Place, target?: WatchTarget): Promise<number>;
  /** Records who acknowledged an open incident; stops repeat notifications for it. */
  /** Only from the channel the incident was posted in (the button is there; the number is easy to guess). */
  /** `nodeId`: the node the acknowledgement was allowed on (a node-scoped role); refused when the incident is another node's. */
  ack(input: {
    incidentId: number;
    actor: Actor;
    place: Pick<Place, 'platform' | 'channelId'>;
    nodeId?: string;
  }): Promise<{ incident: Incident; already: boolean }>;
  incidents(filter?: { place?: Pick<Place, 'platform' | 'channelId'>; state?: 'open' | 'resolved' }): Promise<Incident[]>;
}

/** The kinds a watch row hears: status only when none were chosen. */
export function kindsOf(w: Pick<WatchRow, 'kinds'>): string[] {
  return w.kinds ? w.kinds.split(',') : ['status'];
}

/** A watch row's own thresholds (an unreadable column counts as none). */
export function thresholdsOf(w: Pick<WatchRow, 'thresholds'>): Record<string, number | string> {
  if (!w.thresholds) return {};
  try {
    const v = JSON.parse(w.thresholds) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number | string>) : {};
  } catch {
    return {};
  }
}

export function toIncident(r: IncidentRow): Incident {
  return {
    id: r.id,
    platform: r.platform as Platform,
    channelId: r.channel_id,
    nodeId: r.node_id,
    nodeName: r.node_name ?? undefined,
    state: r.state,
    lastStatus: r.last_status,
    openedAt: new Date(r.opened_at),
    resolvedAt: r.resolved_at ? new Date(r.resolved_at) : undefined,
    ackedBy: r.acked_by ?? undefined,
    ackedAt: r.acked_at ? new Date(r.acked_at) : undefined,
    messageId: r.message_id ?? undefined,
  };
}

export function createWatchService(opts: { store: NotifyStore; now: () => number; wake: () => void }): WatchService {
  const { store, now } = opts;

  /** `mutes`: the mutes read once for a whole list (any channels), or the watch's channel's. */
  const toWatch = (r: WatchRow, mutes: MuteRow[]): Watch => {
    const t = now();
    const covering = mutes.filter(
      (m) => m.platform === r.platform && m.channel_id === r.channel_id && m.until > t && (m.target === r.target || m.target === ALL_NODES),
    );
    const until = covering.reduce((x, m) => Math.max(x, m.until), 0);
    return {
      id: r.id,
      platform: r.platform as Platform,
      channelId: r.channel_id,
      target: r.target,
      targetName: r.target_name ?? undefined,
      statuses: r.statuses ? r.statuses.split(',') : undefined,
      kinds: kindsOf(r),
      minAmountMsat: r.min_amount_msat ?? undefined,
      escalateAfterMin: r.escalate_after_min ?? undefined,
      pagerdutyKey: r.pagerduty_key ?? undefined,
      thresholds: r.thresholds ? thresholdsOf(r) : undefined,
      createdBy: r.created_by,
      createdAt: new Date(r.created_at),
      paused: r.paused_at ? { at: new Date(r.paused_at), reason: r.paused_reason ?? '' } : undefined,
      mutedUntil: until ? new Date(until) : undefined,
    };
  };

  return {
    async add({ place, target, targetName, statuses, kinds, minAmountMsat, escalateAfterMin, pagerdutyKey, thresholds, actor }) {
      const list = statuses?.map((s) => s.trim().toUpperCase()).filter(Boolean);
      const row = await store.upsertWatch({
        platform: place.platform,
        channel_id: place.channelId,
        workspace_id: place.workspaceId ?? null,
        target,
        target_name: targetName ?? null,
        statuses: list && list.length ? [...new Set(list)].join(',') : null,
        kinds: kinds?.length ? [...new Set(kinds)].join(',') : null,
        min_amount_msat: minAmountMsat ?? null,
        escalate_after_min: escalateAfterMin ?? null,
        pagerduty_key: pagerdutyKey ?? null,
        thresholds: thresholds && Object.keys(thresholds).length ? JSON.stringify(thresholds) : null,
        created_by: actorLabel(actor),
        created_at: now(),
      });
      return toWatch(row, await store.mutes(row.platform, row.channel_id));
    },
    async hearsActivity(nodeId) {
      return (await store.watchesFor(nodeId)).some((w) => kindsOf(w).some((k) => k !== 'status'));
    },
    async activityWatches(nodeId) {
      return (await store.watchesFor(nodeId))
        .filter((w) => kindsOf(w).some((k) => k !== 'status'))
        .map((w) => ({ kinds: kindsOf(w), thresholds: thresholdsOf(w) }));
    },
    async remove(place, target) {
      return store.deleteWatch(place.platform, place.channelId, target);
    },
    async list(place) {
      const mutes = place ? await store.mutes(place.platform, place.channelId) : await store.mutes();
      return (await store.watches(place ? { platform: place.platform, channelId: place.channelId } : {})).map((w) => toWatch(w, mutes));
    },
    async mute({ place, target, minutes, actor }) {
      if (!Number.isFinite(minutes) || minutes <= 0)
        throw new UserError('invalid_arguments', 'minutes must be a positive number', 'e.g. minutes=60');
      const until = now() + Math.round(minutes * 60_000);
      await store.upsertMute({
        platform: place.platform,
        channel_id: place.channelId,
        target,
        until,
        muted_by: actorLabel(actor),
        created_at: now(),
      });
      return { until: new Date(until) };
    },
    async mutes(place) {
      const t = now();
      return (await store.mutes(place.platform, place.channelId))
        .filter((m) => m.until > t)
        .map((m) => ({ target: m.target, until: new Date(m.until), mutedBy: m.muted_by }));
    },
    async unmute(place, target) {
      // Mutes that already ended linger until the worker's housekeeping: they are not counted as ended now.
      await store.deleteExpiredMutes(now());
      const n = await store.deleteMutes(place.platform, place.channelId, target);
      opts.wake();
      return n;
    },
    async ack({ incidentId, actor, place, nodeId }) {
      const inc = await store.incident(incidentId);
      // Another channel's incident is answered as unknown, not as forbidden: its number says nothing here.
      if (!inc || inc.platform !== place.platform || inc.channel_id !== place.channelId) {
        throw new UserError(
          'invalid_arguments',
          `there is no incident #${incidentId} in this channel`,
          "use the Acknowledge button on the incident message, or `watch list` to see this channel's open incidents",
        );
      }
      // The role was checked on this node: the incident must be this node's.
      if (nodeId !== undefined && inc.node_id !== nodeId) {
        throw new UserError(
          'forbidden',
          `incident #${incidentId} is not about that node`,
          `it is about ${inc.node_name || inc.node_id}: use the Acknowledge button on its message, or name that node`,
        );
      }
      if (inc.state !== 'open' || inc.acked_by) return { incident: toIncident(inc), already: true };
      const by = actorLabel(actor);
      const at = now();
      // The check and the write are one guarded UPDATE: two clicks (on two replicas) cannot both pass.
      const acked = await store.tx(async () => {
        if (!(await store.acknowledgeIncident(inc.id, by, at))) return false;
        await store.insertOutbox({
          platform: inc.platform,
          channel_id: inc.channel_id,
          kind: 'incident',
          incident_id: inc.id,
          note: `Acknowledged by ${by}. Repeat notifications for this incident stop; updates continue in this thread.`,
          next_attempt_at: at,
          created_at: at,
        });
        return true;
      });
      if (!acked) return { incident: toIncident((await store.incident(inc.id))!), already: true };
      opts.wake();
      return { incident: toIncident((await store.incident(inc.id))!), already: false };
    },
    async incidents(filter = {}) {
      return (await store.incidents({ platform: filter.place?.platform, channelId: filter.place?.channelId, state: filter.state })).map(
        toIncident,
      );
    },
  };
}
