/**
 * Independent checks of Discord's limits on what the bot sends: message payloads, modals and
 * the /rln command. Returns the problems found (empty when valid).
 */
import * as L from '../../../src/chat/discord/limits.js';
import { IS_COMPONENTS_V2, messagePayloadProblems } from '../../fakes/discord/message-payload.js';

/** `files`: the names of the files sent with it, which a V2 card may name (`attachment://`). */
export function messageProblems(p: any, files: string[] = []): string[] {
  const out: string[] = [];
  if (((p?.flags ?? 0) & IS_COMPONENTS_V2) !== 0) {
    if (!p?.allowed_mentions || !Array.isArray(p.allowed_mentions.parse) || p.allowed_mentions.parse.length)
      out.push('allowed_mentions.parse must be []');
    return [...out, ...messagePayloadProblems(p, { files })];
  }
  if (typeof p?.content === 'string' && p.content.length > L.DISCORD_MAX_CONTENT) out.push('content too long');
  if (!p?.allowed_mentions || !Array.isArray(p.allowed_mentions.parse) || p.allowed_mentions.parse.length)
    out.push('allowed_mentions.parse must be []');
  let total = 0;
  for (const e of p?.embeds ?? []) {
    if ((e.title ?? '').length > L.DISCORD_MAX_EMBED_TITLE) out.push('embed title too long');
    if ((e.description ?? '').length > L.DISCORD_MAX_EMBED_DESCRIPTION) out.push(`embed description ${e.description.length} > 4096`);
    if ((e.fields ?? []).length > L.DISCORD_MAX_EMBED_FIELDS) out.push('too many fields');
    for (const f of e.fields ?? []) {
      if (!f.name || f.name.length > L.DISCORD_MAX_FIELD_NAME) out.push(`field name length ${f.name?.length}`);
      if (!f.value || f.value.length > L.DISCORD_MAX_FIELD_VALUE) out.push(`field value length ${f.value?.length}`);
      total += f.name.length + f.value.length;
    }
    if ((e.footer?.text ?? '').length > L.DISCORD_MAX_FOOTER_TEXT) out.push('footer too long');
    if (typeof e.color !== 'number') out.push('embed without colour');
    total += (e.title ?? '').length + (e.description ?? '').length + (e.footer?.text ?? '').length;
  }
  if (total > L.DISCORD_MAX_EMBED_TOTAL) out.push(`embeds total ${total} > 6000`);
  const rows = p?.components ?? [];
  if (rows.length > L.DISCORD_MAX_ACTION_ROWS) out.push('too many action rows');
  for (const r of rows) {
    if (r.type !== 1) out.push('component outside an action row');
    if (r.components.length > L.DISCORD_MAX_BUTTONS_PER_ROW) out.push('too many buttons in a row');
    for (const b of r.components) {
      if (!b.custom_id || b.custom_id.length > L.DISCORD_MAX_CUSTOM_ID) out.push(`custom_id length ${b.custom_id?.length}`);
      if (!b.label || b.label.length > L.DISCORD_MAX_BUTTON_LABEL) out.push('button label length');
      if (![1, 2, 3, 4].includes(b.style)) out.push('button style');
    }
  }
  return out;
}

export function modalProblems(m: any): string[] {
  const out: string[] = [];
  if (!m.custom_id || m.custom_id.length > L.DISCORD_MAX_CUSTOM_ID) out.push('modal custom_id');
  if (!m.title || m.title.length > L.DISCORD_MAX_MODAL_TITLE) out.push(`modal title length ${m.title?.length}`);
  if (!m.components?.length || m.components.length > L.DISCORD_MAX_MODAL_COMPONENTS) out.push('modal component count');
  let display = 0;
  for (const c of m.components ?? []) {
    if (c.type === 1) out.push('deprecated: a text input in an action row (use a Label, type 18)');
    else if (c.type === 10) {
      if (!c.content) out.push('empty text display');
      display += (c.content ?? '').length;
    } else if (c.type === 18) {
      if (!c.label || c.label.length > L.DISCORD_MAX_LABEL) out.push(`label length ${c.label?.length}: ${c.label}`);
      if ((c.description ?? '').length > L.DISCORD_MAX_LABEL_DESCRIPTION) out.push('label description too long');
      const i = c.component;
      if (i?.type !== 4) out.push('label component is not a text input');
      if ('label' in (i ?? {})) out.push('a text input inside a Label must not have its own label');
      if (!i?.custom_id || i.custom_id.length > L.DISCORD_MAX_CUSTOM_ID) out.push('text input custom_id');
      if ((i?.placeholder ?? '').length > L.DISCORD_MAX_TEXT_INPUT_PLACEHOLDER) out.push('placeholder too long');
      if ((i?.value ?? '').length > L.DISCORD_MAX_TEXT_INPUT_VALUE) out.push('value too long');
    } else out.push(`unexpected modal component type ${c.type}`);
  }
  if (display > L.DISCORD_MAX_TEXT_DISPLAY) out.push('text display too long');
  return out;
}

/** The text inputs of a modal, in order (each inside its Label). */
export function modalInputs(m: any): any[] {
  return (m.components ?? []).filter((c: any) => c.type === 18).map((c: any) => c.component);
}

function optionProblems(o: any, where: string, out: string[], depth: number): number {
  if (!L.DISCORD_COMMAND_NAME_PATTERN.test(o.name) || o.name !== o.name.toLowerCase()) out.push(`${where}: bad name "${o.name}"`);
  if (!o.description || o.description.length > L.DISCORD_MAX_COMMAND_DESCRIPTION)
    out.push(`${where} ${o.name}: description length ${o.description?.length}`);
  let total = o.name.length + o.description.length;
  const opts = o.options ?? [];
  const max = o.type === 2 ? L.DISCORD_MAX_SUBCOMMANDS : L.DISCORD_MAX_OPTIONS;
  if (opts.length > max) out.push(`${where} ${o.name}: ${opts.length} options`);
  if ((o.choices ?? []).length > L.DISCORD_MAX_CHOICES) out.push(`${where} ${o.name}: too many choices`);
  if (o.autocomplete && o.choices) out.push(`${where} ${o.name}: autocomplete with choices`);
  for (const c of o.choices ?? []) total += c.name.length + String(c.value).length;
  const names = new Set<string>();
  let seenOptional = false;
  for (const c of opts) {
    if (names.has(c.name)) out.push(`${where} ${o.name}: duplicate ${c.name}`);
    names.add(c.name);
    if (c.type !== 1 && c.type !== 2) {
      if (!c.required) seenOptional = true;
      else if (seenOptional) out.push(`${where} ${o.name}: required option ${c.name} after an optional one`);
    }
    if (depth > 3) out.push('too deep');
    total += optionProblems(c, `${where} ${o.name}`, out, depth + 1);
  }
  return total;
}

export function commandProblems(cmd: any): string[] {
  const out: string[] = [];
  if (cmd.type !== 1) out.push('not a chat-input command');
  if ((cmd.options ?? []).length > L.DISCORD_MAX_SUBCOMMAND_GROUPS) out.push('too many groups');
  const total = optionProblems(cmd, '', out, 0);
  if (total > L.DISCORD_MAX_COMMAND_TOTAL_CHARS) out.push(`command total ${total} > ${L.DISCORD_MAX_COMMAND_TOTAL_CHARS}`);
  return out;
}
