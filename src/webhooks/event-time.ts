/**
 * When an event counts as having happened, for ordering it against the node's other events.
 *
 * The service's hosts stamp events with their own clocks. A stamp ahead of ours must never make
 * an event count as later than one that really came after it (a RUNNING stamped ahead would hide
 * a later FAILED): an event never counts as later than its arrival. Its effective time is its own
 * stamp when that is not ahead of the arrival; otherwise the arrival, at the stamp's precision
 * (whole seconds for a whole-second stamp), so it falls back to arrival order against events
 * stamped by the same clock. A stamp ahead by more than `maxFutureSkewMs` is flagged (the caller
 * logs and counts it): that is a clock to fix, not ordinary skew.
 */
export interface EffectiveTime {
  /** ISO time to order by; null when the event has no readable timestamp. */
  effective: string | null;
  /** The stamp as sent, in ms (null without a readable one). */
  stampedMs: number | null;
  /** How far ahead of the arrival the stamp was (0 when not ahead). */
  aheadMs: number;
  /** Ahead by more than the allowed skew. */
  flagged: boolean;
}

/** `stampMs`: the stamp already parsed (ServiceEvent.eventMs), so it is not parsed twice; else it is parsed here. */
export function effectiveEventTime(stamp: string | undefined, arrivalMs: number, maxFutureSkewMs: number, stampMs?: number): EffectiveTime {
  const t = stampMs ?? (stamp ? Date.parse(stamp) : NaN);
  if (!Number.isFinite(t)) return { effective: stamp ?? null, stampedMs: null, aheadMs: 0, flagged: false };
  if (t <= arrivalMs) return { effective: stamp!, stampedMs: t, aheadMs: 0, flagged: false };
  const wholeSeconds = !/[.,]\d/.test(stamp!.replace(/^[^T]*T?/, ''));
  const at = wholeSeconds ? Math.floor(arrivalMs / 1000) * 1000 : arrivalMs;
  const iso = new Date(at).toISOString();
  return {
    effective: wholeSeconds ? iso.replace(/\.\d{3}Z$/, 'Z') : iso,
    stampedMs: t,
    aheadMs: t - arrivalMs,
    flagged: t - arrivalMs > maxFutureSkewMs,
  };
}

/**
 * Whether a JSON text nests arrays and objects more than `limit` deep, told without parsing it
 * (no recursion). It cannot nest deeper than it has opening brackets, and those are counted first
 * with Buffer#indexOf (native): an event has two or three, so the byte-by-byte scan, which tells
 * brackets inside strings apart, runs only for a body with more than `limit` of them (issue 29:
 * the scan was ~8,000 instructions of every event's path).
 */
export function jsonDeeperThan(raw: Buffer, limit: number): boolean {
  let openings = 0;
  for (let i = raw.indexOf(0x7b); i >= 0 && openings <= limit; i = raw.indexOf(0x7b, i + 1)) openings++;
  for (let i = raw.indexOf(0x5b); i >= 0 && openings <= limit; i = raw.indexOf(0x5b, i + 1)) openings++;
  return openings > limit && jsonDepth(raw, limit) > limit;
}

/** The deepest nesting of arrays and objects in a JSON text, counted without parsing it (no recursion); stops once past `stopAt`. */
function jsonDepth(raw: Buffer, stopAt: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAt) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
