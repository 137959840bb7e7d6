/**
 * Tables for the renderer: Slack's native `table` / `data_table` block when the table fits one,
 * and otherwise monospace text in sections, cut visibly with a note.
 */
import type { Table } from '../../vocabulary/index.js';
import type { DataTableBlock, RawNumberElement, RawTextElement, TableBlock } from '@slack/types';
import { escapeCode, escapeMrkdwn } from './escape-mrkdwn.js';
import {
  SLACK_MAX_HEADER_TEXT,
  SLACK_MAX_SECTION_TEXT,
  SLACK_TABLE_MAX_CELL,
  SLACK_TABLE_MAX_SECTIONS,
  SLACK_DATA_TABLE_MAX_ROWS,
  SLACK_TABLE_BLOCK_MAX_COLUMNS,
  SLACK_TABLE_BLOCK_MAX_ROWS,
  SLACK_TABLE_MAX_CELL_CHARS,
  SLACK_TABLE_ROWS_BEFORE_PAGING,
} from './limits.js';
import { contextBlock, section, truncate, type SlackBlock } from './render-mrkdwn.js';

function cell(text: string): string {
  return truncate(text.replace(/\s+/g, ' '), SLACK_TABLE_MAX_CELL);
}

/** A cell of a native table: raw text (Slack wants at least one character), or a number Slack can sort by. */
function nativeCell(text: string, numeric: boolean): RawTextElement | RawNumberElement {
  const t = text.replace(/\s+/g, ' ').trim() || '–';
  if (numeric && /^-?\d{1,3}(,\d{3})*(\.\d+)?$|^-?\d+(\.\d+)?$/.test(t)) {
    const value = Number(t.replace(/,/g, ''));
    if (Number.isFinite(value)) return { type: 'raw_number', value, text: t };
  }
  // raw_text is shown as typed; still, no cell can carry Slack's special syntax (<!channel>,
  // <@U…>, <#C…>, <https://…|…>) into a client that reads it: a zero-width joiner after the '<'
  // keeps what is shown and breaks the syntax.
  return { type: 'raw_text', text: t.replace(/<(?=[!@#]|[a-z][a-z0-9+.-]*:)/gi, '<\u2060') };
}

const cellChars = (cells: Array<RawTextElement | RawNumberElement>) => cells.reduce((n, c) => n + String(c.text).length, 0);

/**
 * A table as Slack's native `table` block, or, when it is longer than
 * SLACK_TABLE_ROWS_BEFORE_PAGING rows, a `data_table` that Slack pages. Undefined when it does
 * not fit a native table (too many columns, no rows, a row over the cell budget): the caller
 * draws it as monospace text instead.
 */
export function renderNativeTable(table: Table, title: string | undefined): SlackBlock[] | undefined {
  const cols = table.columns.length;
  if (cols === 0 || cols > SLACK_TABLE_BLOCK_MAX_COLUMNS || table.rows.length === 0) return undefined;
  const paged = table.rows.length > SLACK_TABLE_ROWS_BEFORE_PAGING;
  // The header is one of the `table` block's 100 rows; a data_table has 100 besides its header.
  const maxRows = paged ? SLACK_DATA_TABLE_MAX_ROWS : SLACK_TABLE_BLOCK_MAX_ROWS - 1;
  const header = table.columns.map((c) => nativeCell(c.header, false));
  let budget = SLACK_TABLE_MAX_CELL_CHARS - cellChars(header);
  const rows: Array<Array<RawTextElement | RawNumberElement>> = [];
  for (const r of table.rows) {
    if (rows.length >= maxRows) break;
    // raw_number only in a data_table, where it sorts; the `table` block's reference names raw_text and rich_text.
    const cells = table.columns.map((c, i) => nativeCell(r[i] ?? '', paged && c.align === 'right'));
    const n = cellChars(cells);
    if (n > budget) break;
    budget -= n;
    rows.push(cells);
  }
  if (rows.length === 0) return undefined;
  // Typed against @slack/types' own definitions, so a shape Slack's SDK does not know fails the type check.
  const block: TableBlock | DataTableBlock = paged
    ? {
        type: 'data_table',
        caption: truncate(table.caption ?? title ?? 'Table', SLACK_MAX_HEADER_TEXT),
        rows: [header, ...rows],
        page_size: SLACK_TABLE_ROWS_BEFORE_PAGING,
      }
    : { type: 'table', column_settings: table.columns.map((c) => ({ align: c.align ?? 'left' })), rows: [header, ...rows] };
  const notes: string[] = [];
  const more = table.rows.length - rows.length;
  if (more > 0) notes.push(`… ${more} more row${more === 1 ? '' : 's'} not shown`);
  if (table.caption) notes.push(escapeMrkdwn(table.caption));
  const out = block as unknown as SlackBlock;
  return notes.length ? [out, contextBlock(notes.join(' · '))] : [out];
}

export function renderTable(table: Table): SlackBlock[] {
  const cols = table.columns.length;
  const rows = table.rows.map((r) => Array.from({ length: cols }, (_, i) => cell(r[i] ?? '')));
  const headers = table.columns.map((c) => cell(c.header));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (table.columns[i].align === 'right' ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const head = [line(headers), widths.map((w) => '-'.repeat(w)).join('  ')].map(escapeCode);
  const body = rows.map((r) => escapeCode(line(r)));
  const fence = (lines: string[]) => '```\n' + lines.join('\n') + '\n```';
  // Room for the fences, the header lines and a safety margin.
  const budget = SLACK_MAX_SECTION_TEXT - 10;
  const out: SlackBlock[] = [];
  let i = 0;
  while (i < body.length && out.length < SLACK_TABLE_MAX_SECTIONS) {
    const chunk = [...head];
    let len = fence(chunk).length;
    while (i < body.length && len + body[i].length + 1 <= budget) {
      chunk.push(body[i]);
      len += body[i].length + 1;
      i++;
    }
    if (chunk.length === head.length) {
      // A single row too wide for a section: cut it visibly.
      chunk.push(truncate(body[i], budget - len - 2));
      i++;
    }
    out.push(section(fence(chunk)));
  }
  if (body.length === 0) out.push(section(fence([...head, '(no rows)'])));
  const notes: string[] = [];
  if (i < body.length) notes.push(`… ${body.length - i} more row${body.length - i === 1 ? '' : 's'} not shown`);
  if (table.caption) notes.push(escapeMrkdwn(table.caption));
  if (notes.length) out.push(contextBlock(notes.join(' · ')));
  return out;
}
