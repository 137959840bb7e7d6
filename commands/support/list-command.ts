/**
 * The one shape of a list command: ask for every row, say so when there is none, else show one
 * page of them in a table, with the count in the header and which page it is under the table.
 */
import type { z } from 'zod';
import { msg, type Block, type Button, type Message, type Table } from '../../src/vocabulary/index.js';
import type { CommandDefinition, CommandSpec } from '../../src/engine/index.js';
import { defineCommand, type CommandContext } from '../define-command.js';
import type { Services } from '../services.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { nodeClient } from './node-client.js';
import { pageCaption, paginate, rowsThatFit, type Paging } from './paginate.js';
import { titled } from './present.js';

/** What a page shows around its table; the tone is `info` unless it says otherwise. */
export interface ListPage {
  tone?: Message['tone'];
  summary?: string;
  before?: Block[];
  /** The page's table: the caption saying which page it is is added. */
  table: Omit<Table, 'caption'>;
  after?: Block[];
}

export interface ListReply<T> {
  /** `Peers`: the header says `Peers · alice` when there are none, `Peers (3) · alice` otherwise. */
  title: string;
  node?: Pick<HostedNode, 'name'>;
  /** Every row, in the order shown. */
  rows: T[];
  /** `limit=` and `page=` (or `from=`) as given. */
  paging: Paging;
  /** What is said when there are no rows. */
  empty: Block[];
  /** The page shown: its rows, and every row for totals. */
  page(items: T[], all: T[]): ListPage | Promise<ListPage>;
  /**
   * The command that lists them and its arguments as typed: with more than one page, Previous and
   * Next buttons run it again for the page beside, in place of the message, as whoever clicks.
   */
  pager?: { command: string; args: Record<string, string> };
}

/**
 * Previous and Next page buttons, for the pages that exist. A page shown from a row (`from=`), or
 * cut short to fit one message (`shown` rows of it), is followed from the first row not shown.
 */
export function pageButtons(
  pager: NonNullable<ListReply<unknown>['pager']>,
  o: Paging & { rows: number; start?: number; shown?: number },
): Button[] {
  const limit = Math.max(1, o.limit ?? 20);
  const pages = Math.max(1, Math.ceil(o.rows / limit));
  const { page: _page, from: _from, ...rest } = pager.args;
  const out: Button[] = [];
  const byRow = o.from !== undefined || (o.shown !== undefined && o.shown < limit && (o.start ?? 0) + o.shown < o.rows);
  if (byRow) {
    const start = o.start ?? (o.from ?? 1) - 1;
    const end = start + (o.shown ?? limit);
    const at = (row: number) => ({ ...rest, limit: String(limit), from: String(row) });
    if (start > 0)
      out.push({
        label: `‹ Page ${Math.max(1, Math.ceil(start / limit))}`,
        command: pager.command,
        args: at(Math.max(1, start - limit + 1)),
        replaces: true,
      });
    if (end < o.rows)
      out.push({
        label: `Page ${Math.ceil(end / limit) + 1} ›`,
        style: 'primary',
        command: pager.command,
        args: at(end + 1),
        replaces: true,
      });
    return out;
  }
  const page = Math.min(Math.max(1, o.page ?? 1), pages);
  const to = (n: number) => ({ ...rest, limit: String(limit), page: String(n) });
  if (page > 1) out.push({ label: `‹ Page ${page - 1}`, command: pager.command, args: to(page - 1), replaces: true });
  if (page < pages) out.push({ label: `Page ${page + 1} ›`, style: 'primary', command: pager.command, args: to(page + 1), replaces: true });
  return out;
}

/** A command's parsed arguments back as typed text, for a button that runs it again. */
export function typedArgs(args: Record<string, unknown>, node?: Pick<HostedNode, 'name'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'node' && node) out[k] = node.name;
    else if (Array.isArray(v)) out[k] = v.map(String).join(',');
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') out[k] = String(v);
  }
  return out;
}

/** A list as a reply: `empty` when there are no rows, else one page of them in a table. */
export async function listReply<T>(o: ListReply<T>): Promise<Message> {
  if (o.rows.length === 0) return { header: titled(o.title, o.node), tone: 'neutral', blocks: o.empty };
  const { items, caption, start } = paginate(o.rows, o.paging);
  const p = await o.page(items, o.rows);
  // A page longer than one message holds is cut here, not by the platform, so that the page
  // buttons go on from the first row not shown (a row a table shows for each item only).
  const shown = p.table.rows.length === items.length ? rowsThatFit(p.table) : items.length;
  const cut = shown < items.length;
  const limit = Math.max(1, o.paging.limit ?? 20);
  const table = cut
    ? { ...p.table, rows: p.table.rows.slice(0, shown), caption: pageCaption(o.rows.length, limit, start, shown, true, true) }
    : { ...p.table, caption };
  const buttons = o.pager ? pageButtons(o.pager, { rows: o.rows.length, ...o.paging, start, shown }) : [];
  return {
    header: titled(`${o.title} (${o.rows.length})`, o.node),
    tone: p.tone ?? 'info',
    ...(p.summary !== undefined ? { summary: p.summary } : {}),
    blocks: [...(p.before ?? []), msg.table(table), ...(p.after ?? [])],
    ...(buttons.length ? { buttons } : {}),
  };
}

/** What a node's list command is given: its context, the node, and a client for the node. */
export interface NodeScope<A> {
  ctx: CommandContext<A>;
  node: HostedNode;
  api: NodeApiClient;
}

type PagingShape = z.ZodRawShape & { limit: z.ZodType<number>; page: z.ZodType<number> };

/** What a list command loads: every row, in the order shown, and what else its title and pages need. */
export interface Loaded {
  rows: unknown[];
}

export type NodeListSpec<S extends z.ZodObject<PagingShape>, L extends Loaded> = Omit<
  CommandSpec<S, Services>,
  'role' | 'confirm' | 'mutates' | 'handler'
> & {
  /** `Peers`, or from what was loaded (`USDT transfers`: written after `load`, whose result it reads). */
  title: string | ((loaded: L) => string);
  load: (s: NodeScope<z.infer<S>>) => Promise<L>;
  empty: (node: HostedNode) => Block[];
  page: (s: NodeScope<z.infer<S>> & { items: L['rows']; all: L['rows']; loaded: L }) => ListPage | Promise<ListPage>;
};

/**
 * A read command listing what a node has (peers, channels, payments…): the node's client, its
 * rows, and the page asked with `limit=` and `page=` (its arguments include `pagingArgs`).
 */
export function nodeListCommand<S extends z.ZodObject<PagingShape>, L extends Loaded>(
  spec: NodeListSpec<S, L>,
): CommandDefinition<S, Services> {
  const { title, load, empty, page, ...def } = spec;
  return defineCommand<S>({
    ...def,
    role: 'read',
    async handler(ctx) {
      const { node, api } = nodeClient(ctx);
      const scope = { ctx, node, api };
      const loaded = await load(scope);
      return listReply({
        title: typeof title === 'string' ? title : title(loaded),
        node,
        rows: loaded.rows,
        paging: ctx.args,
        pager: { command: def.path, args: typedArgs(ctx.args as Record<string, unknown>, node) },
        empty: empty(node),
        page: (items, all) => page({ ...scope, items, all, loaded }),
      });
    },
  });
}
