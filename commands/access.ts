/**
 * `access grant|revoke|link|unlink|list`: roles at run time, and one person's accounts tied together. Grants are stored and take effect at once;
 * roles from ADMIN_USERS / OPERATOR_USERS can only be changed in the configuration.
 */
import { z } from 'zod';
import { defineCommand, type CommandContext } from './define-command.js';
import type { Services } from './services.js';
import { type AnyCommand, type CommandDefinition } from '../src/engine/index.js';
import { type Actor } from '../src/vocabulary/index.js';
import { msg, type Message } from '../src/vocabulary/index.js';
import { UserError } from '../src/vocabulary/index.js';
import { roleNamed } from '../src/vocabulary/index.js';
import { scopeText } from '../src/access/index.js';
import { splitList } from './support/arg-types.js';

/** Accepts a principal, or a chat mention of a user, user group or role. */
export function toPrincipal(input: string, actor: Actor): string {
  const v = input.trim();
  let m = /^<@!?([A-Za-z0-9]+)(\|[^>]*)?>$/.exec(v);
  if (m) return `${actor.platform}:${m[1]}`;
  m = /^<!subteam\^([A-Za-z0-9]+)(\|[^>]*)?>$/.exec(v);
  if (m) return `slack-group:${m[1]}`;
  m = /^<@&(\d+)>$/.exec(v);
  if (m) return `discord-role:${m[1]}`;
  return v;
}

/** A channel as typed: its id, or a mention of it (`<#C123|general>` on Slack, `<#123>` on Discord). */
export function toChannelId(input: string): string {
  return /^<#([A-Za-z0-9]+)(\|[^>]*)?>$/.exec(input.trim())?.[1] ?? input.trim();
}

function roleError(input: unknown): string {
  const given = (typeof input === 'string' ? input : '').trim().slice(0, 30);
  return `there is no role "${given}": a role is one of read, operate, admin (reader and operator are accepted)`;
}

const principalArg = () =>
  z.string().min(1).describe('Who: slack:U123, discord:123456, slack-group:S123, discord-role:123456 (or a mention)');

const principalOnly = z.object({ principal: principalArg() });

/**
 * A change of who may do what, about the account or group `principal=` names: an admin makes it,
 * with no confirmation, and it takes effect at once. Its handler is given the principal as read
 * (`toPrincipal`); without `args` it takes the principal alone.
 */
function accessCommand<S extends z.ZodObject<z.ZodRawShape> = typeof principalOnly>(
  spec: Omit<CommandDefinition<S, Services>, 'args' | 'role' | 'confirm' | 'mutates' | 'handler'> & {
    args?: S;
    handler: (ctx: CommandContext<z.infer<S>>, principal: string) => Promise<Message>;
  },
): CommandDefinition<S, Services> {
  const { handler, ...def } = spec;
  return defineCommand<S>({
    ...def,
    args: spec.args ?? (principalOnly as unknown as S),
    role: 'admin',
    confirm: 'none',
    mutates: true,
    handler: (ctx) => handler(ctx, toPrincipal((ctx.args as { principal: string }).principal, ctx.actor)),
  });
}

const grant = accessCommand({
  path: 'access grant',
  summary: 'Give a user or group a role (read, operate, admin)',
  example: '/rln access grant slack:U0123ABCD operate',
  args: z.object({
    principal: principalArg(),
    // `reader` and `operator` (and the other words people use) are accepted for the role.
    role: z
      .preprocess(
        (v) => (typeof v === 'string' ? (roleNamed(v) ?? v) : v),
        z.enum(['read', 'operate', 'admin'], { error: (iss) => roleError(iss.input) }),
      )
      .describe('The role to give: read, operate or admin (reader, operator)'),
    nodes: z.string().min(1).optional().describe('Only on these nodes (names or ids, comma-separated)'),
    channels: z.string().min(1).optional().describe('Only in these channels (ids, comma-separated)'),
  }),
  // By default granting admin needs a second admin (APPROVAL_POLICY's access.grant): one admin
  // alone could otherwise make a second approver. Lesser roles are granted at once.
  approvalCovers: (args) => args.role === 'admin',
  async handler(ctx, principal) {
    const nodes = splitList(ctx.args.nodes);
    const channels = splitList(ctx.args.channels).map(toChannelId);
    const scope =
      nodes.length || channels.length ? { ...(nodes.length ? { nodes } : {}), ...(channels.length ? { channels } : {}) } : undefined;
    await ctx.services.access.grant(principal, ctx.args.role, ctx.actor, scope);
    const configured = ctx.services.access.configuredRole(principal);
    const where = scope ? ` on ${scopeText(scope)} only` : '';
    const blocks = [msg.text([{ code: principal }, ' now has the ', { bold: ctx.args.role }, ` role${where}. It takes effect at once.`])];
    if (configured && configured !== ctx.args.role) {
      blocks.push(msg.context(`The configuration also gives it ${configured}; the higher of the two applies.`));
    }
    return { header: `Role granted: ${ctx.args.role}`, tone: 'success', blocks };
  },
});

const revoke = accessCommand({
  path: 'access revoke',
  summary: 'Remove a role granted with access grant',
  example: '/rln access revoke slack:U0123ABCD',
  async handler(ctx, principal) {
    const removed = await ctx.services.access.revoke(principal);
    const configured = ctx.services.access.configuredRole(principal);
    if (!removed) {
      throw new UserError(
        'conflict',
        `${principal} has no role granted with \`access grant\`.`,
        configured
          ? `It has ${configured} from the configuration (ADMIN_USERS / OPERATOR_USERS): change it there.`
          : '`/rln access list` shows every role.',
      );
    }
    const blocks = [msg.text([{ code: principal }, ' no longer has its granted role. It takes effect at once.'])];
    if (configured) blocks.push(msg.context(`It still has ${configured} from the configuration (ADMIN_USERS / OPERATOR_USERS).`));
    return { header: 'Role revoked', tone: 'success', blocks };
  },
});

const link = accessCommand({
  path: 'access link',
  summary: "Tie one person's chat accounts together: neither approves the other's request",
  example: '/rln access link slack:U0123ABCD discord:123456789',
  args: z.object({ principal: principalArg(), other: principalArg().describe('Another account of the same person') }),
  async handler(ctx, a) {
    const b = toPrincipal(ctx.args.other, ctx.actor);
    if (a === b)
      throw new UserError(
        'invalid_arguments',
        'Give two different accounts of one person.',
        'Example: `/rln access link slack:U0123ABCD discord:123456789`.',
      );
    const all = await ctx.services.access.link([a, b], ctx.actor);
    return {
      header: 'Accounts linked',
      tone: 'success',
      blocks: [
        msg.text(`${all.join(', ')} are now one person: none of them approves a request another of them made.`),
        msg.context('Unlinking needs a second admin by default (`access unlink`).'),
      ],
    };
  },
});

const unlink = accessCommand({
  path: 'access unlink',
  summary: 'Untie an account from the other accounts of its person',
  example: '/rln access unlink discord:123456789',
  async handler(ctx, principal) {
    if (!(await ctx.services.access.unlink(principal)))
      throw new UserError('conflict', `${principal} is not linked to another account.`, '`/rln access list` shows the links.');
    return {
      header: 'Account unlinked',
      tone: 'success',
      blocks: [msg.text([{ code: principal }, ' is no longer tied to the other accounts of its person.'])],
    };
  },
});

const list = defineCommand({
  path: 'access list',
  summary: 'Show who has which role',
  role: 'read',
  async handler(ctx) {
    const entries = await ctx.services.access.list();
    const links = await ctx.services.access.links();
    return {
      header: 'Roles',
      tone: 'info',
      blocks: [
        msg.table({
          columns: msg.columns('Who', 'Role', 'Where', 'From', 'Granted by', 'When (UTC)'),
          rows: entries.map((e) => [
            e.principal,
            e.role,
            scopeText(e.scope),
            e.source,
            e.grantedBy ?? '',
            e.grantedAt ? e.grantedAt.slice(0, 16).replace('T', ' ') : '',
          ]),
        }),
        ...(links.length
          ? [msg.text(`One person, several accounts (\`access link\`): ${links.map((l) => l.principals.join(' = ')).join('; ')}.`)]
          : []),
        msg.context('Everyone else may read. Admins change roles with /rln access grant <who> <role> and /rln access revoke <who>.'),
      ],
    };
  },
});

export const accessCommands: AnyCommand[] = [grant, revoke, link, unlink, list];
