/** Help text derived from the registry: never written by hand, so it cannot drift from the commands. */
import type { Message } from '../vocabulary/index.js';
import { msg } from '../vocabulary/index.js';
import type { Registry, AnyCommand } from './types.js';
import type { ArgSpec } from './arg-specs.js';
import { UserError } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';
import { commandStyle } from './command-style.js';
import { parseCommandLine } from './parse-command-line.js';

/** The options of help and usage lines: which platform asks (its way of writing a command). */
export interface HelpOptions {
  compact?: boolean;
  platform?: Platform;
}

/**
 * `/rln node stop <node> [force=…]` (Discord: `/rln-node stop node:<node> [force:…]`). With
 * `compact`, more than two optional arguments are summarised as `[+N options]` (the detail is in
 * `help <group> <action>`).
 */
export function usageOf(registry: Registry, def: AnyCommand, opts: HelpOptions = {}): string {
  const style = commandStyle(opts.platform);
  const positional = registry.positional(def);
  const specs = registry.argSpecs(def);
  const parts = [style.command(def.path)];
  for (const name of positional) {
    const spec = specs.find((s) => s.name === name);
    parts.push(style.usageArg(name, '…', { required: !spec || spec.required, positional: true }));
  }
  const rest = specs.filter((s) => !positional.includes(s.name));
  const optional = rest.filter((s) => !s.required);
  const valueOf = (s: ArgSpec) => (s.kind === 'enum' && s.choices ? s.choices.join('|') : '…');
  for (const s of rest) {
    if (s.required || !opts.compact || optional.length <= 2)
      parts.push(style.usageArg(s.name, valueOf(s), { required: s.required, positional: false }));
  }
  if (opts.compact && optional.length > 2) parts.push(`[+${optional.length} options]`);
  return parts.join(' ');
}

/**
 * The command's example as the platform writes it: as defined (`/rln node stop alice`) on Slack
 * and the terminal; on Discord read back through the registry and written with its command and
 * option names (`/rln-node stop node:alice`).
 */
export function exampleOf(registry: Registry, def: AnyCommand, platform?: Platform): string {
  const style = commandStyle(platform);
  if (style.typed) return def.example;
  try {
    const parsed = parseCommandLine(def.example, registry);
    const positional = registry.positional(registry.get(parsed.path) ?? def);
    // The positional values first, in their order (as they were written), then the named ones.
    const rank = (k: string) => (positional.includes(k) ? positional.indexOf(k) : positional.length);
    const entries = Object.entries(parsed.args).sort(([a], [b]) => rank(a) - rank(b));
    const args = entries.map(([k, v]) => style.exampleArg(k, v, positional.includes(k)));
    return [style.command(parsed.path), ...args].join(' ');
  } catch {
    // An example that is not a command line (a button's description): its words, in Discord's command name.
    return def.example.replace(/^\/rln ([a-z][\w-]*) ([a-z][\w-]*)/, (_m, g: string, a: string) =>
      registry.get(`${g} ${a}`) ? style.command(`${g} ${a}`) : _m,
    );
  }
}

/** One command in detail: usage, every argument, role, confirmation, example. */
export function renderCommandHelp(registry: Registry, def: AnyCommand, platform?: Platform): Message {
  const style = commandStyle(platform);
  const specs = registry.argSpecs(def);
  const confirm =
    def.confirm === 'button' ? 'a Confirm button' : def.confirm === 'typed-name' ? "typing the node's name in a dialog" : 'none';
  const blocks = [
    msg.text(def.summary),
    msg.code(usageOf(registry, def, { platform })),
    msg.fields([
      { label: 'Role', value: registry.roleOf(def), inline: true },
      { label: 'Confirmation', value: confirm, inline: true },
      ...(def.secrets?.length ? [{ label: 'Asked privately', value: def.secrets.map((f) => f.label).join(', ') }] : []),
    ]),
  ];
  if (specs.length) {
    blocks.push(
      msg.table({
        columns: msg.columns('Argument', 'Required', 'Description'),
        rows: specs.map((s) => [s.name, s.required ? 'yes' : 'no', `${s.description}${s.choices ? ` (${s.choices.join(', ')})` : ''}`]),
      }),
    );
  }
  blocks.push(msg.context(`Example: ${exampleOf(registry, def, platform)}`));
  return { header: style.command(def.path), tone: 'info', blocks, summary: `Help for ${style.command(def.path)}` };
}

/** The help message: every group (no `group`), or one group's actions. */
export function renderHelp(registry: Registry, group?: string, action?: string, platform?: Platform): Message {
  const style = commandStyle(platform);
  const groups = registry.groups();
  if (group) {
    const g = groups.find((x) => x.group === group.toLowerCase());
    // `help audit`: a top-level action is described like one command.
    const top = !g && !action ? registry.topLevel().find((d) => d.path === group.toLowerCase()) : undefined;
    if (top) return renderCommandHelp(registry, top, platform);
    if (!g) {
      // What was typed is not repeated (it could be a pasted secret): the registry's names are.
      throw new UserError(
        'unknown_command',
        'There is no command group like that.',
        `Groups: ${groups.map((x) => x.group).join(', ')}. Try \`/rln help\`.`,
      );
    }
    if (action) {
      const def = registry.get(`${g.group} ${action}`);
      if (!def || def.path === `${g.group} help`) {
        const names = g.actions.filter((d) => d.path !== `${g.group} help`).map((d) => d.path.slice(g.group.length + 1));
        throw new UserError('unknown_command', `\`${g.group}\` has no such action.`, `Its actions: ${names.join(', ')}.`);
      }
      return renderCommandHelp(registry, def, platform);
    }
    const actions = g.actions.filter((d) => d.path !== `${g.group} help`);
    return {
      header: `${style.groupHelp(g.group).replace(/ help$/, '')}: ${actions.length} commands`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: msg.columns('Usage', 'What it does', 'Role'),
          rows: actions.map((d) => [usageOf(registry, d, { compact: true, platform }), d.summary, registry.roleOf(d)]),
        }),
        msg.context('Examples:'),
        msg.code(actions.map((d) => exampleOf(registry, d, platform)).join('\n')),
        msg.context(
          style.typed
            ? `Details of one command: ${style.groupHelp(g.group)} <action>. Any argument may also be given as key=value; quote values with spaces: cron="0 9 * * *". Passwords are asked in a private dialog, never typed inline.`
            : `Details of one command: ${style.groupHelp(g.group)} action:<action>. Passwords are asked in a private dialog, never typed as an option.`,
        ),
      ],
      summary: `Help for ${style.groupHelp(g.group).replace(/ help$/, '')}`,
    };
  }
  const top = registry.topLevel().filter((d) => d.path !== 'help');
  return {
    header: 'rln-chatops commands',
    tone: 'info',
    blocks: [
      msg.text(`Usage: ${style.general}. For node operations the first argument is the node name or id.`),
      msg.table({
        columns: msg.columns('Group', 'Actions'),
        rows: [
          ...groups.map((g) => [
            g.group,
            g.actions
              .filter((d) => d.path !== `${g.group} help`)
              .map((d) => d.path.slice(g.group.length + 1))
              .join(', '),
          ]),
          ...top.map((d) => [d.path, d.summary]),
        ],
      }),
      msg.context(`Type ${style.groupHelp('<group>')} for a group's commands and examples, e.g. ${style.groupHelp('node')}.`),
    ],
    summary: 'rln-chatops help',
  };
}
