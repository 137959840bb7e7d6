/**
 * Discord's platform limits, named. Exceeding one either throws (ids, counts the code controls)
 * or truncates visibly with an ellipsis or a "… N more" note (user data); never silently.
 */
import { cutText, graphemePrefix } from '../../vocabulary/index.js';

export const DISCORD_MAX_CONTENT = 2000;
export const DISCORD_MAX_EMBED_TITLE = 256;
export const DISCORD_MAX_EMBED_DESCRIPTION = 4096;
export const DISCORD_MAX_EMBED_FIELDS = 25;
export const DISCORD_MAX_FIELD_NAME = 256;
export const DISCORD_MAX_FIELD_VALUE = 1024;
export const DISCORD_MAX_FOOTER_TEXT = 2048;
/** Sum of title, description, field names and values, footer text of all embeds in a message. */
export const DISCORD_MAX_EMBED_TOTAL = 6000;
export const DISCORD_MAX_BUTTONS_PER_ROW = 5;
export const DISCORD_MAX_ACTION_ROWS = 5;
export const DISCORD_MAX_BUTTON_LABEL = 80;
export const DISCORD_MAX_CUSTOM_ID = 100;

export const DISCORD_MAX_MODAL_TITLE = 45;
export const DISCORD_MAX_MODAL_INPUTS = 5;
/** Top-level components of a modal (Labels and Text Displays together). */
export const DISCORD_MAX_MODAL_COMPONENTS = 5;
/** A Label component's label and description. */
export const DISCORD_MAX_LABEL = 45;
export const DISCORD_MAX_LABEL_DESCRIPTION = 100;
/** A Text Display's content (all of a message's or modal's text displays together). */
export const DISCORD_MAX_TEXT_DISPLAY = 4000;
export const DISCORD_MAX_TEXT_INPUT_LABEL = 45;

/**
 * Components V2 (https://discord.com/developers/docs/components/reference): a message sent with
 * the IS_COMPONENTS_V2 flag has no `content` or `embeds`; its components hold everything. At most
 * 40 components in all (nested ones count), 10 at the top level and 10 in a container, 1–3 text
 * displays in a section, 1–10 items in a media gallery, and 4000 characters of text displays in
 * all (DISCORD_MAX_TEXT_DISPLAY). A file shows only where a component names it (`attachment://`).
 */
export const DISCORD_FLAG_IS_COMPONENTS_V2 = 1 << 15;
export const DISCORD_V2_MAX_COMPONENTS = 40;
export const DISCORD_V2_MAX_TOP_LEVEL = 10;
export const DISCORD_V2_MAX_CONTAINER_CHILDREN = 10;
export const DISCORD_V2_MAX_SECTION_TEXTS = 3;
export const DISCORD_V2_MAX_GALLERY_ITEMS = 10;
export const DISCORD_V2_MAX_MEDIA_DESCRIPTION = 1024;
export const DISCORD_MAX_TEXT_INPUT_PLACEHOLDER = 100;
export const DISCORD_MAX_TEXT_INPUT_VALUE = 4000;

export const DISCORD_MAX_COMMAND_NAME = 32;
export const DISCORD_MAX_COMMAND_DESCRIPTION = 100;
export const DISCORD_MAX_SUBCOMMAND_GROUPS = 25;
/** Chat-input commands an application may register (globally, or in one guild). */
export const DISCORD_MAX_COMMANDS = 100;
export const DISCORD_MAX_SUBCOMMANDS = 25;
export const DISCORD_MAX_OPTIONS = 25;
export const DISCORD_MAX_CHOICES = 25;
export const DISCORD_MAX_CHOICE_NAME = 100;
/** A string choice's value (command choices and autocomplete results). */
export const DISCORD_MAX_CHOICE_VALUE = 100;
/** Combined length of every name, description and choice name/value in one command. */
export const DISCORD_MAX_COMMAND_TOTAL_CHARS = 8000;
export const DISCORD_COMMAND_NAME_PATTERN = /^[-_\p{L}\p{N}]{1,32}$/u;
export const DISCORD_MAX_AUTOCOMPLETE_CHOICES = 25;

/** The first answer to an interaction is due within 3 s; we defer when not ready by this. */
export const DISCORD_DEFER_AFTER_MS = 2_500;

/** Interaction callback types. */
export const CALLBACK = {
  PONG: 1,
  CHANNEL_MESSAGE: 4,
  DEFERRED_CHANNEL_MESSAGE: 5,
  DEFERRED_UPDATE_MESSAGE: 6,
  UPDATE_MESSAGE: 7,
  AUTOCOMPLETE_RESULT: 8,
  MODAL: 9,
} as const;

/** Interaction types. */
export const INTERACTION = {
  PING: 1,
  APPLICATION_COMMAND: 2,
  MESSAGE_COMPONENT: 3,
  AUTOCOMPLETE: 4,
  MODAL_SUBMIT: 5,
} as const;

export const EPHEMERAL_FLAG = 64;

/** Truncates at a word boundary when one is near, with a visible ellipsis. */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = graphemePrefix(text, Math.max(0, max - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space >= max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.(-]+$/, '')}…`;
}

/** Truncates with a visible ellipsis. */
export function clip(text: string, max: number): string {
  return cutText(text, max);
}
