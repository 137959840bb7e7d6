/**
 * Discord's chat-input commands, derived from the registry: one top-level command per command
 * group, named `rln-<group>` (`/rln-node stop`), with a subcommand per action and a `help`
 * subcommand, and `/rln` holding the single-word paths (`help`, `status`, `audit`). One command
 * per group leaves each its own 8,000 characters, so every description is sent whole (a
 * description over Discord's 100 characters, or a command over its total, is an error at
 * start-up, never a silent cut). Options come from `registry.argSpecs(def)`, required first;
 * the node option autocompletes. Slack keeps `/rln <group> <action>`; the index maps both
 * back to the same registry path.
 */
import type { AnyCommand } from '../../engine/index.js';
import type { Registry } from '../../engine/index.js';
import type { ArgSpec } from '../../engine/index.js';
import {
  DISCORD_COMMAND_NAME_PATTERN,
  DISCORD_MAX_CHOICES,
  DISCORD_MAX_CHOICE_NAME,
  DISCORD_MAX_CHOICE_VALUE,
  DISCORD_MAX_COMMAND_DESCRIPTION,
  DISCORD_MAX_COMMAND_TOTAL_CHARS,
  DISCORD_MAX_OPTIONS,
  DISCORD_MAX_COMMANDS,
  DISCORD_MAX_SUBCOMMANDS,
  clip,
} from './limits.js';

export const ROOT_COMMAND = 'rln';
/** `rln-node` for the `node` group. */
export const GROUP_COMMAND_PREFIX = `${ROOT_COMMAND}-`;

/**
 * The words of a command as the registry knows them, from the Discord command's name and the
 * subcommand words under it: `/rln-node stop` → `node stop`; `/rln audit` → `audit`. Undefined for
 * a command that is not ours.
 */
export function commandWords(commandName: string | undefined, words: string[]): string[] | undefined {
  if (commandName === ROOT_COMMAND) return words;
  if (commandName?.startsWith(GROUP_COMMAND_PREFIX) && commandName.length > GROUP_COMMAND_PREFIX.length) {
    return [commandName.slice(GROUP_COMMAND_PREFIX.length), ...words];
  }
  return undefined;
}
/** Discord's application integration type for a server install, and the interaction contexts. */
const GUILD_INSTALL = 0;
const CONTEXT_GUILD = 0;
const CONTEXT_BOT_DM = 1;

/** The part of the engine's registry the Discord adapter uses. */
export type CommandRegistryLike = Pick<Registry, 'all' | 'argSpecs' | 'nodeArg'>;
export type { ArgSpec };

export function listCommands(registry: CommandRegistryLike): AnyCommand[] {
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

/** A description as it is written: too long for Discord is an error to fix in the command's definition, never a cut. */
function description(text: string | undefined, fallback: string, where: string): string {
  const t = (text ?? '').replace(/\s+/g, ' ').trim() || fallback;
  if (t.length > DISCORD_MAX_COMMAND_DESCRIPTION) {
    throw new Error(
      `the Discord description of ${where} is ${t.length} characters; Discord allows ${DISCORD_MAX_COMMAND_DESCRIPTION}: shorten it`,
    );
  }
  return t;
}

function optionsOf(
  def: AnyCommand,
  specs: ArgSpec[],
  nodeArg: string | undefined,
  index: CommandIndex,
): { options: CommandOptionData[]; map: Map<string, string> } {
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
      description: description(s.description, s.name, `${def.path} ${s.name}`),
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
        const more = `${o.description} (one of ${s.choices.length} values; see help)`;
        if (more.length <= DISCORD_MAX_COMMAND_DESCRIPTION) o.description = more;
      }
    }
    return o;
  });
  return { options, map };
}

function totalChars(o: {
  name: string;
  description: string;
  options?: CommandOptionData[];
  choices?: Array<{ name: string; value: string }>;
}): number {
  return (
    o.name.length +
    o.description.length +
    (o.choices ?? []).reduce((a, c) => a + c.name.length + c.value.length, 0) +
    (o.options ?? []).reduce((a, c) => a + totalChars(c), 0)
  );
}

/** The commands (the PUT body) and the index that maps interactions back to registry paths. */
export function buildCommandIndexAndData(registry: CommandRegistryLike): { data: ChatInputCommandData[]; index: CommandIndex } {
  const defs = listCommands(registry);
  const index: CommandIndex = { paths: new Map(), nodeOptions: new Set() };
  const groups = new Map<string, CommandOptionData[]>();
  const top: CommandOptionData[] = [];
  for (const def of defs) {
    const words = def.path.trim().split(/\s+/);
    if (words.length > 2) throw new Error(`command path "${def.path}" is deeper than Discord's command/subcommand`);
    const specs = registry.argSpecs(def);
    const { options, map } = optionsOf(def, specs, registry.nodeArg(def), index);
    const action = checkName(words[words.length - 1], `subcommand (${def.path})`);
    const sub: CommandOptionData = {
      type: OPTION_TYPE.SUB_COMMAND,
      name: action,
      description: description(def.summary, def.path, def.path),
      options,
    };
    index.paths.set(words.join(' '), { path: def.path, options: map });
    if (words.length === 1) {
      top.push(sub);
      if (action === 'help') index.helpArg = specs[0]?.name;
    } else {
      const group = checkName(words[0], 'command group');
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group)!.push(sub);
    }
  }
  const base = {
    type: 1 as const,
    integration_types: [GUILD_INSTALL],
    contexts: [CONTEXT_GUILD, CONTEXT_BOT_DM],
  };
  const data: ChatInputCommandData[] = [];
  if (top.length) {
    data.push({ ...base, name: ROOT_COMMAND, description: 'RGB Lightning Nodes: help, status dashboard and audit trail', options: top });
  }
  for (const [group, subs] of groups) {
    if (!subs.some((s) => s.name === 'help')) {
      subs.push({ type: OPTION_TYPE.SUB_COMMAND, name: 'help', description: `Describe the ${group} commands`, options: [] });
    }
    if (subs.length > DISCORD_MAX_SUBCOMMANDS) {
      throw new Error(`group "${group}" has ${subs.length} subcommands; Discord allows ${DISCORD_MAX_SUBCOMMANDS} per command`);
    }
    const name = checkName(`${GROUP_COMMAND_PREFIX}${group}`, `command (${group})`);
    data.push({ ...base, name, description: description(`RGB Lightning Nodes: ${group} commands`, group, name), options: subs });
  }
  if (data.length > DISCORD_MAX_COMMANDS) {
    throw new Error(`${data.length} Discord commands; an application may register ${DISCORD_MAX_COMMANDS}`);
  }
  for (const c of data) {
    if (totalChars(c) > DISCORD_MAX_COMMAND_TOTAL_CHARS) {
      throw new Error(
        `/${c.name} is ${totalChars(c)} characters with whole descriptions; Discord allows ${DISCORD_MAX_COMMAND_TOTAL_CHARS}: split the group`,
      );
    }
  }
  return { data, index };
}

/** The chat-input commands, as PUT to Discord's application commands endpoint (replacing what was there). */
export function buildCommandData(registry: CommandRegistryLike): ChatInputCommandData[] {
  return buildCommandIndexAndData(registry).data;
}

/** Combined length of names, descriptions and choices, as Discord counts it. */
export function commandTotalChars(data: ChatInputCommandData): number {
  return totalChars(data);
}
