/**
 * Number and status formatting shared by command answers and reports.
 * Amounts are u64 on the node API: they arrive as number or bigint and are formatted
 * without ever going through a float.
 */
import type { Tone } from './message.js';

export type Amount = number | bigint;

const STATUS_BADGES: Record<string, { emoji: string; tone: Tone }> = {
  RUNNING: { emoji: '🟢', tone: 'success' },
  STARTING: { emoji: '🔵', tone: 'info' },
  IN_PROGRESS: { emoji: '🟡', tone: 'warning' },
  PAUSED: { emoji: '⏸️', tone: 'neutral' },
  FAILED: { emoji: '🔴', tone: 'danger' },
  // The service's published description (DESTROING is its spelling): going away, then gone for good.
  DESTROING: { emoji: '🗑️', tone: 'warning' },
  DESTROYED: { emoji: '⚫', tone: 'danger' },
};

/** `🟢 RUNNING`; an unknown status is shown as it came, with a neutral mark. */
export function statusBadge(status: string): string {
  return `${(badgeOf(status) ?? { emoji: '⚪' }).emoji} ${status}`;
}

export function statusTone(status: string): Tone {
  return badgeOf(status)?.tone ?? 'neutral';
}

/** Own keys only: a status named `constructor` or `__proto__` must not find Object.prototype's. */
function badgeOf(status: string): { emoji: string; tone: Tone } | undefined {
  return Object.hasOwn(STATUS_BADGES, status) ? STATUS_BADGES[status] : undefined;
}

function toBigInt(a: Amount): bigint {
  if (typeof a === 'bigint') return a;
  if (!Number.isFinite(a)) throw new RangeError(`not a finite amount: ${a}`);
  return BigInt(Math.trunc(a));
}

/** 1234567 -> "1,234,567" (bigint-safe). */
export function thousands(a: Amount): string {
  const v = toBigInt(a);
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString();
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return neg ? `-${grouped}` : grouped;
}

/** Raw asset units scaled by precision: (12345, 2) -> "123.45"; trailing zeros kept to the precision. */
export function withPrecision(raw: Amount, precision: number): string {
  const v = toBigInt(raw);
  if (!precision || precision <= 0) return thousands(v);
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const scale = 10n ** BigInt(precision);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(precision, '0');
  return `${neg ? '-' : ''}${thousands(whole)}.${frac}`;
}

/** Sats as "1,234,567 sats" or, with unit 'btc', "0.01234567 BTC". */
export function formatSats(sats: Amount, unit: 'sat' | 'btc' = 'sat'): string {
  return unit === 'btc' ? `${withPrecision(sats, 8)} BTC` : `${thousands(sats)} sats`;
}

/** Millisats to whole sats (floor), bigint-safe. */
export function msatToSat(msat: Amount): bigint {
  return toBigInt(msat) / 1000n;
}

/** A signed change: "+1,200" / "−300" / "±0". */
export function formatDelta(delta: Amount, precision = 0): string {
  const v = toBigInt(delta);
  if (v === 0n) return '±0';
  const body = withPrecision(v < 0n ? -v : v, precision);
  return v > 0n ? `+${body}` : `−${body}`;
}

/** A small bar for a share between 0 and 1: "███░░░░░░░" (width cells). */
export function shareBar(share: number, width = 10): string {
  const s = Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
  const full = Math.round(s * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

const ZONE_FORMATS = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment as "2026-11-22 09:00 UTC", or "2026-11-22 10:00 Europe/Rome" in another IANA zone.
 * `t` is a Date, an ISO string, or Unix seconds (a number or bigint, as the node API gives
 * them). Nothing gives "—"; what is not a time is shown as it came.
 */
export function formatTime(t: Date | number | bigint | string | undefined | null, timeZone = 'UTC'): string {
  if (t === undefined || t === null || t === '') return '—';
  const d = t instanceof Date ? t : typeof t === 'string' ? new Date(t) : new Date(Number(t) * 1000);
  if (Number.isNaN(d.getTime())) return String(t);
  if (timeZone === 'UTC') return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  let format = ZONE_FORMATS.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    ZONE_FORMATS.set(timeZone, format);
  }
  const parts = format.formatToParts(d);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${timeZone}`;
}

/** "3m 12s", "2h 5m", "1d 4h" for durations. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** The first characters of a pubkey or id: "03a1b2c3…". */
export function shortId(id: string, keep = 10): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id;
}
