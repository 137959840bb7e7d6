/**
 * The platform-neutral message. Command handlers, the notifier and the report builders
 * return it; one renderer per platform turns it into Block Kit, a Discord payload or text.
 *
 * Every string in a Message is plain text: renderers escape it for their platform
 * (Slack's &<>, Discord's markdown and mentions), so user data can never inject
 * `<!channel>`, mentions or markup. Emphasis is expressed structurally (Inline spans).
 */

export type Tone = 'success' | 'info' | 'warning' | 'danger' | 'neutral';

/** An inline span of text. A bare string is plain text. */
export type Inline = string | { bold: string } | { code: string } | { italic: string } | { link: { url: string; label: string } };

export interface Field {
  label: string;
  value: string | Inline[];
  /** Lay out side by side where the platform can (Slack fields, Discord inline fields). */
  inline?: boolean;
}

export interface TableColumn {
  header: string;
  align?: 'left' | 'right';
}

export interface Table {
  columns: TableColumn[];
  rows: string[][];
  /** Shown under the table, e.g. "showing 20 of 134". */
  caption?: string;
}

export type Block =
  | { type: 'text'; text: string | Inline[] }
  | { type: 'fields'; fields: Field[] }
  | { type: 'table'; table: Table }
  | { type: 'progress'; label: string; value: number; max: number }
  | { type: 'context'; text: string | Inline[] }
  | { type: 'code'; text: string }
  | { type: 'divider' };

export interface Button {
  label: string;
  style?: 'primary' | 'danger' | 'secondary';
  /** The command this button runs when clicked (`node start`), through the same dispatcher. */
  command: string;
  args?: Record<string, string>;
  /**
   * Its answer takes the place of the message it is on (a list's next page), rather than
   * coming as a new message. The click still runs every step, as the clicker.
   */
  replaces?: boolean;
  /**
   * The short stored id that goes into Slack's action_id / Discord's custom_id.
   * Filled by the engine (`prepareMessage`) before rendering; renderers refuse a button without one.
   */
  id?: string;
}

/**
 * A file that goes with a message (a chart, a QR code, a log file). The bytes are rendered
 * before the message is queued and travel inside it as base64, so a Message stored in the
 * outbox carries them and the platform's poster uploads them when it posts (Slack's external
 * upload, a Discord attachment, a file written by the terminal).
 */
export interface MessageFile {
  /** File name with its extension: `balance-alice.png`. */
  name: string;
  /** `image/png`, `text/plain`, `text/csv`. */
  mime: string;
  /** The bytes, base64. */
  base64: string;
  /** Shown above or with the file. */
  title: string;
  /** What the image shows, for screen readers and previews. */
  alt: string;
  /** An image's size in pixels, when it is one. */
  width?: number;
  height?: number;
}

/**
 * What a message is, when a platform lays that kind out in its own way (Discord shows an
 * incident, a report and the dashboard as one Components V2 card with its chart and buttons in
 * it). A renderer that makes no difference ignores it; absent, the message is an ordinary answer.
 */
export type MessagePurpose = 'incident' | 'report' | 'dashboard';

export interface Message {
  header?: string;
  purpose?: MessagePurpose;
  /** Colour: Slack attachment colour / Discord embed colour / a text marker. */
  tone?: Tone;
  blocks: Block[];
  buttons?: Button[];
  /** Plain-text summary for notifications and fallbacks (Slack `text`). Derived from header when absent. */
  summary?: string;
  /** Files uploaded with the message, after it. */
  files?: MessageFile[];
}

/**
 * The stored argument that marks a button whose answer replaces its message (`Button.replaces`):
 * no command argument starts with `__`, so it never meets one.
 */
export const REPLACES_ARG = '__replaces';

/** A MessageFile from bytes. */
export function messageFile(f: Omit<MessageFile, 'base64'> & { bytes: Uint8Array }): MessageFile {
  const { bytes, ...rest } = f;
  return { ...rest, base64: Buffer.from(bytes).toString('base64') };
}

/** The bytes of a MessageFile. */
export function fileBytes(f: MessageFile): Buffer {
  return Buffer.from(f.base64, 'base64');
}

/** Whether a message has anything to show besides its files. */
export function hasBody(m: Message): boolean {
  return Boolean(m.header || m.blocks.length || (m.buttons && m.buttons.length));
}

/** Small constructors, so handlers read as what they say. */
export const msg = {
  text: (text: string | Inline[]): Block => ({ type: 'text', text }),
  fields: (fields: Field[]): Block => ({ type: 'fields', fields }),
  table: (table: Table): Block => ({ type: 'table', table }),
  context: (text: string | Inline[]): Block => ({ type: 'context', text }),
  code: (text: string): Block => ({ type: 'code', text }),
  progress: (label: string, value: number, max: number): Block => ({ type: 'progress', label, value, max }),
  divider: (): Block => ({ type: 'divider' }),
  /** A table's columns, in order: a header alone is left-aligned; `msg.right(…headers)` for figures. */
  columns: (...columns: (string | TableColumn | TableColumn[])[]): TableColumn[] =>
    columns.flatMap((c) => (typeof c === 'string' ? [{ header: c }] : c)),
  right: (...headers: string[]): TableColumn[] => headers.map((header) => ({ header, align: 'right' as const })),
};

/** The plain text of inline spans, for fallbacks and the shell. */
export function inlineToPlain(text: string | Inline[]): string {
  if (typeof text === 'string') return text;
  return text
    .map((s) => {
      if (typeof s === 'string') return s;
      if ('bold' in s) return s.bold;
      if ('code' in s) return s.code;
      if ('italic' in s) return s.italic;
      return `${s.link.label} (${s.link.url})`;
    })
    .join('');
}

export function summaryOf(m: Message): string {
  if (m.summary) return m.summary;
  if (m.header) return m.header;
  const first = m.blocks.find((b) => b.type === 'text' || b.type === 'context');
  return first && (first.type === 'text' || first.type === 'context') ? inlineToPlain(first.text) : '';
}
