/** `audit`'s filters as typed (since=7d, user=<@U1>, action=pay.send) and its CSV export. */
import { UserError } from '../../src/vocabulary/index.js';
import type { AuditEntry } from '../../src/access/index.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3600_000, d: 24 * 3600_000, w: 7 * 24 * 3600_000 };

/** `7d`, `24h`, `30m`, `2w` back from now, or a date (`2026-11-01`, ISO time). */
export function sinceOf(text: string, now: number): Date {
  const t = text.trim();
  const m = /^(\d+)\s*([mhdw])$/i.exec(t);
  if (m) return new Date(now - Number(m[1]) * UNIT_MS[m[2].toLowerCase()]);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+Z?)?$/.test(t)) {
    const d = new Date(t.length === 10 ? `${t}T00:00:00Z` : t.replace(' ', 'T'));
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw new UserError(
    'invalid_arguments',
    `since=${t.slice(0, 30)} is not a time.`,
    'Write how far back (since=7d, since=24h, since=30m) or a date (since=2026-11-01).',
  );
}

/**
 * A formula start: = + - @ (or their full-width forms) first in a cell, or first after a
 * character that some locale's reading of the file takes as the end of a cell (the comma, the
 * semicolon where the comma is the decimal mark, the tab, the pipe, a line end), after any blanks
 * or quotes. A spreadsheet opening the file with `;` splits `x;=1+1` into `x` and `=1+1` whatever
 * the quoting, since a quote in the middle of its cell is only a character to it.
 */
const FORMULA_AFTER_SEPARATOR_RE = /(^|[,;\t|\n\r])([\s\u00a0"]*)([=+\-@\uff1d\uff0b\uff0d\uff20])/g;
/** What makes a cell need quotes in this file (comma-separated, RFC 4180). */
const NEEDS_QUOTES_RE = /[",;\t|\n\r]/;

/**
 * One CSV cell that starts no formula in any separator locale: every formula start (see
 * FORMULA_AFTER_SEPARATOR_RE) gets a `'` before it, and a leading tab or return one in front;
 * then the cell is quoted when it holds a separator, a quote or a line end.
 */
export function csvCell(v: string): string {
  let safe = v.replace(FORMULA_AFTER_SEPARATOR_RE, "$1$2'$3");
  if (/^[\t\r]/.test(safe)) safe = `'${safe}`;
  return NEEDS_QUOTES_RE.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const AUDIT_CSV_HEADER = ['time_utc', 'user', 'user_name', 'action', 'node', 'node_id', 'arguments', 'outcome', 'reason', 'where'];

/** The entries as CSV (RFC 4180), oldest first, with a header line. */
export function auditCsv(entries: AuditEntry[]): string {
  const lines = [AUDIT_CSV_HEADER.join(',')];
  for (const e of [...entries].reverse()) {
    const args = Object.entries(e.args)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    lines.push(
      [
        e.at.toISOString(),
        `${e.actor.platform}:${e.actor.userId}`,
        e.actor.displayName ?? '',
        e.path.replace(/ /g, '.'),
        e.node ?? '',
        e.nodeId ?? '',
        args,
        e.outcome,
        e.reason ?? '',
        `${e.place.platform}:${e.place.channelId}`,
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return lines.join('\n');
}
