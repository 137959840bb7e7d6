/**
 * A neutral Message as a Discord Components V2 message (the IS_COMPONENTS_V2 flag): one Container
 * with the tone's colour bar holding the header, the body, the message's images (a media gallery)
 * and other files, and its buttons. An incident is one card with its buttons inside it; a report
 * shows its chart inside the card, under its tables, where an embed leaves it as a loose
 * attachment below. Pure; every limit is a named constant (./limits.ts). Text over the 4000
 * characters a V2 message holds is cut visibly; buttons that cannot fit within 40 components
 * throw, and the caller (./to-discord-message.ts) falls back to an embed.
 */
import type {
  APIActionRowComponent,
  APIComponentInContainer,
  APIComponentInMessageActionRow,
  APIContainerComponent,
  APIFileComponent,
  APIMediaGalleryComponent,
  APISeparatorComponent,
  APITextDisplayComponent,
} from 'discord.js';
import type { Block, Inline, Message, MessageFile } from '../../vocabulary/index.js';
import { escapeDiscord, inlineToDiscord } from './escape-discord.js';
import {
  DISCORD_FLAG_IS_COMPONENTS_V2,
  DISCORD_MAX_EMBED_TITLE,
  DISCORD_MAX_TEXT_DISPLAY,
  DISCORD_V2_MAX_COMPONENTS,
  DISCORD_V2_MAX_CONTAINER_CHILDREN,
  DISCORD_V2_MAX_GALLERY_ITEMS,
  DISCORD_V2_MAX_MEDIA_DESCRIPTION,
  clip,
} from './limits.js';
import { DiscordRenderError, TONE_COLOURS, blockText, renderButtons } from './render.js';

export interface DiscordV2Payload {
  flags: number;
  components: APIContainerComponent[];
  allowed_mentions: { parse: [] };
  /** On an edit only: a message that was an embed opts into V2 when its content and embeds are cleared. */
  content?: null;
  embeds?: null;
}

export interface V2Options {
  /** The message's files go in the same request, so the card shows them (`attachment://name`). */
  files?: boolean;
  /** An edit of a message already posted: content and embeds are cleared explicitly. */
  edit?: boolean;
}

/** Room kept for the note that says what was cut. */
const NOTE_ROOM = 80;

/** The name a file is attached under: what `attachment://` can name (Discord rewrites other characters). */
export function attachmentName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_') || 'file';
}

type Piece = { text: string } | { separator: true };

/** Fields as lines of markdown: `**Label**: value`, or the value under its label when it has lines. */
function fieldsText(block: Extract<Block, { type: 'fields' }>): string {
  return block.fields
    .map((f) => {
      const value = inlineToDiscord(f.value) || '–';
      return `**${escapeDiscord(f.label)}**${value.includes('\n') ? '\n' : ': '}${value}`;
    })
    .join('\n');
}

const subtext = (text: Inline[] | string) =>
  inlineToDiscord(text)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => `-# ${l}`)
    .join('\n');

/** The body's pieces, within `budget` characters; what does not fit is counted, not cut in the middle. */
function bodyPieces(blocks: Block[], budget: number): Piece[] {
  const out: Piece[] = [];
  let used = 0;
  let dropped = 0;
  for (const b of blocks) {
    if (b.type === 'divider') {
      out.push({ separator: true });
      continue;
    }
    const room = budget - used - 1;
    let piece = blockText(b, room);
    if (piece === null) {
      // Discord's subtext for a context: small grey lines, as an embed's footer.
      piece = b.type === 'fields' ? fieldsText(b) : b.type === 'context' ? subtext(b.text) : undefined;
    }
    if (!piece?.trim()) {
      if (piece === undefined) dropped++;
      continue;
    }
    if (piece.length > room) {
      dropped++;
      continue;
    }
    out.push({ text: piece });
    used += piece.length + 1;
  }
  if (dropped) out.push({ text: `-# … ${dropped} more part${dropped === 1 ? '' : 's'} not shown (too long for one Discord message)` });
  return out;
}

/** Adjacent text pieces become one text display; a divider is a separator between them. */
function toComponents(pieces: Piece[], oneDisplay: boolean): Array<APITextDisplayComponent | APISeparatorComponent> {
  const out: Array<APITextDisplayComponent | APISeparatorComponent> = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) out.push({ type: 10, content: run.join('\n') });
    run = [];
  };
  for (const p of pieces) {
    if ('separator' in p) {
      if (oneDisplay) run.push('');
      else {
        flush();
        if (out.length) out.push({ type: 14, divider: true, spacing: 1 });
      }
    } else run.push(p.text);
  }
  flush();
  // A separator with nothing after it separates nothing.
  while (out.length && 'divider' in out[out.length - 1]) out.pop();
  return out;
}

function fileComponents(files: MessageFile[]): Array<APIMediaGalleryComponent | APIFileComponent> {
  const images = files.filter((f) => f.mime.startsWith('image/')).slice(0, DISCORD_V2_MAX_GALLERY_ITEMS);
  const others = files.filter((f) => !images.includes(f));
  const out: Array<APIMediaGalleryComponent | APIFileComponent> = [];
  if (images.length) {
    out.push({
      type: 12,
      items: images.map((f) => ({
        media: { url: `attachment://${attachmentName(f.name)}` },
        ...(f.alt ? { description: clip(f.alt, DISCORD_V2_MAX_MEDIA_DESCRIPTION) } : {}),
      })),
    });
  }
  for (const f of others) out.push({ type: 13, file: { url: `attachment://${attachmentName(f.name)}` } });
  return out;
}

/** Components in a container and below it, the container counted. */
function countComponents(children: APIComponentInContainer[]): number {
  return 1 + children.reduce((n, c) => n + 1 + ('components' in c ? c.components.length : 0), 0);
}

/** The message as a V2 payload; throws DiscordRenderError when its buttons and files cannot fit. */
export function toDiscordV2Payload(message: Message, o: V2Options = {}): DiscordV2Payload {
  const header = message.header?.trim() ? `### ${clip(escapeDiscord(message.header.replace(/\s+/g, ' ')), DISCORD_MAX_EMBED_TITLE)}` : '';
  const budget = DISCORD_MAX_TEXT_DISPLAY - header.length - NOTE_ROOM;
  const pieces = bodyPieces(message.blocks, budget);
  const rows: APIActionRowComponent<APIComponentInMessageActionRow>[] = renderButtons(message.buttons);
  const files = o.files ? fileComponents(message.files ?? []) : [];
  const build = (oneDisplay: boolean): APIComponentInContainer[] => {
    const body = toComponents(pieces, oneDisplay);
    const head: APITextDisplayComponent[] = header ? [{ type: 10, content: header }] : [];
    // With one display the header leads it, so the card keeps a single block of text.
    const first = body[0];
    if (oneDisplay && head.length && first && 'content' in first) body[0] = { type: 10, content: `${header}\n${first.content}` };
    else body.unshift(...head);
    return [...body, ...files, ...rows];
  };
  let children = build(false);
  if (children.length > DISCORD_V2_MAX_CONTAINER_CHILDREN || countComponents(children) > DISCORD_V2_MAX_COMPONENTS) {
    children = build(true);
  }
  if (!children.length) children = [{ type: 10, content: '\u200b' }];
  if (children.length > DISCORD_V2_MAX_CONTAINER_CHILDREN) {
    throw new DiscordRenderError(
      `a V2 container holds ${DISCORD_V2_MAX_CONTAINER_CHILDREN} components; this message needs ${children.length}`,
    );
  }
  const count = countComponents(children);
  if (count > DISCORD_V2_MAX_COMPONENTS) {
    throw new DiscordRenderError(`a V2 message holds ${DISCORD_V2_MAX_COMPONENTS} components; this one needs ${count}`);
  }
  const container: APIContainerComponent = {
    type: 17,
    accent_color: TONE_COLOURS[message.tone ?? 'neutral'],
    components: children,
  };
  return {
    flags: DISCORD_FLAG_IS_COMPONENTS_V2,
    components: [container],
    allowed_mentions: { parse: [] },
    ...(o.edit ? { content: null, embeds: null } : {}),
  };
}

/** The characters of every text display of a V2 payload (what Discord's 4000 counts). */
export function v2TextLength(p: DiscordV2Payload): number {
  let n = 0;
  const walk = (c: { type: number; content?: string; components?: unknown[] }) => {
    if (c.type === 10) n += c.content?.length ?? 0;
    for (const x of c.components ?? []) walk(x as typeof c);
  };
  p.components.forEach((c) => walk(c));
  return n;
}
