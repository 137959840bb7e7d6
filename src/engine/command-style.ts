/**
 * How a platform writes a command, for help and usage lines: Slack and the terminal type
 * `/rln node stop alice force=true`; Discord has one command per group with named options,
 * `/rln-node stop node:alice force:true` (docs/ARCHITECTURE.md, "Command styles"). Chosen
 * by platform name only: no platform SDK here.
 */
import type { Platform } from '../vocabulary/index.js';

export interface CommandStyle {
  /** `node stop` → `/rln node stop` or `/rln-node stop`; `audit` → `/rln audit`. */
  command(path: string): string;
  /** An argument in a usage line: `<node>`, `[force=true|false]`; Discord `node:<node>`, `[force:true|false]`. */
  usageArg(name: string, value: string, opts: { required: boolean; positional: boolean }): string;
  /** An argument with its value, in an example: `alice` or `force=true`; Discord `node:alice`. */
  exampleArg(name: string, value: string, positional: boolean): string;
  /** The general form: `/rln <group> <action> [args]`. */
  general: string;
  /** How to ask for a group's help: `/rln node help`, `/rln-node help`. */
  groupHelp(group: string): string;
  /** Whether arguments are typed on one line as `key=value` (Slack, terminal) or are Discord's options. */
  typed: boolean;
}

/** `assetId` → `asset_id`: Discord option names are lowercase (as the Discord adapter names them). */
function optionName(argName: string): string {
  return argName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function quoted(value: string): string {
  return /\s/.test(value) && !/^["'`]/.test(value) ? `"${value}"` : value;
}

const TYPED: CommandStyle = {
  command: (path) => `/rln ${path}`,
  usageArg: (name, value, o) => {
    const body = o.positional ? (o.required ? `<${name}>` : name) : `${name}=${value}`;
    return o.required ? body : `[${body}]`;
  },
  exampleArg: (name, value, positional) => (positional ? quoted(value) : `${name}=${quoted(value)}`),
  general: '/rln <group> <action> [args]',
  groupHelp: (group) => `/rln ${group} help`,
  typed: true,
};

const DISCORD: CommandStyle = {
  command: (path) => {
    const words = path.trim().split(/\s+/);
    return words.length === 2 ? `/rln-${words[0]} ${words[1]}` : `/rln ${path}`;
  },
  usageArg: (name, value, o) => {
    const body = `${optionName(name)}:${o.positional ? `<${name}>` : value}`;
    return o.required ? body : `[${body}]`;
  },
  exampleArg: (name, value) => `${optionName(name)}:${value}`,
  general: '/rln-<group> <action> [options]',
  groupHelp: (group) => `/rln-${group} help`,
  typed: false,
};

export function commandStyle(platform: Platform | undefined): CommandStyle {
  return platform === 'discord' ? DISCORD : TYPED;
}
