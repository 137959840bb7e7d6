/**
 * Everything a person would read in a reply, as plain text (header, texts, fields, tables with
 * their header and caption, code, progress), for assertions. A dialog reads as its title and
 * field names; refused dialog fields as their errors.
 */
import { inlineToPlain, type Message } from '../../src/vocabulary/index.js';
import { type HandlerResult, type Reply } from '../../src/engine/index.js';

export function replyText(r: HandlerResult): string {
  if ('kind' in r) {
    if (r.kind === 'dialog') return `dialog ${r.dialog.title}: ${r.dialog.fields.map((f) => f.name).join(',')}`;
    if (r.kind === 'dialog_errors') return JSON.stringify(r.errors);
    return messageText(r.message);
  }
  return messageText(r);
}

export function messageText(message: Message): string {
  const out: string[] = [];
  if (message.header) out.push(message.header);
  for (const b of message.blocks) {
    if (b.type === 'text' || b.type === 'context') out.push(inlineToPlain(b.text));
    else if (b.type === 'code') out.push(b.text);
    else if (b.type === 'fields') for (const f of b.fields) out.push(`${f.label}: ${inlineToPlain(f.value)}`);
    else if (b.type === 'table') {
      out.push(b.table.columns.map((c) => c.header).join(' | '));
      for (const row of b.table.rows) out.push(row.join(' | '));
      if (b.table.caption) out.push(b.table.caption);
    } else if (b.type === 'progress') out.push(`${b.label} ${b.value}/${b.max}`);
  }
  return out.join('\n');
}

export type { Reply };
