/**
 * A message payload checked the way Discord checks it, for the fake Discord to answer 400 "Invalid
 * Form Body" (code 50035) as Discord does. Its numbers are its own, not the bot's (so a wrong limit
 * in src/ is caught), from Discord's references (discord.com/developers/docs/components/reference
 * and …/resources/message) and discord-api-types 0.38:
 *
 * - With the IS_COMPONENTS_V2 flag (1 << 15): no `content`, `embeds`, `poll` or `stickers`; at most
 *   40 components in all (nested ones count) and 10 at the top level; a container holds 1–10
 *   action rows, text displays, sections, media galleries, separators or files; a section 1–3
 *   text displays and a button or thumbnail beside them; a media gallery 1–10 items; the text
 *   displays 4000 characters together; a file or media named `attachment://x` must be attached.
 *   A message that has the flag cannot lose it in an edit.
 * - Without it: only action rows at the top (at most 5, of 1–5 buttons); content up to 2000
 *   characters; at most 10 embeds of 6000 characters in all.
 * - Everywhere: a button's custom_id is 1–100 characters and unique in its message; its label at most 80.
 */
export const IS_COMPONENTS_V2 = 1 << 15;
const MAX_COMPONENTS = 40;
const MAX_TOP_LEVEL = 10;
const MAX_CONTAINER_CHILDREN = 10;
const MAX_TEXT = 4000;
const MAX_GALLERY_ITEMS = 10;
const MAX_ROWS_V1 = 5;
const MAX_BUTTONS_PER_ROW = 5;
const MAX_CUSTOM_ID = 100;
const MAX_LABEL = 80;
const MAX_CONTENT = 2000;
const MAX_EMBEDS = 10;
const MAX_EMBED_TOTAL = 6000;

const TOP_LEVEL_V2 = new Set([1, 9, 10, 12, 13, 14, 17]);
const IN_CONTAINER = new Set([1, 9, 10, 12, 13, 14]);

export interface PayloadContext {
  /** File names attached in this request (multipart parts and `attachments[].filename`) or already on the message. */
  files: string[];
  /** Flags of the message being edited, when this is an edit. */
  editedFlags?: number;
}

const isV2 = (flags: unknown) => typeof flags === 'number' && (flags & IS_COMPONENTS_V2) !== 0;

/** The problems of a message payload, empty when Discord would take it. */
export function messagePayloadProblems(body: any, ctx: PayloadContext): string[] {
  if (!body || typeof body !== 'object') return [];
  const out: string[] = [];
  const editOfV2 = ctx.editedFlags !== undefined && isV2(ctx.editedFlags);
  // An edit of a V2 message is V2 whatever flags it sends: the flag cannot be taken away.
  const v2 = isV2(body.flags) || editOfV2;
  if (editOfV2 && body.flags !== undefined && !isV2(body.flags)) out.push('flags: a message with IS_COMPONENTS_V2 cannot lose it');
  const ids = new Set<string>();
  const button = (b: any, where: string) => {
    if (b?.type !== 2) return out.push(`${where}: type ${b?.type} is not a button`);
    if (b.style === 5) {
      if (typeof b.url !== 'string') out.push(`${where}: a link button needs a url`);
    } else if (typeof b.custom_id !== 'string' || b.custom_id.length < 1 || b.custom_id.length > MAX_CUSTOM_ID) {
      out.push(`${where}: custom_id must be 1-${MAX_CUSTOM_ID} characters`);
    } else if (ids.has(b.custom_id)) out.push(`${where}: custom_id ${b.custom_id} is used twice`);
    else ids.add(b.custom_id);
    if (typeof b.label === 'string' && b.label.length > MAX_LABEL) out.push(`${where}: label over ${MAX_LABEL} characters`);
    if (![1, 2, 3, 4, 5, 6].includes(b.style)) out.push(`${where}: button style ${b.style}`);
  };
  const actionRow = (r: any, where: string) => {
    const list = Array.isArray(r.components) ? r.components : [];
    if (list.length < 1 || list.length > MAX_BUTTONS_PER_ROW) out.push(`${where}: an action row holds 1-${MAX_BUTTONS_PER_ROW} buttons`);
    list.forEach((b: any, i: number) => button(b, `${where}.components[${i}]`));
    return list.length;
  };
  const components = Array.isArray(body.components) ? body.components : [];
  if (!v2) {
    if (typeof body.content === 'string' && body.content.length > MAX_CONTENT) out.push(`content: over ${MAX_CONTENT} characters`);
    const embeds = Array.isArray(body.embeds) ? body.embeds : [];
    if (embeds.length > MAX_EMBEDS) out.push(`embeds: more than ${MAX_EMBEDS}`);
    const total = embeds.reduce(
      (n: number, e: any) =>
        n +
        String(e?.title ?? '').length +
        String(e?.description ?? '').length +
        String(e?.footer?.text ?? '').length +
        (e?.fields ?? []).reduce((m: number, f: any) => m + String(f?.name ?? '').length + String(f?.value ?? '').length, 0),
      0,
    );
    if (total > MAX_EMBED_TOTAL) out.push(`embeds: ${total} characters, over ${MAX_EMBED_TOTAL}`);
    if (components.length > MAX_ROWS_V1) out.push(`components: more than ${MAX_ROWS_V1} action rows`);
    components.forEach((c: any, i: number) => {
      if (c?.type !== 1) out.push(`components[${i}]: type ${c?.type} needs the IS_COMPONENTS_V2 flag`);
      else actionRow(c, `components[${i}]`);
    });
    return out;
  }
  if (typeof body.content === 'string' && body.content.length) out.push('content: not allowed with IS_COMPONENTS_V2');
  if (Array.isArray(body.embeds) && body.embeds.length) out.push('embeds: not allowed with IS_COMPONENTS_V2');
  if (body.poll) out.push('poll: not allowed with IS_COMPONENTS_V2');
  if (Array.isArray(body.sticker_ids) && body.sticker_ids.length) out.push('sticker_ids: not allowed with IS_COMPONENTS_V2');
  // An edit without components keeps the message's own.
  if (!components.length && !(ctx.editedFlags !== undefined && body.components === undefined))
    out.push('components: a V2 message needs at least one');
  if (components.length > MAX_TOP_LEVEL) out.push(`components: more than ${MAX_TOP_LEVEL} at the top level`);
  let count = 0;
  let text = 0;
  const attached = (url: unknown, where: string) => {
    if (typeof url !== 'string' || !url) return out.push(`${where}: media needs a url`);
    const m = url.match(/^attachment:\/\/(.+)$/);
    if (m && !ctx.files.includes(m[1])) out.push(`${where}: ${url} names no attached file`);
  };
  const textDisplay = (c: any, where: string) => {
    if (typeof c.content !== 'string' || !c.content.length) out.push(`${where}: a text display needs content`);
    else text += c.content.length;
  };
  const walk = (c: any, where: string, inContainer: boolean) => {
    count++;
    switch (c?.type) {
      case 1:
        count += actionRow(c, where);
        return;
      case 10:
        return textDisplay(c, where);
      case 9: {
        const texts = Array.isArray(c.components) ? c.components : [];
        if (texts.length < 1 || texts.length > 3) out.push(`${where}: a section holds 1-3 text displays`);
        texts.forEach((t: any, i: number) => {
          count++;
          if (t?.type !== 10) out.push(`${where}.components[${i}]: only text displays go in a section`);
          else textDisplay(t, `${where}.components[${i}]`);
        });
        count++;
        if (c.accessory?.type === 2) button(c.accessory, `${where}.accessory`);
        else if (c.accessory?.type === 11) attached(c.accessory.media?.url, `${where}.accessory`);
        else out.push(`${where}: a section needs a button or a thumbnail beside its text`);
        return;
      }
      case 12: {
        const items = Array.isArray(c.items) ? c.items : [];
        if (items.length < 1 || items.length > MAX_GALLERY_ITEMS) out.push(`${where}: a media gallery holds 1-${MAX_GALLERY_ITEMS} items`);
        items.forEach((it: any, i: number) => attached(it?.media?.url, `${where}.items[${i}]`));
        return;
      }
      case 13:
        if (!/^attachment:\/\//.test(String(c.file?.url ?? ''))) out.push(`${where}: a file component names an attachment://`);
        else attached(c.file.url, where);
        return;
      case 14:
        if (c.spacing !== undefined && c.spacing !== 1 && c.spacing !== 2) out.push(`${where}: separator spacing ${c.spacing}`);
        return;
      case 17: {
        if (inContainer) out.push(`${where}: a container cannot hold a container`);
        const children = Array.isArray(c.components) ? c.components : [];
        if (children.length < 1 || children.length > MAX_CONTAINER_CHILDREN)
          out.push(`${where}: a container holds 1-${MAX_CONTAINER_CHILDREN} components`);
        if (c.accent_color != null && (!Number.isInteger(c.accent_color) || c.accent_color < 0 || c.accent_color > 0xffffff))
          out.push(`${where}: accent_color ${c.accent_color}`);
        children.forEach((x: any, i: number) => {
          if (!IN_CONTAINER.has(x?.type)) out.push(`${where}.components[${i}]: type ${x?.type} cannot go in a container`);
          walk(x, `${where}.components[${i}]`, true);
        });
        return;
      }
      default:
        out.push(`${where}: unknown component type ${c?.type}`);
    }
  };
  components.forEach((c: any, i: number) => {
    if (!TOP_LEVEL_V2.has(c?.type)) out.push(`components[${i}]: type ${c?.type} cannot be at the top level`);
    walk(c, `components[${i}]`, false);
  });
  if (count > MAX_COMPONENTS) out.push(`components: ${count} in all, over ${MAX_COMPONENTS}`);
  if (text > MAX_TEXT) out.push(`components: ${text} characters of text displays, over ${MAX_TEXT}`);
  return out;
}

/** The names of a request's files: its multipart parts and the `attachments` it describes. */
export function requestFileNames(body: any, parts: Array<{ name: string }> | undefined): string[] {
  const described = Array.isArray(body?.attachments) ? body.attachments.map((a: any) => String(a?.filename ?? '')) : [];
  return [...described, ...(parts ?? []).map((p) => p.name)].filter(Boolean);
}
