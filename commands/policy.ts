/**
 * `policy set|list|limits`: what needs a second person (approvals) and how much one person may
 * spend a day (limits). The environment gives the starting rules (APPROVAL_POLICY, SPEND_LIMITS);
 * `policy set` changes them at run time, stored and audited.
 */
import { z } from 'zod';
import { defineCommand } from './define-command.js';
import { type Actor } from '../src/vocabulary/index.js';
import { type AnyCommand } from '../src/engine/index.js';
import { msg } from '../src/vocabulary/index.js';
import { UserError } from '../src/vocabulary/index.js';
import { actionName, limitSubject, parseApprovalRule } from '../src/access/index.js';
import { amountText, readUnitAmount, type UnitAmount } from '../src/vocabulary/index.js';
import { toPrincipal } from './access.js';

/** The one reading of a typed amount, as a refusal the user can act on. */
function typedAmount(text: string): UnitAmount {
  try {
    return readUnitAmount(text);
  } catch (e) {
    throw new UserError(
      'invalid_arguments',
      (e as Error).message,
      'Write the amount with its unit, e.g. amount=100k sats, amount=0.5 BTC or amount=100 USDT.',
    );
  }
}

function asRule<T>(build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError('invalid_arguments', (e as Error).message);
  }
}

const set = defineCommand({
  path: 'policy set',
  summary: 'Change what needs a second person’s approval, or a daily spend limit',
  example: '/rln policy set approval pay.send amount=100k sats',
  args: z.object({
    kind: z
      .enum(['approval', 'limit'], { error: () => 'approval (what needs a second person) or limit (a daily spend limit)' })
      .describe('approval or limit'),
    subject: z
      .string()
      .min(1)
      .describe('approval: the command with dots (pay.send); limit: a role (operate) or who (slack:U123, a mention)'),
    amount: z
      .string()
      .min(1)
      .meta({ amount: 'unit' })
      .optional()
      .describe('Approve above it (none: always), or the daily limit: 100k sats, 0.5 BTC, 100 USDT, 1000 *'),
    off: z.stringbool().default(false).describe('Remove this rule (also one from the environment)'),
  }),
  positional: ['kind', 'subject', 'amount'],
  role: 'admin',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { policy } = ctx.services;
    const { kind, subject, amount, off } = ctx.args;
    if (kind === 'approval') {
      const rule = asRule(() => ({ ...parseApprovalRule(actionName(subject)), ...(amount ? { over: typedAmount(amount) } : {}) }));
      await policy.setApproval(rule, off, ctx.actor);
      const what = `${rule.action}${rule.over ? ` above ${amountText(rule.over)}` : ''}`;
      return {
        header: off ? 'Approval rule removed' : 'Approval rule set',
        tone: 'success',
        blocks: [
          msg.text(off ? `${what} no longer needs a second person.` : `${what} now needs a second person's approval.`),
          msg.context('`/rln policy list` shows every rule.'),
        ],
      };
    }
    if (!amount) {
      throw new UserError(
        'invalid_arguments',
        'A limit needs an amount per day.',
        'For example: /rln policy set limit operate amount="500k sats"',
      );
    }
    const who = asRule(() => limitSubject(toPrincipal(subject, ctx.actor)));
    const perDay = typedAmount(amount);
    await policy.setLimit({ who, perDay }, off, ctx.actor);
    return {
      header: off ? 'Spend limit removed' : 'Spend limit set',
      tone: 'success',
      blocks: [
        msg.text(
          off ? `${who} no longer has a daily limit of ${amountText(perDay)}.` : `${who} may spend at most ${amountText(perDay)} a day.`,
        ),
        msg.context(`Days start at 00:00 ${policy.tz}. \`/rln policy limits\` shows the limits and today's use.`),
      ],
    };
  },
});

const list = defineCommand({
  path: 'policy list',
  summary: 'Show what needs a second person’s approval, and the spend limits',
  role: 'read',
  async handler(ctx) {
    const { policy } = ctx.services;
    const approvals = await policy.approvalRules();
    const limits = await policy.limitRules();
    return {
      header: 'Policy',
      tone: 'info',
      blocks: [
        approvals.length
          ? msg.table({
              columns: msg.columns('Needs a second person', 'Above', 'From'),
              rows: approvals.map((r) => [
                r.action,
                r.over ? amountText(r.over) : 'always',
                r.setBy ? `${r.source} (${r.setBy})` : r.source,
              ]),
            })
          : msg.text('Nothing needs a second person.'),
        limits.length
          ? msg.table({
              columns: msg.columns('Who', 'At most per day', 'From'),
              rows: limits.map((r) => [r.who, amountText(r.perDay), r.setBy ? `${r.source} (${r.setBy})` : r.source]),
            })
          : msg.text('No spend limits.'),
        msg.context(
          `Requests expire after ${Math.round(policy.approvalTtlMs / 60_000)} min. Limits reset at 00:00 ${policy.tz}. ` +
            'Admins change rules with /rln policy set.',
        ),
      ],
    };
  },
});

/** `slack:U1` as the actor it names (for an admin looking at someone else's limits). */
function actorOf(principal: string): Actor {
  const i = principal.indexOf(':');
  return { platform: principal.slice(0, i) as Actor['platform'], userId: principal.slice(i + 1) };
}

const limits = defineCommand({
  path: 'policy limits',
  summary: 'Show your daily spend limits and what is left today (or someone’s, for an admin)',
  example: '/rln policy limits',
  args: z.object({ who: z.string().min(1).optional().describe('Whose limits (admins): slack:U123 or a mention') }),
  positional: ['who'],
  role: 'read',
  async handler(ctx) {
    const { policy, access } = ctx.services;
    let actor = ctx.actor;
    if (ctx.args.who) {
      const principal = toPrincipal(ctx.args.who, ctx.actor);
      if (!/^(slack|discord|shell):[^\s:]+$/.test(principal)) {
        throw new UserError('invalid_arguments', 'Name one person: slack:U123, discord:123456 or a mention.');
      }
      if (principal !== `${ctx.actor.platform}:${ctx.actor.userId}` && !(await access.has(ctx.actor, 'admin'))) {
        throw new UserError('forbidden', "Only admins see someone else's limits.", 'Run `/rln policy limits` for your own.');
      }
      actor = actorOf(principal);
    }
    const rows = await policy.usage(actor);
    const who = `${actor.platform}:${actor.userId}`;
    if (!rows.length) {
      return {
        header: `Spend limits: ${who}`,
        tone: 'neutral',
        blocks: [msg.text('No spend limits apply, and nothing was spent today.')],
      };
    }
    const u = (unit: string, n: number) => amountText({ unit, amount: n });
    return {
      header: `Spend limits: ${who}`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: msg.columns('Unit', 'Per day', msg.right('Spent today', 'Left'), 'Set for'),
          rows: rows.map((r) => [
            r.unit,
            r.limit ? u(r.unit, r.limit.perDay) : 'no limit',
            u(r.unit, r.spent),
            r.limit ? u(r.unit, Math.max(0, r.limit.perDay - r.spent)) : '—',
            r.limit?.from ?? '',
          ]),
        }),
        msg.context(`Approved sends count against the requester. Limits reset at ${policy.resetText()}.`),
      ],
    };
  },
});

export const policyCommands: AnyCommand[] = [set, list, limits];
