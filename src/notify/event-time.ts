/** Reading the time and order of stored events (pure helpers of the outbox plan and the incidents). */
import type { OutboxEventRow } from '../store/index.js';

/** In the event's own time order (deliveries can arrive out of order); by arrival when the times tie or are missing. */
export function byEventTime(a: OutboxEventRow, b: OutboxEventRow): number {
  const ta = a.ev_event_ts ? Date.parse(a.ev_event_ts) : NaN;
  const tb = b.ev_event_ts ? Date.parse(b.ev_event_ts) : NaN;
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
  return (a.event_id ?? 0) - (b.event_id ?? 0);
}

/**
 * `rows` in byEventTime's order, each timestamp parsed once (byEventTime as the comparator
 * parses two per comparison: a round's 1,000 rows cost ~20,000 Date.parse calls).
 */
export function sortByEventTime(rows: OutboxEventRow[]): OutboxEventRow[] {
  const keyed = rows.map((r) => ({ r, t: r.ev_event_ts ? Date.parse(r.ev_event_ts) : NaN, id: r.event_id ?? 0 }));
  keyed.sort((a, b) => (Number.isFinite(a.t) && Number.isFinite(b.t) && a.t !== b.t ? a.t - b.t : a.id - b.id));
  return keyed.map((k) => k.r);
}

/** When the event happened: its own timestamp, else when it was received. */
export function eventTime(r: OutboxEventRow, fallback: number): number {
  const t = r.ev_event_ts ? Date.parse(r.ev_event_ts) : NaN;
  return Number.isFinite(t) ? t : (r.ev_received_at ?? fallback);
}

/** The row (in event order) where the last run of `status` began, if the rows end in that status. */
export function lastChangeTo(rows: OutboxEventRow[], status: string): OutboxEventRow | undefined {
  let at: OutboxEventRow | undefined;
  for (const r of rows) {
    if (!r.ev_status) continue;
    at = r.ev_status === status ? (at ?? r) : undefined;
  }
  return at;
}

export function safeJson(s: string | null): Record<string, unknown> | undefined {
  if (!s) return undefined;
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
