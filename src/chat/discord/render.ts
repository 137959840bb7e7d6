/**
 * Pure converters from the neutral Message / Dialog to Discord payloads: one embed coloured by
 * tone, buttons in action rows, and modals (components v1: action rows of text inputs).
 * Every limit is a named constant (./limits.ts); exceeding one throws (ids and counts the code
 * controls) or truncates visibly (user data), never silently.
 */
import type { Block, Button, Field, Message, Table, Tone } from '../../vocabulary/index.js';
import type { Dialog } from '../../engine/index.js';
import { escapeCode, escapeDiscord, inlineToDiscord, neutraliseMentions } from './escape-discord.js';
import { inlineToPlain } from '../../vocabulary/index.js';
import { shareBar } from '../../vocabulary/index.js';
import { graphemePrefix } from '../../vocabulary/index.js';
import {
  DISCORD_MAX_ACTION_ROWS,
  DISCORD_MAX_BUTTONS_PER_ROW,
  DISCORD_MAX_BUTTON_LABEL,
  DISCORD_MAX_CUSTOM_ID,
  DISCORD_MAX_EMBED_DESCRIPTION,
  DISCORD_MAX_EMBED_FIELDS,
  DISCORD_MAX_EMBED_TITLE,
  DISCORD_MAX_EMBED_TOTAL,
  DISCORD_MAX_FIELD_NAME,
  DISCORD_MAX_FIELD_VALUE,
  DISCORD_MAX_FOOTER_TEXT,
  DISCORD_MAX_MODAL_INPUTS,
  DISCORD_MAX_MODAL_TITLE,
  DISCORD_MAX_MODAL_COMPONENTS,
  DISCORD_MAX_LABEL,
  DISCORD_MAX_LABEL_DESCRIPTION,
  DISCORD_MAX_TEXT_DISPLAY,
  DISCORD_MAX_TEXT_INPUT_PLACEHOLDER,
  DISCORD_MAX_TEXT_INPUT_VALUE,
  clip,
  clipWords,
} from './limits.js';

/** Embed colours by tone. */
export const DISCORD_COLOUR_SUCCESS = 0x2ecc71;
export const DISCORD_COLOUR_INFO = 0x3498db;
export const DISCORD_COLOUR_WARNING = 0xf1c40f;
export const DISCORD_COLOUR_DANGER = 0xe74c3c;
export const DISCORD_COLOUR_NEUTRAL = 0x95a5a6;

export const TONE_COLOURS: Record<Tone, number> = {
  success: DISCORD_COLOUR_SUCCESS,
  info: DISCORD_COLOUR_INFO,
  warning: DISCORD_COLOUR_WARNING,
  danger: DISCORD_COLOUR_DANGER,
  neutral: DISCORD_COLOUR_NEUTRAL,
};

export const BUTTON_STYLE = { primary: 1, secondary: 2, danger: 4 } as const;

export interface DiscordEmbed {
  title?: string;
  description?: string;
  color: number;
  fields?: Array<{ name: string; value: string; inline: boolean }>;
  footer?: { text: string };
}

export interface DiscordButton {
  type: 2;
  style: 1 | 2 | 4;
  label: string;
  custom_id: string;
}

export interface DiscordActionRow<C> {
  type: 1;
  components: C[];
}

export interface DiscordPayload {
  content?: string;
  embeds: DiscordEmbed[];
  components: DiscordActionRow<DiscordButton>[];
  allowed_mentions: { parse: [] };
}

export class DiscordRenderError extends Error {
  override readonly name = 'DiscordRenderError';
}

const PROGRESS_WIDTH = 20;
const TABLE_MAX_COLUMN_WIDTH = 40;
const SEPARATOR = '\n';
/** Characters of the 6000-character embed budget kept for the description when fields are many. */
const FIELDS_LEAVE_FOR_DESCRIPTION = 1000;

export function renderProgress(label: string, value: number, max: number): string {
  const ratio = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  return `${escapeDiscord(label)} \`${shareBar(ratio, PROGRESS_WIDTH)}\` ${Math.round(ratio * 100)}%`;
}

function pad(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = clip(text, width);
  return align === 'right' ? t.padStart(width) : t.padEnd(width);
}

/** A table as a code block holding as many rows as `budget` allows, then "… N more rows". */
export function renderTable(table: Table, budget: number): string | undefined {
  const widths = table.columns.map((c, i) =>
    Math.min(TABLE_MAX_COLUMN_WIDTH, Math.max(c.header.length, ...table.rows.map((r) => (r[i] ?? '').length))),
  );
  const line = (cells: string[]) =>
    escapeCode(
      table.columns
        .map((c, i) => pad(cells[i] ?? '', widths[i], c.align))
        .join('  ')
        .trimEnd(),
    );
  const head = [line(table.columns.map((c) => c.header)), widths.map((w) => '─'.repeat(w)).join('  ')];
  const caption = table.caption ? `\n*${escapeDiscord(table.caption)}*` : '';
  const open = '```\n';
  const close = '\n```';
  const rows = table.rows.map(line);
  const build = (n: number) => {
    const more = table.rows.length - n;
    const body = [...head, ...rows.slice(0, n), ...(more > 0 ? [`… ${more} more row${more === 1 ? '' : 's'}`] : [])];
    return `${open}${body.join('\n')}${close}${caption}`;
  };
  let n = rows.length;
  let text = build(n);
  while (text.length > budget && n > 0) {
    // Drop rows in proportion to the overflow, at least one at a time.
    const over = text.length - budget;
    const avg = Math.max(1, Math.ceil(rows.slice(0, n).reduce((a, r) => a + r.length + 1, 0) / n));
    n = Math.max(0, n - Math.max(1, Math.ceil(over / avg)));
    text = build(n);
  }
  if (text.length <= budget) return text;
  const note = `*… a table of ${table.rows.length} rows is not shown: the message is too long*`;
  return note.length <= budget ? note : undefined;
}

export function renderCode(text: string, budget: number): string | undefined {
  const full = `\`\`\`\n${escapeCode(text)}\n\`\`\``;
  if (full.length <= budget) return full;
  const note = '\n… (truncated)';
  const room = budget - '```\n\n```'.length - note.length;
  if (room <= 0) return undefined;
  return `\`\`\`\n${graphemePrefix(escapeCode(text), room)}${note}\n\`\`\``;
}

function fieldsOf(blocks: Block[]): Field[] {
  return blocks.flatMap((b) => (b.type === 'fields' ? b.fields : []));
}

/** Fields up to Discord's count and the embed's character budget; the rest become a visible note. */
function renderFields(fields: Field[], budget: number): NonNullable<DiscordEmbed['fields']> {
  const out = fields.map((f) => ({
    name: clip(escapeDiscord(f.label), DISCORD_MAX_FIELD_NAME) || '\u200b',
    value: clip(inlineToDiscord(f.value), DISCORD_MAX_FIELD_VALUE) || '\u200b',
    inline: !!f.inline,
  }));
  const size = (list: typeof out) => list.reduce((a, f) => a + f.name.length + f.value.length, 0);
  if (out.length <= DISCORD_MAX_EMBED_FIELDS && size(out) <= budget) return out;
  const NOTE_ROOM = 40;
  const kept: typeof out = [];
  let used = 0;
  for (const f of out) {
    if (kept.length >= DISCORD_MAX_EMBED_FIELDS - 1) break;
    if (used + f.name.length + f.value.length > budget - NOTE_ROOM) break;
    kept.push(f);
    used += f.name.length + f.value.length;
  }
  const more = out.length - kept.length;
  kept.push({ name: '…', value: `${more} more field${more === 1 ? '' : 's'} not shown`, inline: false });
  return kept;
}

/**
 * A text, table, code or progress block as markdown within `budget` characters: a text too long
 * is cut with a note, the others are undefined when they do not fit. Null for the other blocks,
 * which each layout (embed, components v2) draws its own way.
 */
export function blockText(b: Block, budget: number): string | undefined | null {
  switch (b.type) {
    case 'text': {
      const t = inlineToDiscord(b.text);
      return t.length <= budget ? t : budget > 20 ? `${graphemePrefix(t, budget - 16)}… (truncated)` : undefined;
    }
    case 'table':
      return renderTable(b.table, budget);
    case 'code':
      return renderCode(b.text, budget);
    case 'progress': {
      const p = renderProgress(b.label, b.value, b.max);
      return p.length <= budget ? p : undefined;
    }
    default:
      return null;
  }
}

function renderDescription(blocks: Block[], max: number): string {
  const parts: string[] = [];
  let used = 0;
  let dropped = 0;
  for (const b of blocks) {
    const budget = max - used - (parts.length ? SEPARATOR.length : 0);
    let piece = blockText(b, budget);
    if (piece === null) {
      // Fields go into the embed's fields, a context into its footer.
      if (b.type !== 'divider') continue;
      piece = budget >= 10 ? '──────────' : undefined;
    }
    if (piece === undefined) {
      dropped++;
      continue;
    }
    parts.push(piece);
    used += piece.length + (parts.length > 1 ? SEPARATOR.length : 0);
  }
  let out = parts.join(SEPARATOR);
  if (dropped) {
    const note = `\n… ${dropped} more part${dropped === 1 ? '' : 's'} not shown (too long for Discord)`;
    out = out.length + note.length <= max ? out + note : `${graphemePrefix(out, max - note.length)}${note}`;
  }
  return out;
}

export function renderButtons(buttons: Button[] | undefined): DiscordActionRow<DiscordButton>[] {
  if (!buttons?.length) return [];
  const max = DISCORD_MAX_BUTTONS_PER_ROW * DISCORD_MAX_ACTION_ROWS;
  if (buttons.length > max) {
    throw new DiscordRenderError(`a Discord message holds at most ${max} buttons; this one has ${buttons.length}`);
  }
  const rendered: DiscordButton[] = buttons.map((b) => {
    if (!b.id) {
      throw new DiscordRenderError(`button "${b.label}" (${b.command}) has no id: call dispatcher.prepareMessage before rendering`);
    }
    if (b.id.length > DISCORD_MAX_CUSTOM_ID) {
      throw new DiscordRenderError(
        `button "${b.label}" id is ${b.id.length} characters; Discord custom_id allows ${DISCORD_MAX_CUSTOM_ID}`,
      );
    }
    return { type: 2, style: BUTTON_STYLE[b.style ?? 'secondary'], label: clip(b.label, DISCORD_MAX_BUTTON_LABEL), custom_id: b.id };
  });
  const rows: DiscordActionRow<DiscordButton>[] = [];
  for (let i = 0; i < rendered.length; i += DISCORD_MAX_BUTTONS_PER_ROW) {
    rows.push({ type: 1, components: rendered.slice(i, i + DISCORD_MAX_BUTTONS_PER_ROW) });
  }
  return rows;
}

function embedSize(e: DiscordEmbed): number {
  return (
    (e.title?.length ?? 0) +
    (e.description?.length ?? 0) +
    (e.footer?.text.length ?? 0) +
    (e.fields ?? []).reduce((a, f) => a + f.name.length + f.value.length, 0)
  );
}

/** The neutral Message as a Discord message payload (create, edit, interaction reply). */
export function toDiscordPayload(message: Message): DiscordPayload {
  const embed: DiscordEmbed = { color: TONE_COLOURS[message.tone ?? 'neutral'] };
  if (message.header) embed.title = clip(escapeDiscord(message.header), DISCORD_MAX_EMBED_TITLE);
  const context = message.blocks.flatMap((b) => (b.type === 'context' ? [b.text] : []));
  if (context.length) {
    // Footers are plain text in Discord (no markdown), so only mentions matter; spans lose emphasis.
    const text = neutraliseMentions(
      context
        .map((t) => inlineToPlain(t).trim())
        .filter(Boolean)
        .join(' · '),
    );
    // Discord refuses an embed whose footer text is empty (or only spaces): send none then.
    if (text) embed.footer = { text: clip(text, DISCORD_MAX_FOOTER_TEXT) };
  }
  const hasDescription = message.blocks.some((b) => b.type !== 'fields' && b.type !== 'context');
  const fields = renderFields(
    fieldsOf(message.blocks),
    DISCORD_MAX_EMBED_TOTAL - embedSize(embed) - (hasDescription ? FIELDS_LEAVE_FOR_DESCRIPTION : 0),
  );
  if (fields.length) embed.fields = fields;
  const fixed = embedSize(embed);
  const room = Math.min(DISCORD_MAX_EMBED_DESCRIPTION, DISCORD_MAX_EMBED_TOTAL - fixed);
  const description = renderDescription(message.blocks, Math.max(0, room));
  if (description) embed.description = description;
  if (!embed.title && !embed.description && !embed.fields) embed.description = '\u200b';
  return { embeds: [embed], components: renderButtons(message.buttons), allowed_mentions: { parse: [] } };
}

/** A text input inside a Label: its label and description belong to the Label. */
export interface DiscordTextInput {
  type: 4;
  custom_id: string;
  style: 1 | 2;
  required: boolean;
  placeholder?: string;
  value?: string;
  min_length?: number;
  max_length?: number;
}

/** Label (type 18): a title and an optional description around one input. */
export interface DiscordLabel {
  type: 18;
  label: string;
  description?: string;
  component: DiscordTextInput;
}

/** Text Display (type 10): markdown shown in the modal, such as a dialog's warning. */
export interface DiscordTextDisplay {
  type: 10;
  content: string;
}

export interface DiscordModal {
  custom_id: string;
  title: string;
  components: Array<DiscordLabel | DiscordTextDisplay>;
}

/** The text a checkbox field shows: Discord modals have no checkbox, so it is a yes/no text input. */
export const CHECKBOX_YES = 'yes';
export const CHECKBOX_NO = 'no';
const CHECKBOX_SUFFIX = ' (yes/no)';

/**
 * A Dialog as the data of an interaction callback of type 9 (MODAL), in Discord's current modal
 * components: the dialog's intro (the destroy dialog's irreversibility warning) is a Text Display
 * at the top, and each field is a Label (its label and hint) around a text input. When the five
 * top-level components are all needed for fields, the intro goes into the first Label's
 * description instead. Secrets are short text inputs (Discord has no masked input; the modal is
 * private to the user). Checkboxes are short "yes/no" inputs, default "yes" (or the field's
 * initial value).
 */
export function dialogToModal(dialog: Dialog): DiscordModal {
  if (!dialog.id || dialog.id.length > DISCORD_MAX_CUSTOM_ID) {
    throw new DiscordRenderError(`dialog id must be 1-${DISCORD_MAX_CUSTOM_ID} characters; got ${dialog.id.length}`);
  }
  if (dialog.fields.length === 0 || dialog.fields.length > DISCORD_MAX_MODAL_INPUTS) {
    throw new DiscordRenderError(
      `a Discord modal holds 1-${DISCORD_MAX_MODAL_INPUTS} inputs; dialog "${dialog.title}" has ${dialog.fields.length}`,
    );
  }
  const intro = dialog.intro?.trim();
  const introShown = Boolean(intro) && dialog.fields.length < DISCORD_MAX_MODAL_COMPONENTS;
  const labels = dialog.fields.map((f, i): DiscordLabel => {
    if (!f.name || f.name.length > DISCORD_MAX_CUSTOM_ID) {
      throw new DiscordRenderError(`dialog field name must be 1-${DISCORD_MAX_CUSTOM_ID} characters: "${f.name}"`);
    }
    const input: DiscordTextInput = {
      type: 4,
      custom_id: f.name,
      style: 1,
      required: f.kind === 'checkbox' ? true : f.required !== false,
    };
    if (f.placeholder) input.placeholder = clip(f.placeholder, DISCORD_MAX_TEXT_INPUT_PLACEHOLDER);
    if (f.kind === 'checkbox') {
      const initial = (f.initial ?? '').toLowerCase();
      input.value = initial === 'false' || initial === 'no' ? CHECKBOX_NO : CHECKBOX_YES;
      input.max_length = 3;
    } else if (f.kind !== 'secret' && f.initial && f.initial.length <= DISCORD_MAX_TEXT_INPUT_VALUE) {
      // A longer one is not prefilled at all: a silently cut value would be submitted as if typed.
      input.value = f.initial;
    }
    if (f.minLength && f.kind !== 'checkbox') input.min_length = f.minLength;
    const label: DiscordLabel = {
      type: 18,
      label:
        f.kind === 'checkbox'
          ? `${clip(f.label, DISCORD_MAX_LABEL - CHECKBOX_SUFFIX.length)}${CHECKBOX_SUFFIX}`
          : clip(f.label, DISCORD_MAX_LABEL),
      component: input,
    };
    const description = f.hint ?? (i === 0 && intro && !introShown ? intro : undefined);
    if (description) label.description = clipWords(description, DISCORD_MAX_LABEL_DESCRIPTION);
    return label;
  });
  const components: DiscordModal['components'] = introShown
    ? [{ type: 10, content: clip(intro!, DISCORD_MAX_TEXT_DISPLAY) }, ...labels]
    : labels;
  return { custom_id: dialog.id, title: clip(dialog.title, DISCORD_MAX_MODAL_TITLE), components };
}
