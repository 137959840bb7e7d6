/**
 * Slack's native table blocks, checked the way Slack checks them: the shapes of `TableBlock` and
 * `DataTableBlock` in @slack/types 3.2 (block-kit/blocks.d.ts, cells from composition-objects.d.ts)
 * and the limits of their reference pages (docs.slack.dev/reference/block-kit/blocks/table-block
 * and …/data-table-block): a table has at most 100 rows of at most 20 cells; a data table a header
 * row and 1–100 rows, every row as long, 1–20 columns, no rich_text in the header, page_size
 * 1–100, and at most 10,000 characters in its cells (in the whole message too); one table per
 * message. The fake Slack answers `invalid_blocks` for a message that breaks one, as Slack does.
 */
import type { DataTableBlock, TableBlock } from '@slack/types';

const TABLE_KEYS: ReadonlyArray<keyof TableBlock> = ['type', 'block_id', 'rows', 'column_settings'];
const DATA_TABLE_KEYS: ReadonlyArray<keyof DataTableBlock> = [
  'type',
  'block_id',
  'rows',
  'caption',
  'page_size',
  'row_header_column_index',
];
const MAX_TABLE_ROWS = 100;
const MAX_COLUMNS = 20;
const MAX_DATA_TABLE_ROWS = 100;
const MAX_CELL_CHARS = 10_000;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** A cell's problems (raw_text, raw_number or rich_text, as @slack/types defines them) and its characters. */
function cellProblems(c: any, where: string, out: string[], header: boolean): number {
  if (!c || typeof c !== 'object') {
    out.push(`${where}: a cell is not an object`);
    return 0;
  }
  switch (c.type) {
    case 'raw_text':
      if (typeof c.text !== 'string' || c.text.length < 1) out.push(`${where}: raw_text needs text of at least 1 character`);
      if (Object.keys(c).some((k) => k !== 'type' && k !== 'text')) out.push(`${where}: raw_text has unknown fields`);
      return typeof c.text === 'string' ? c.text.length : 0;
    case 'raw_number':
      if (typeof c.value !== 'number' || !Number.isFinite(c.value)) out.push(`${where}: raw_number needs a finite numeric value`);
      if (typeof c.text !== 'string' || c.text.length < 1) out.push(`${where}: raw_number needs text of at least 1 character`);
      return typeof c.text === 'string' ? c.text.length : 0;
    case 'rich_text':
      if (header) out.push(`${where}: rich_text in a data table's header row`);
      if (!Array.isArray(c.elements)) out.push(`${where}: rich_text without elements`);
      return JSON.stringify(c.elements ?? []).length;
    default:
      out.push(`${where}: unknown cell type ${c.type}`);
      return 0;
  }
}

/** The problems of one `table` or `data_table` block (empty when valid); `chars` gets its cells' characters. */
export function tableBlockProblems(b: any, chars: { n: number } = { n: 0 }): string[] {
  const out: string[] = [];
  const table = b.type === 'table';
  const keys = table ? TABLE_KEYS : DATA_TABLE_KEYS;
  for (const k of Object.keys(b)) if (!(keys as readonly string[]).includes(k)) out.push(`${b.type}: unknown field ${k}`);
  if (!Array.isArray(b.rows)) return [...out, `${b.type}: rows is not an array`];
  const rows: any[][] = b.rows;
  if (table && (rows.length < 1 || rows.length > MAX_TABLE_ROWS)) out.push(`table: ${rows.length} rows (1–${MAX_TABLE_ROWS})`);
  if (!table && (rows.length < 2 || rows.length > MAX_DATA_TABLE_ROWS + 1))
    out.push(`data_table: ${rows.length} rows with the header (2–${MAX_DATA_TABLE_ROWS + 1})`);
  let tableChars = 0;
  rows.forEach((row, i) => {
    if (!Array.isArray(row)) return out.push(`${b.type}: row ${i} is not an array`);
    if (row.length < 1 || row.length > MAX_COLUMNS) out.push(`${b.type}: row ${i} has ${row.length} cells (1–${MAX_COLUMNS})`);
    if (!table && row.length !== rows[0].length) out.push(`data_table: row ${i} has ${row.length} cells, the header ${rows[0].length}`);
    for (const c of row) tableChars += cellProblems(c, `${b.type} row ${i}`, out, !table && i === 0);
  });
  if (table && b.column_settings !== undefined) {
    if (!Array.isArray(b.column_settings) || b.column_settings.length > MAX_COLUMNS)
      out.push('table: column_settings must be an array of at most 20');
    for (const s of b.column_settings ?? []) {
      if (s === null) continue;
      if (s.align !== undefined && !['left', 'center', 'right'].includes(s.align)) out.push(`table: align ${s.align}`);
      if (s.is_wrapped !== undefined && typeof s.is_wrapped !== 'boolean') out.push('table: is_wrapped must be a boolean');
      if (Object.keys(s).some((k) => k !== 'align' && k !== 'is_wrapped')) out.push('table: unknown column setting');
    }
  }
  if (!table) {
    if (typeof b.caption !== 'string' || !b.caption) out.push('data_table: caption is required');
    if (b.page_size !== undefined && (!isInt(b.page_size) || b.page_size < 1 || b.page_size > 100))
      out.push(`data_table: page_size ${b.page_size}`);
    const cols = rows[0]?.length ?? 0;
    if (
      b.row_header_column_index !== undefined &&
      (!isInt(b.row_header_column_index) || b.row_header_column_index < 0 || b.row_header_column_index >= cols)
    ) {
      out.push(`data_table: row_header_column_index ${b.row_header_column_index}`);
    }
  }
  if (tableChars > MAX_CELL_CHARS) out.push(`${b.type}: ${tableChars} characters in its cells (at most ${MAX_CELL_CHARS})`);
  chars.n += tableChars;
  return out;
}

export const isTableBlock = (b: any): boolean => b?.type === 'table' || b?.type === 'data_table';

/**
 * The table problems of a message payload (`blocks` and `attachments[].blocks`): each table
 * block's own, more than one table, more than 10,000 cell characters in all, or a table inside
 * a legacy attachment (this bot never puts one there).
 */
export function messageTableProblems(payload: { blocks?: unknown; attachments?: unknown }): string[] {
  const top = Array.isArray(payload.blocks) ? payload.blocks : [];
  const inAttachments = Array.isArray(payload.attachments)
    ? payload.attachments.flatMap((a) => (Array.isArray(a?.blocks) ? a.blocks : []))
    : [];
  const out: string[] = [];
  const chars = { n: 0 };
  const tables = top.filter(isTableBlock);
  for (const t of tables) out.push(...tableBlockProblems(t, chars));
  if (inAttachments.some(isTableBlock)) out.push('a table block inside an attachment');
  if (tables.length > 1) out.push(`${tables.length} table blocks in one message (only one is allowed)`);
  if (chars.n > MAX_CELL_CHARS) out.push(`${chars.n} characters in the message's table cells (at most ${MAX_CELL_CHARS})`);
  return out;
}
