/** Help text derived from the registry: never written by hand, so it cannot drift from the commands. */
import type { Message } from './message.js';
import { msg } from './message.js';
import type { Registry, AnyCommand } from './registry.js';
import type { ArgSpec } from './arg-specs.js';
import { UserError } from './errors.js';

/**
 * `/rln node stop <node> [force=…]`. With `compact`, more than two optional arguments are
 * summarised as `[+N options]` (the detail is in `help <group> <action>`).
 */
export function usageOf(registry: Registry, def: AnyCommand, opts: { compact?: boolean } = {}): string {
  const positional = registry.positional(def);
  const specs = registry.argSpecs(def);
  const parts = [`/rln ${def.path}`];
  for (const name of positional) {
    const spec = specs.find((s) => s.name === name);
    parts.push(spec && !spec.required ? `[${name}]` : `<${name}>`);
  }
  const rest = specs.filter((s) => !positional.includes(s.name));
  const optional = rest.filter((s) => !s.required);
  const valueOf = (s: ArgSpec) => (s.kind === 'enum' && s.choices ? s.choices.join('|') : '…');
  for (const s of rest) {
    if (s.required) parts.push(`${s.name}=${valueOf(s)}`);
    else if (!opts.compact || optional.length <= 2) parts.push(`[${s.name}=${valueOf(s)}]`);
  }
  if (opts.compact && optional.length > 2) parts.push(`[+${optional.length} options]`);
  return parts.join(' ');
}

/** One command in detail: usage, every argument, role, confirmation, example. */
export function renderCommandHelp(registry: Registry, def: AnyCommand): Message {
  const specs = registry.argSpecs(def);
  const confirm = def.confirm === 'button' ? 'a Confirm button' : def.confirm === 'typed-name' ? "typing the node's name in a dialog" : 'none';
  const blocks = [
    msg.text(def.summary),
    msg.code(usageOf(registry, def)),
    msg.fields([
      { label: 'Role', value: def.role, inline: true },
      { label: 'Confirmation', value: confirm, inline: true },
      ...(def.secrets?.length ? [{ label: 'Asked privately', value: def.secrets.map((f) => f.label).join(', ') }] : []),
    ]),
  ];
  if (specs.length) {
    blocks.push(
      msg.table({
        columns: [{ header: 'Argument' }, { header: 'Required' }, { header: 'Description' }],
        rows: specs.map((s) => [s.name, s.required ? 'yes' : 'no', `${s.description}${s.choices ? ` (${s.choices.join(', ')})` : ''}`]),
      }),
    );
  }
  blocks.push(msg.context(`Example: ${def.example}`));
  return { header: `/rln ${def.path}`, tone: 'info', blocks, summary: `Help for /rln ${def.path}` };
}

/** The help message: every group (no `group`), or one group's actions. */
export function renderHelp(registry: Registry, group?: string, action?: string): Message {
  const groups = registry.groups();
  if (group) {
    const g = groups.find((x) => x.group === group.toLowerCase());
    // `help audit`: a top-level action is described like one command.
    const top = !g && !action ? registry.topLevel().find((d) => d.path === group.toLowerCase()) : undefined;
    if (top) return renderCommandHelp(registry, top);
    if (!g) {
      // What was typed is not repeated (it could be a pasted secret): the registry's names are.
      throw new UserError('unknown_command', 'There is no command group like that.', `Groups: ${groups.map((x) => x.group).join(', ')}. Try \`/rln help\`.`);
    }
    if (action) {
      const def = registry.get(`${g.group} ${action}`);
      if (!def || def.path === `${g.group} help`) {
        const names = g.actions.filter((d) => d.path !== `${g.group} help`).map((d) => d.path.slice(g.group.length + 1));
        throw new UserError('unknown_command', `\`${g.group}\` has no such action.`, `Its actions: ${names.join(', ')}.`);
      }
      return renderCommandHelp(registry, def);
    }
    const actions = g.actions.filter((d) => d.path !== `${g.group} help`);
    return {
      header: `/rln ${g.group}: ${actions.length} commands`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: [{ header: 'Usage' }, { header: 'What it does' }, { header: 'Role' }],
          rows: actions.map((d) => [usageOf(registry, d, { compact: true }), d.summary, d.role]),
        }),
        msg.context('Examples:'),
        msg.code(actions.map((d) => d.example).join('\n')),
        msg.context(`Details of one command: /rln ${g.group} help <action>. Any argument may also be given as key=value; quote values with spaces: cron="0 9 * * *". Passwords are asked in a private dialog, never typed inline.`),
      ],
      summary: `Help for /rln ${g.group}`,
    };
  }
  const top = registry.topLevel().filter((d) => d.path !== 'help');
  return {
    header: 'rln-chatops commands',
    tone: 'info',
    blocks: [
      msg.text('Usage: /rln <group> <action> [args]. For node operations the first argument is the node name or id.'),
      msg.table({
        columns: [{ header: 'Group' }, { header: 'Actions' }],
        rows: [
          ...groups.map((g) => [
            g.group,
            g.actions.filter((d) => d.path !== `${g.group} help`).map((d) => d.path.slice(g.group.length + 1)).join(', '),
          ]),
          ...top.map((d) => [d.path, d.summary]),
        ],
      }),
      msg.context('Type /rln <group> help for a group\'s commands and examples, e.g. /rln node help.'),
    ],
    summary: 'rln-chatops help',
  };
}
