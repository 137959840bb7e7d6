/**
 * Message -> Block Kit, as a pure function. Every string from the Message is user data and
 * is escaped here; limits are named constants (./limits.ts) and exceeding one either throws
 * (a button id that cannot be cut) or truncates visibly with a note, never silently.
 *
 * This file holds the message (header, blocks, buttons, tone, the per-message limits); mrkdwn
 * text and its cuts are in ./render-mrkdwn.ts, tables in ./render-tables.ts.
 */
import {
  inlineToPlain,
  summaryOf,
  type Block,
  type Button,
  type Field,
  type Inline,
  type Message,
  type Tone,
} from '../../vocabulary/index.js';
import { shareBar } from '../../vocabulary/index.js';
import { escapeCode, escapeMrkdwn } from './escape-mrkdwn.js';
import {
  SLACK_MAX_MESSAGE_TEXT,
  SLACK_MAX_ACTIONS_ELEMENTS,
  SLACK_MAX_ACTION_ID,
  SLACK_MAX_BLOCKS,
  SLACK_MAX_BUTTON_TEXT,
  SLACK_MAX_BUTTON_VALUE,
  SLACK_MAX_FALLBACK_TEXT,
  SLACK_MAX_FIELDS_PER_SECTION,
  SLACK_MAX_FIELD_TEXT,
  SLACK_MAX_HEADER_TEXT,
  SLACK_MAX_SECTION_TEXT,
  SLACK_MAX_TABLES_PER_MESSAGE,
} from './limits.js';
import { contextBlock, inlineToMrkdwn, safeCut, section, splitMrkdwn, truncate, truncateMrkdwn, type SlackBlock } from './render-mrkdwn.js';
import { renderNativeTable, renderTable } from './render-tables.js';

export { inlineToMrkdwn, truncate, type SlackBlock } from './render-mrkdwn.js';
export { dialogToModal } from './dialog-to-modal.js';

export interface BlockKitMessage {
  /** Notification / fallback text (escaped). */
  text: string;
  blocks: SlackBlock[];
  /** With a tone: the body (all but the header) goes into one attachment with a colour bar. */
  attachments?: Array<{ color: string; fallback: string; blocks: SlackBlock[] }>;
}

export const TONE_COLORS: Record<Tone, string> = {
  success: '#2eb67d',
  info: '#1d9bd1',
  warning: '#ecb22e',
  danger: '#e01e5a',
  neutral: '#9e9e9e',
};

/** A button that cannot be rendered without breaking its id. */
export class SlackRenderError extends Error {
  override readonly name = 'SlackRenderError';
}

function renderText(text: string | Inline[]): SlackBlock[] {
  const md = inlineToMrkdwn(text);
  if (!md.trim()) return [];
  return splitMrkdwn(md, SLACK_MAX_SECTION_TEXT).map(section);
}

function fieldText(f: Field): string {
  const label = `*${escapeMrkdwn(f.label)}*`;
  const value = inlineToMrkdwn(f.value) || '–';
  return truncateMrkdwn(`${label}\n${value}`, SLACK_MAX_FIELD_TEXT);
}

function renderFields(fields: Field[]): SlackBlock[] {
  const out: SlackBlock[] = [];
  let run: Field[] = [];
  const flush = () => {
    for (let i = 0; i < run.length; i += SLACK_MAX_FIELDS_PER_SECTION) {
      out.push({
        type: 'section',
        fields: run.slice(i, i + SLACK_MAX_FIELDS_PER_SECTION).map((f) => ({ type: 'mrkdwn', text: fieldText(f) })),
      });
    }
    run = [];
  };
  for (const f of fields) {
    if (f.inline === false) {
      flush();
      out.push(section(truncateMrkdwn(fieldText(f), SLACK_MAX_SECTION_TEXT)));
    } else run.push(f);
  }
  flush();
  return out;
}

const BAR_WIDTH = 20;

export function progressBar(value: number, max: number): string {
  const ratio = max > 0 && Number.isFinite(value) ? Math.min(1, Math.max(0, value / max)) : 0;
  return `${shareBar(ratio, BAR_WIDTH)} ${Math.round(ratio * 100)}%`;
}

function renderCode(text: string): SlackBlock[] {
  const esc = escapeCode(text);
  const budget = SLACK_MAX_SECTION_TEXT - 8;
  if (esc.length <= budget) return [section('```\n' + esc + '\n```')];
  const kept = esc.slice(0, safeCut(esc, budget - 60));
  return [section('```\n' + kept + '\n```'), contextBlock(`… ${esc.length - kept.length} more characters not shown`)];
}

function renderBlock(b: Block, tables: TableSlots): SlackBlock[] {
  switch (b.type) {
    case 'text':
      return renderText(b.text);
    case 'fields':
      return renderFields(b.fields);
    case 'table': {
      if (tables.free > 0) {
        const native = renderNativeTable(b.table, tables.title);
        if (native) {
          tables.free--;
          return native;
        }
      }
      return renderTable(b.table);
    }
    case 'progress':
      return [section(`*${escapeMrkdwn(b.label)}*\n\`${progressBar(b.value, b.max)}\``)];
    case 'context': {
      const md = inlineToMrkdwn(b.text);
      return md.trim() ? [contextBlock(md)] : [];
    }
    case 'code':
      return renderCode(b.text);
    case 'divider':
      return [{ type: 'divider' }];
  }
}

/** A button: its stored id is the action_id. Refuses a button it would have to break. */
export function renderButton(button: Button): SlackBlock {
  if (!button.id) {
    throw new SlackRenderError(
      `button "${button.label}" (${button.command}) has no id: pass the message through Dispatcher.prepareMessage before rendering`,
    );
  }
  if (button.id.length > SLACK_MAX_ACTION_ID) {
    throw new SlackRenderError(`button "${button.label}" id is ${button.id.length} characters, over Slack's ${SLACK_MAX_ACTION_ID}`);
  }
  const value = button.id;
  if (value.length > SLACK_MAX_BUTTON_VALUE) throw new SlackRenderError(`button value over ${SLACK_MAX_BUTTON_VALUE} characters`);
  const out: SlackBlock = {
    type: 'button',
    text: { type: 'plain_text', text: truncate(button.label, SLACK_MAX_BUTTON_TEXT), emoji: true },
    action_id: button.id,
    value,
  };
  if (button.style === 'primary' || button.style === 'danger') out.style = button.style;
  return out;
}

function renderButtons(buttons: Button[]): SlackBlock[] {
  const elements = buttons.map(renderButton);
  const out: SlackBlock[] = [];
  for (let i = 0; i < elements.length; i += SLACK_MAX_ACTIONS_ELEMENTS) {
    out.push({ type: 'actions', elements: elements.slice(i, i + SLACK_MAX_ACTIONS_ELEMENTS) });
  }
  return out;
}

/** Native tables a message may still take, and the title a data_table's caption falls back to. */
interface TableSlots {
  free: number;
  title?: string;
}

export interface BlockKitOptions {
  /**
   * Draw the message's first table that fits as Slack's native `table` (or `data_table`)
   * block. Default true; false for surfaces other than messages (App Home), which draw
   * every table as monospace text.
   */
  nativeTables?: boolean;
}

const isNativeTable = (b: SlackBlock) => b.type === 'table' || b.type === 'data_table';

/**
 * Renders a neutral Message as a Slack message payload (chat.postMessage / respond()).
 * The first table that fits becomes a native table block (one per message, Slack's rule); the
 * others, and one too wide for it, are drawn as monospace text, the fallback every client shows.
 */
export function toBlockKit(message: Message, opts: BlockKitOptions = {}): BlockKitMessage {
  const header: SlackBlock[] = [];
  if (message.header?.trim()) {
    header.push({
      type: 'header',
      text: { type: 'plain_text', text: truncate(message.header.replace(/\s+/g, ' '), SLACK_MAX_HEADER_TEXT), emoji: true },
    });
  }
  const content: SlackBlock[] = [];
  const tables: TableSlots = { free: opts.nativeTables === false ? 0 : SLACK_MAX_TABLES_PER_MESSAGE, title: message.header };
  for (const b of message.blocks) content.push(...renderBlock(b, tables));
  const actions = renderButtons(message.buttons ?? []);
  fitTotalText(content, textLength(header) + textLength(actions));
  // Keep every button; cut content blocks visibly when over the per-message limit.
  const room = SLACK_MAX_BLOCKS - actions.length - header.length;
  if (room < 1) throw new SlackRenderError(`too many buttons: ${message.buttons?.length} need ${actions.length} action blocks`);
  if (content.length > room) {
    const dropped = content.length - (room - 1);
    content.splice(room - 1, content.length, contextBlock(`… ${dropped} more block${dropped === 1 ? '' : 's'} not shown`));
  }
  const body = [...content, ...actions];
  const text = truncateMrkdwn(
    escapeMrkdwn(summaryOf(message) || inlineToPlain(message.header ?? '') || 'rln-chatops'),
    SLACK_MAX_FALLBACK_TEXT,
  );
  // With a tone: the header stays on top, the body sits in one attachment with the colour bar.
  // The top level must keep a block: a message without blocks shows `text` as its body, above
  // the attachment, and the same line would appear twice. Without a header the first block
  // leads instead (a one-block message then goes without the bar rather than say it twice).
  // A native table is not put in a legacy attachment (Slack shows a message's table block
  // itself, below its other blocks): a message with one keeps every block at the top level, without the bar.
  if (message.tone && body.length && !body.some(isNativeTable)) {
    const top = header.length ? header : body.splice(0, 1);
    if (!body.length) return { text, blocks: top };
    return { text, blocks: top, attachments: [{ color: TONE_COLORS[message.tone], fallback: text, blocks: body }] };
  }
  return { text, blocks: [...header, ...body] };
}

/** The characters of text in blocks (what Slack's total limit counts): every `text` string, at any depth. */
export function textLength(blocks: unknown): number {
  let n = 0;
  const walk = (v: unknown, key?: string) => {
    if (typeof v === 'string') {
      if (key === 'text') n += v.length;
    } else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(blocks);
  return n;
}

/**
 * Keeps the message's total text within SLACK_MAX_MESSAGE_TEXT: content blocks from the end
 * are replaced by one visible note saying how many were left out. `fixed`: the header's and
 * buttons' text, always kept.
 */
function fitTotalText(content: SlackBlock[], fixed: number): void {
  if (fixed + textLength(content) <= SLACK_MAX_MESSAGE_TEXT) return;
  const note = (n: number) => contextBlock(`… ${n} more block${n === 1 ? '' : 's'} not shown: the message is too long for Slack`);
  const budget = SLACK_MAX_MESSAGE_TEXT - fixed - textLength([note(content.length)]);
  let used = 0;
  let keep = 0;
  for (const b of content) {
    const n = textLength([b]);
    if (used + n > budget) break;
    used += n;
    keep++;
  }
  content.splice(keep, content.length - keep, note(content.length - keep));
}

/** Every block of a rendered message, in order (top level, then attachments). */
export function allBlocks(m: BlockKitMessage): SlackBlock[] {
  return [...m.blocks, ...(m.attachments ?? []).flatMap((a) => a.blocks)];
}
