/**
 * The one `/rln` chat-input command, derived from the registry: a subcommand group per command
 * group (node, wallet, ...) with a subcommand per action and a `help` subcommand, plus top-level
 * subcommands for single-word paths (`audit`, `help`). Options come from `registry.argSpecs(def)`,
 * required first; the node option autocompletes. Discord's limits are checked and exceeding one
 * throws, except descriptions, which are shortened visibly (…) when the command's combined
 * length would pass DISCORD_MAX_COMMAND_TOTAL_CHARS.
 */
import type { CommandDefinition } from '../../core/types.js';
import type { Registry } from '../../core/registry.js';
import type { ArgSpec } from '../../core/arg-specs.js';
import {
  DISCORD_COMMAND_NAME_PATTERN,
  DISCORD_MAX_CHOICES,
  DISCORD_MAX_CHOICE_NAME,
  DISCORD_MAX_CHOICE_VALUE,
  DISCORD_MAX_COMMAND_DESCRIPTION,
  DISCORD_MAX_COMMAND_TOTAL_CHARS,
  DISCORD_MAX_OPTIONS,
  DISCORD_MAX_SUBCOMMANDS,
  DISCORD_MAX_SUBCOMMAND_GROUPS,
  clip,
  clipWords,
} from './limits.js';

export const ROOT_COMMAND = 'rln';
/** Discord's application integration type for a server install, and the interaction contexts. */
const GUILD_INSTALL = 0;
const CONTEXT_GUILD = 0;
const CONTEXT_BOT_DM = 1;

/** The part of the core registry the Discord adapter uses. */
export type CommandRegistryLike = Pick<Registry, 'all' | 'argSpecs' | 'nodeArg'>;
export type { ArgSpec };

export function listCommands(registry: CommandRegistryLike): CommandDefinition<any>[] {
  return registry.all();
}

export const OPTION_TYPE = { SUB_COMMAND: 1, SUB_COMMAND_GROUP: 2, STRING: 3, BOOLEAN: 5, NUMBER: 10 } as const;

export interface CommandOptionData {
  type: number;
  name: string;
  description: string;
  required?: boolean;
  autocomplete?: boolean;
  choices?: Array<{ name: string; value: string }>;
  options?: CommandOptionData[];
}

export interface ChatInputCommandData {
  type: 1;
  name: string;
  description: string;
  /** 0: installed to a server only (never as a user app answering in servers that did not add the bot). */
  integration_types: number[];
  /** 0: in servers, 1: in the bot's direct messages. */
  contexts: number[];
  options: CommandOptionData[];
}

/** How a Discord subcommand and its option names map back to the registry's path and arg names. */
export interface CommandIndex {
  /** key: `group action` or `action` as Discord delivers it. */
  paths: Map<string, { path: string; options: Map<string, string> }>;
  /** The help command's first argument name, for `/rln <group> help`. */
  helpArg?: string;
  /** Option names that autocomplete node names. */
  nodeOptions: Set<string>;
}

/** `assetId` → `asset_id`; Discord option names must be lowercase. */
export function toOptionName(argName: string): string {
  return argName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function checkName(name: string, what: string): string {
  if (!DISCORD_COMMAND_NAME_PATTERN.test(name) || name !== name.toLowerCase()) {
    throw new Error(`Discord ${what} name "${name}" must be 1-32 lowercase letters, digits, - or _`);
  }
  return name;
}

function description(text: string | undefined, fallback: string): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim();
  return clip(t || fallback, DISCORD_MAX_COMMAND_DESCRIPTION);
}

function optionsOf(def: CommandDefinition<any>, specs: ArgSpec[], nodeArg: string | undefined, index: CommandIndex): { options: CommandOptionData[]; map: Map<string, string> } {
  if (specs.length > DISCORD_MAX_OPTIONS) {
    throw new Error(`command "${def.path}" has ${specs.length} arguments; a Discord subcommand allows ${DISCORD_MAX_OPTIONS}`);
  }
  const map = new Map<string, string>();
  const ordered = [...specs.filter((s) => s.required), ...specs.filter((s) => !s.required)];
  const options = ordered.map((s): CommandOptionData => {
    const name = checkName(toOptionName(s.name), `option (${def.path} ${s.name})`);
    if (map.has(name)) throw new Error(`command "${def.path}" has two arguments named "${name}" on Discord`);
    map.set(name, s.name);
    const o: CommandOptionData = {
      type: s.kind === 'number' ? OPTION_TYPE.NUMBER : s.kind === 'boolean' ? OPTION_TYPE.BOOLEAN : OPTION_TYPE.STRING,
      name,
      description: description(s.description, s.name),
      required: s.required,
    };
    if (s.name === nodeArg) {
      o.autocomplete = true;
      index.nodeOptions.add(name);
    } else if (s.kind === 'enum' && s.choices?.length) {
      if (s.choices.length <= DISCORD_MAX_CHOICES && s.choices.every((c) => c.length <= DISCORD_MAX_CHOICE_VALUE)) {
        o.choices = s.choices.map((c) => ({ name: clip(c, DISCORD_MAX_CHOICE_NAME), value: c }));
      } else {
        // Too many for Discord's choice list, or a value it cannot hold: a free string, and the dispatcher validates it.
        o.description = description(`${o.description} (one of ${s.choices.length} values; see help)`, s.name);
      }
    }
    return o;
  });
  return { options, map };
}

function totalChars(o: { name: string; description: string; options?: CommandOptionData[]; choices?: Array<{ name: string; value: string }> }): number {
  return (
    o.name.length +
    o.description.length +
    (o.choices ?? []).reduce((a, c) => a + c.name.length + c.value.length, 0) +
    (o.options ?? []).reduce((a, c) => a + totalChars(c), 0)
  );
}

/** Shortens subcommand descriptions to `subCap` and option descriptions to `optCap` (visibly, with …). */
function capDescriptions(options: CommandOptionData[], subCap: number, optCap: number): CommandOptionData[] {
  return options.map((o) => {
    const cap = o.type === OPTION_TYPE.SUB_COMMAND_GROUP ? DISCORD_MAX_COMMAND_DESCRIPTION : o.type === OPTION_TYPE.SUB_COMMAND ? subCap : optCap;
    return { ...o, description: clipWords(o.description, cap), ...(o.options ? { options: capDescriptions(o.options, subCap, optCap) } : {}) };
  });
}

/** The largest cap in [lo, hi] for which `fits(cap)`, or undefined. */
function largest(lo: number, hi: number, fits: (cap: number) => boolean): number | undefined {
  if (!fits(lo)) return undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The `/rln` command (PUT body element) and the index that maps interactions back to paths. */
export function buildCommandIndexAndData(registry: CommandRegistryLike): { data: ChatInputCommandData; index: CommandIndex } {
  const defs = listCommands(registry);
  const index: CommandIndex = { paths: new Map(), nodeOptions: new Set() };
  const groups = new Map<string, CommandOptionData[]>();
  const top: CommandOptionData[] = [];
  for (const def of defs) {
    const words = def.path.trim().split(/\s+/);
    if (words.length > 2) throw new Error(`command path "${def.path}" is deeper than Discord's group/subcommand`);
    const specs = registry.argSpecs(def);
    const { options, map } = optionsOf(def, specs, registry.nodeArg(def), index);
    const action = checkName(words[words.length - 1], `subcommand (${def.path})`);
    const sub: CommandOptionData = { type: OPTION_TYPE.SUB_COMMAND, name: action, description: description(def.summary, def.path), options };
    index.paths.set(words.join(' '), { path: def.path, options: map });
    if (words.length === 1) {
      top.push(sub);
      if (action === 'help') index.helpArg = specs[0]?.name;
    } else {
      const group = checkName(words[0], 'subcommand group');
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group)!.push(sub);
    }
  }
  const groupOptions: CommandOptionData[] = [];
  for (const [group, subs] of groups) {
    if (!subs.some((s) => s.name === 'help')) {
      subs.push({ type: OPTION_TYPE.SUB_COMMAND, name: 'help', description: description(`Describe the ${group} commands`, group), options: [] });
    }
    if (subs.length > DISCORD_MAX_SUBCOMMANDS) {
      throw new Error(`group "${group}" has ${subs.length} subcommands; Discord allows ${DISCORD_MAX_SUBCOMMANDS} per group`);
    }
    groupOptions.push({
      type: OPTION_TYPE.SUB_COMMAND_GROUP,
      name: group,
      // Short: Discord's picker shows each subcommand's own description, not the group's, and every
      // character here comes out of the 8000 the option descriptions need.
      description: description(`${group[0].toUpperCase()}${group.slice(1)} commands`, group),
      options: subs,
    });
  }
  const all = [...groupOptions, ...top];
  if (all.length > DISCORD_MAX_SUBCOMMAND_GROUPS) {
    throw new Error(`/rln has ${all.length} groups and top-level subcommands; Discord allows ${DISCORD_MAX_SUBCOMMAND_GROUPS}`);
  }
  const base = {
    type: 1 as const,
    name: ROOT_COMMAND,
    description: 'Manage RGB Lightning Nodes on the hosting service',
    integration_types: [GUILD_INSTALL],
    contexts: [CONTEXT_GUILD, CONTEXT_BOT_DM],
  };
  let data: ChatInputCommandData = { ...base, options: all };
  if (totalChars(data) > DISCORD_MAX_COMMAND_TOTAL_CHARS) {
    // Shorten descriptions visibly (…) to fit: option descriptions first (subcommand summaries are
    // what the picker shows), then subcommand summaries too.
    const fits = (subCap: number, optCap: number) =>
      totalChars({ ...base, options: capDescriptions(all, subCap, optCap) }) <= DISCORD_MAX_COMMAND_TOTAL_CHARS;
    const MIN_OPTION_CAP = 16;
    const optCap = largest(MIN_OPTION_CAP, DISCORD_MAX_COMMAND_DESCRIPTION, (c) => fits(DISCORD_MAX_COMMAND_DESCRIPTION, c));
    if (optCap !== undefined) {
      data = { ...base, options: capDescriptions(all, DISCORD_MAX_COMMAND_DESCRIPTION, optCap) };
    } else {
      const subCap = largest(MIN_OPTION_CAP, DISCORD_MAX_COMMAND_DESCRIPTION, (c) => fits(c, MIN_OPTION_CAP));
      const both = subCap ?? largest(1, MIN_OPTION_CAP, (c) => fits(c, c)) ?? 1;
      data = subCap !== undefined
        ? { ...base, options: capDescriptions(all, subCap, MIN_OPTION_CAP) }
        : { ...base, options: capDescriptions(all, both, both) };
    }
    if (totalChars(data) > DISCORD_MAX_COMMAND_TOTAL_CHARS) {
      throw new Error(`/rln is ${totalChars(data)} characters even with short descriptions; Discord allows ${DISCORD_MAX_COMMAND_TOTAL_CHARS}`);
    }
  }
  return { data, index };
}

/** The `/rln` chat-input command data, as PUT to Discord's application commands endpoint. */
export function buildCommandData(registry: CommandRegistryLike): ChatInputCommandData {
  return buildCommandIndexAndData(registry).data;
}

/** Combined length of names, descriptions and choices, as Discord counts it. */
export function commandTotalChars(data: ChatInputCommandData): number {
  return totalChars(data);
}
