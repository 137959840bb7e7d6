/**
 * Raw interaction JSON (as Discord sends it, over HTTP or in INTERACTION_CREATE) to the
 * neutral ParsedInteraction. The option tree is walked the same way for discord.js objects.
 */
import type { Actor, Place } from '../../vocabulary/index.js';
import type { CommandIndex } from './build-command-data.js';
import type { ParsedInteraction } from './handle-interaction.js';
import { DISCORD_FLAG_IS_COMPONENTS_V2, INTERACTION } from './limits.js';
import { commandWords } from './build-command-data.js';

export interface RawOption {
  name: string;
  type: number;
  /** Discord sends a string, an integer/number or a boolean. */
  value?: string | number | boolean | null;
  focused?: boolean;
  options?: RawOption[];
}

export interface RawUser {
  id: string;
  username?: string;
  global_name?: string | null;
}

export interface RawInteraction {
  id: string;
  application_id: string;
  type: number;
  token: string;
  guild_id?: string;
  channel_id?: string;
  channel?: { id: string };
  member?: { user?: RawUser; roles?: string[]; nick?: string | null };
  user?: RawUser;
  /** The message a component was clicked on. */
  message?: { flags?: number };
  data?: {
    name?: string;
    options?: RawOption[];
    custom_id?: string;
    component_type?: number;
    components?: Array<{
      type: number;
      custom_id?: string;
      value?: string;
      component?: { custom_id?: string; value?: string };
      components?: Array<{ custom_id?: string; value?: string }>;
    }>;
  };
}

/** The subcommand path, its option values as strings, and the focused value (autocomplete). */
export function walkOptions(options: readonly RawOption[] | undefined): {
  words: string[];
  values: Record<string, string>;
  focused?: string;
} {
  const words: string[] = [];
  const values: Record<string, string> = {};
  let focused: string | undefined;
  let level = options ?? [];
  for (;;) {
    const nested = level.find((o) => o.type === 1 || o.type === 2);
    if (!nested) break;
    words.push(nested.name);
    level = nested.options ?? [];
  }
  for (const o of level) {
    if (o.value === undefined || o.value === null) continue;
    values[o.name] = String(o.value);
    if (o.focused) focused = String(o.value);
  }
  return { words, values, focused };
}

/** Maps a walked command to the registry path and argument names. */
export function toCommand(
  index: CommandIndex,
  words: string[],
  values: Record<string, string>,
): { path: string; args: Record<string, string> } {
  const key = words.join(' ');
  const entry = index.paths.get(key);
  if (!entry) {
    if (words.length === 2 && words[1] === 'help') {
      return { path: 'help', args: index.helpArg ? { [index.helpArg]: words[0] } : {} };
    }
    return { path: key, args: values };
  }
  const args: Record<string, string> = {};
  for (const [name, v] of Object.entries(values)) args[entry.options.get(name) ?? name] = v;
  return { path: entry.path, args };
}

export function actorOf(raw: Pick<RawInteraction, 'member' | 'user'>): Actor {
  const user = raw.member?.user ?? raw.user;
  const displayName = raw.member?.nick ?? user?.global_name ?? user?.username ?? undefined;
  return {
    platform: 'discord',
    userId: user?.id ?? 'unknown',
    ...(displayName ? { displayName } : {}),
    groups: raw.member?.roles ?? [],
  };
}

export function placeOf(raw: Pick<RawInteraction, 'channel_id' | 'channel' | 'guild_id'>): Place {
  return {
    platform: 'discord',
    channelId: raw.channel_id ?? raw.channel?.id ?? 'unknown',
    ...(raw.guild_id ? { workspaceId: raw.guild_id } : {}),
  };
}

export function modalValues(data: RawInteraction['data']): Record<string, string> {
  const values: Record<string, string> = {};
  for (const c of data?.components ?? []) {
    // Components v1: action rows of text inputs; newer modals: labels wrapping one component.
    for (const inner of [...(c.components ?? []), ...(c.component ? [c.component] : []), c]) {
      if (inner.custom_id && typeof inner.value === 'string') values[inner.custom_id] = inner.value;
    }
  }
  return values;
}

/** Undefined for PING and for interactions the bot does not handle (other commands, selects). */
export function parseRawInteraction(raw: RawInteraction, index: CommandIndex): ParsedInteraction | undefined {
  const actor = actorOf(raw);
  const place = placeOf(raw);
  switch (raw.type) {
    case INTERACTION.APPLICATION_COMMAND: {
      const { words, values } = walkOptions(raw.data?.options);
      // `/rln-node stop` and `/rln audit` map back to the registry's `node stop` and `audit`.
      const path = commandWords(raw.data?.name, words);
      if (!path) return undefined;
      return { kind: 'command', actor, place, ...toCommand(index, path, values) };
    }
    case INTERACTION.AUTOCOMPLETE: {
      const { focused } = walkOptions(raw.data?.options);
      return { kind: 'autocomplete', actor, focused: focused ?? '' };
    }
    case INTERACTION.MESSAGE_COMPONENT:
      if (!raw.data?.custom_id) return undefined;
      return {
        kind: 'button',
        actor,
        place,
        customId: raw.data.custom_id,
        ...((raw.message?.flags ?? 0) & DISCORD_FLAG_IS_COMPONENTS_V2 ? { onV2: true } : {}),
      };
    case INTERACTION.MODAL_SUBMIT:
      return raw.data?.custom_id ? { kind: 'modal', actor, place, customId: raw.data.custom_id, values: modalValues(raw.data) } : undefined;
    default:
      return undefined;
  }
}
