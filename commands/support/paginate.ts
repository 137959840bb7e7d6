/** One page of rows and the caption that says which ("showing 21-40 of 134, next: `page=3`"). */
import { UserError } from '../../src/vocabulary/index.js';

/** Throws, saying how many pages there are, when `page=` asks for one past the last. */
export function paginate<T>(items: T[], opts: { limit?: number; page?: number } = {}): { items: T[]; caption?: string } {
  const limit = Math.max(1, opts.limit ?? 20);
  const pages = Math.max(1, Math.ceil(items.length / limit));
  if (opts.page !== undefined && opts.page > pages) {
    const rows = `${items.length} row${items.length === 1 ? '' : 's'}`;
    throw new UserError(
      'invalid_arguments',
      `There is no page ${opts.page}: ${rows} make ${pages === 1 ? 'one page' : `${pages} pages`} of ${limit}.`,
      pages === 1 ? 'Leave out `page=`.' : `Ask for \`page=1\` to \`page=${pages}\`, or a larger \`limit=\`.`,
    );
  }
  const page = Math.min(Math.max(1, opts.page ?? 1), pages);
  const start = (page - 1) * limit;
  const slice = items.slice(start, start + limit);
  if (items.length <= limit) return { items: slice };
  const next = page < pages ? `, next: \`page=${page + 1}\`` : '';
  return {
    items: slice,
    caption: `showing ${start + 1}-${start + slice.length} of ${items.length} (page ${page}/${pages}${next}; use \`limit=\` and \`page=\`)`,
  };
}
