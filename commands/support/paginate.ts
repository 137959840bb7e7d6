/** One page of rows and the caption that says which ("showing 21-40 of 134, next: `page=3`"). */
import { UserError } from '../../src/vocabulary/index.js';
import type { Table } from '../../src/vocabulary/index.js';

export interface Paging {
  limit?: number;
  page?: number;
  /** The row to start at (from 1), in place of `page=`: where a page cut to fit a message stopped. */
  from?: number;
}

/**
 * The rows of a page, with `start` (the index of its first row). Throws, saying how many pages
 * there are, when `page=` (or `from=`) asks for one past the last.
 */
export function paginate<T>(items: T[], opts: Paging = {}): { items: T[]; caption?: string; start: number } {
  const limit = Math.max(1, opts.limit ?? 20);
  const pages = Math.max(1, Math.ceil(items.length / limit));
  const rows = `${items.length} row${items.length === 1 ? '' : 's'}`;
  if (opts.from !== undefined && opts.from > Math.max(1, items.length)) {
    throw new UserError(
      'invalid_arguments',
      `There is no row ${opts.from}: there are ${rows}.`,
      'Leave out `from=`, or give a smaller one.',
    );
  }
  if (opts.from === undefined && opts.page !== undefined && opts.page > pages) {
    throw new UserError(
      'invalid_arguments',
      `There is no page ${opts.page}: ${rows} make ${pages === 1 ? 'one page' : `${pages} pages`} of ${limit}.`,
      pages === 1 ? 'Leave out `page=`.' : `Ask for \`page=1\` to \`page=${pages}\`, or a larger \`limit=\`.`,
    );
  }
  const page = Math.min(Math.max(1, opts.page ?? 1), pages);
  const start = opts.from !== undefined ? Math.max(0, opts.from - 1) : (page - 1) * limit;
  const slice = items.slice(start, start + limit);
  if (items.length <= limit && start === 0) return { items: slice, start };
  return { items: slice, start, caption: pageCaption(items.length, limit, start, slice.length, opts.from !== undefined) };
}

/** "showing 21-40 of 134 (page 2/7, next: `page=3`; …)"; from a row (`from=`), the next page goes on from the row after. */
export function pageCaption(total: number, limit: number, start: number, shown: number, byRow: boolean, cut = false): string {
  const pages = Math.max(1, Math.ceil(total / limit));
  const end = start + shown;
  const more = end < total;
  const where = byRow ? '' : `page ${Math.floor(start / limit) + 1}/${pages}`;
  const next = more ? (byRow ? `next: \`from=${end + 1}\`` : `next: \`page=${Math.floor(start / limit) + 2}\``) : '';
  const parts = [where, next].filter(Boolean).join(', ');
  const why = cut ? 'cut to fit one message; ' : '';
  return `showing ${start + 1}-${end} of ${total} (${why}${parts ? `${parts}; ` : ''}use \`limit=\` and \`page=\`)`;
}

/**
 * How much of a page's table one chat message holds: its rows as monospace text (as Slack and
 * Discord show a table that is not native) within this many characters. Discord's message text is
 * 4,096 characters with the rest of the message; Slack cuts its sections at 3,000.
 */
export const PAGE_TABLE_BUDGET = 3_000;

/** How many of the table's rows fit PAGE_TABLE_BUDGET (at least one). */
export function rowsThatFit(table: Pick<Table, 'columns' | 'rows'>, budget = PAGE_TABLE_BUDGET): number {
  const cells = (r: readonly string[]) => table.columns.map((_, i) => String(r[i] ?? ''));
  const widths = table.columns.map((c) => c.header.length);
  // Each line as wide as the widest so far, with the header, the rule, the fences and a note.
  const lengthOf = (n: number) => (n + 2) * (widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1) + 1) + 40;
  let n = 0;
  for (const r of table.rows) {
    const c = cells(r);
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i], c[i].length);
    if (n >= 1 && lengthOf(n + 1) > budget) break;
    n++;
  }
  return Math.max(1, n);
}
