/** Help text derived from the registry: never written by hand, so it cannot drift from the commands. */
import type { Message } from './message.js';
import { msg } from './message.js';
import type { Registry, AnyCommand } from './registry.js';
import { UserError } from './errors.js';

/** `/rln node stop <node> [force=…]` */
export function usageOf(registry: Registry, def: AnyCommand): string {
  const positional = registry.positional(def);
  const specs = registry.argSpecs(def);
  const parts = [`/rln ${def.path}`];
  for (const name of positional) {
    const spec = specs.find((s) => s.name === name);
    parts.push(spec && !spec.required ? `[${name}]` : `<${name}>`);
  }
  for (const s of specs) {
    if (positional.includes(s.name)) continue;
    const value = s.kind === 'enum' && s.choices ? s.choices.join('|') : '…';
    parts.push(s.required ? `${s.name}=${value}` : `[${s.name}=${value}]`);
  }
  return parts.join(' ');
}

/** The help message: every group (no `group`), or one group's actions. */
export function renderHelp(registry: Registry, group?: string): Message {
  const groups = registry.groups();
  if (group) {
    const g = groups.find((x) => x.group === group.toLowerCase());
    if (!g) {
      throw new UserError('unknown_command', `There is no command group \`${group}\`.`, `Groups: ${groups.map((x) => x.group).join(', ')}. Try \`/rln help\`.`);
    }
    const actions = g.actions.filter((d) => d.path !== `${g.group} help`);
    return {
      header: `/rln ${g.group}: ${actions.length} commands`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: [{ header: 'Usage' }, { header: 'What it does' }, { header: 'Role' }],
          rows: actions.map((d) => [usageOf(registry, d), d.summary, d.role]),
        }),
        msg.context('Examples:'),
        msg.code(actions.map((d) => d.example).join('\n')),
        msg.context('Any argument may also be given as key=value; quote values with spaces: cron="0 9 * * *". Passwords are asked in a private dialog, never typed inline.'),
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
