/**
 * Plain text for a terminal: a header with a marker by tone, `label: value` fields, tables
 * as aligned monospace columns, progress as a bar, and buttons as what to type to click them.
 * A pure function of the Message.
 */
import type { Block, Inline, Message, Table, Tone } from '../../vocabulary/index.js';
import { shareBar } from '../../vocabulary/index.js';

export const TONE_MARKERS: Record<Tone, string> = {
  success: '✔',
  info: 'ℹ',
  warning: '⚠',
  danger: '✖',
  neutral: '•',
};

function inline(text: string | Inline[]): string {
  if (typeof text === 'string') return text;
  return text
    .map((s) => {
      if (typeof s === 'string') return s;
      if ('bold' in s) return s.bold;
      if ('code' in s) return `\`${s.code}\``;
      if ('italic' in s) return s.italic;
      return `${s.link.label} (${s.link.url})`;
    })
    .join('');
}

/** Terminal cell width: wide (East Asian, emoji) characters take two cells, combining marks none. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (/\p{Mn}|\p{Me}|\u200d|\ufe0f/u.test(ch)) continue;
    if (/\p{Extended_Pictographic}/u.test(ch) && cp > 0xff) w += 2;
    else if (
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6)
    )
      w += 2;
    else w += 1;
  }
  return w;
}

function pad(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'right' ? fill + s : s + fill;
}

/** Control characters (ANSI escapes, carriage returns) from user data never reach the terminal. */
function clean(s: string): string {
  return s.replace(/(?![\t\n])\p{Cc}/gu, '');
}

export function renderTable(t: Table): string[] {
  const rows = t.rows.map((r) => t.columns.map((_, i) => clean(String(r[i] ?? '')).replace(/\n/g, ' ')));
  const widths = t.columns.map((c, i) => Math.max(displayWidth(c.header), ...rows.map((r) => displayWidth(r[i]))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i], t.columns[i].align))
      .join('  ')
      .trimEnd();
  const out = [line(t.columns.map((c) => c.header)), widths.map((w) => '─'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r));
  if (!rows.length) out.push('(none)');
  if (t.caption) out.push(clean(t.caption));
  return out;
}

function renderBlock(b: Block): string[] {
  switch (b.type) {
    case 'text':
      return clean(inline(b.text)).split('\n');
    case 'context':
      return clean(inline(b.text))
        .split('\n')
        .map((l) => `  ${l}`);
    case 'fields': {
      const labels = b.fields.map((f) => clean(f.label));
      const w = Math.max(0, ...labels.map(displayWidth));
      return b.fields.flatMap((f, i) => {
        const [first, ...rest] = clean(inline(f.value)).split('\n');
        return [`${pad(`${labels[i]}:`, w + 1)} ${first}`, ...rest.map((l) => `${' '.repeat(w + 2)}${l}`)];
      });
    }
    case 'table':
      return renderTable(b.table);
    case 'progress': {
      const share = b.max > 0 ? Math.min(1, Math.max(0, b.value / b.max)) : 0;
      return [`${clean(b.label)} [${shareBar(share, 20)}] ${Math.round(share * 100)}% (${b.value}/${b.max})`];
    }
    case 'code':
      return clean(b.text)
        .split('\n')
        .map((l) => `    ${l}`);
    case 'divider':
      return ['─'.repeat(40)];
    default:
      return [];
  }
}

/** What a terminal user types to click this button. */
export function clickHint(button: { id?: string; command: string; args?: Record<string, string> }): string {
  if (button.id) {
    if (button.command === '__confirm') return `confirm ${button.id}`;
    if (button.command === '__cancel') return `cancel ${button.id}`;
    return `click ${button.id}`;
  }
  const args = Object.entries(button.args ?? {}).map(([k, v]) => `${k}=${/\s/.test(v) ? `"${v}"` : v}`);
  return `/rln ${[button.command, ...args].join(' ')}`;
}

export function renderText(message: Message): string {
  const lines: string[] = [];
  const marker = TONE_MARKERS[message.tone ?? 'neutral'];
  if (message.header) lines.push(`${marker} ${clean(message.header)}`);
  else if (message.tone && message.tone !== 'neutral') lines.push(marker);
  for (const b of message.blocks ?? []) lines.push(...renderBlock(b));
  if (message.buttons?.length) {
    for (const btn of message.buttons) lines.push(`  [${clean(btn.label)}] → type: ${clickHint(btn)}`);
  }
  return lines.join('\n');
}
