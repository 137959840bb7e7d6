/**
 * Top-level actions: `audit [node]` (the latest changes, with filters and a CSV export) and
 * `help` (derived from the registry). Who may read the audit trail is AUDIT_READ_ROLE (admin).
 */
import { z } from 'zod';
import { defineCommand, type CommandContext } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { msg, messageFile } from '../src/vocabulary/index.js';
import { renderHelp } from '../src/engine/index.js';
import type { AuditEntry } from '../src/access/index.js';
import { actorLabel } from '../src/vocabulary/index.js';
import { auditCsv, sinceOf } from './support/audit-filters.js';
import { toPrincipal } from './access.js';

const OUTCOME_MARK = { ok: '✅ ok', failed: '❌ failed', refused: '⛔ refused' } as const;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function describe(e: AuditEntry): string {
  const args = Object.entries(e.args)
    .filter(([k, v]) => !(e.node && v === e.node && k === 'node'))
    .map(([k, v]) => `${k}=${clip(v, 24)}`);
  return clip([e.path, e.node, ...args].filter(Boolean).join(' '), 60);
}

/**
 * Why a filter may have found nothing (P27): a node that does not exist (now), or a user given
 * without the platform that makes it a principal (`bob` for `shell:bob`).
 */
async function emptyHints(ctx: CommandContext<unknown>, node: string | undefined, user: string | undefined): Promise<string[]> {
  const hints: string[] = [];
  if (node !== undefined) {
    const nodes = await ctx.services.hosting.listNodes().catch(() => undefined);
    const want = node.trim().toLowerCase();
    if (nodes && !nodes.some((n) => n.name.toLowerCase() === want || n.nodeId.toLowerCase() === want)) {
      const names = nodes.map((n) => n.name).sort();
      hints.push(
        `There is no node \`${node}\`${names.length ? ` (the nodes: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''})` : ''}; a destroyed node's changes are found by its old name.`,
      );
    }
  }
  if (user !== undefined && !user.includes(':')) {
    hints.push(
      `\`${user}\` names no one: give a user with its platform, such as \`user=${ctx.actor.platform}:${user}\` (or slack:U123, discord:123456, a mention).`,
    );
  }
  return hints;
}

const audit = defineCommand({
  path: 'audit',
  summary: 'Show the audit trail, filtered by node=, user=, action=, outcome=, since=, or export it as CSV',
  example: '/rln audit alice action=pay.send since=7d',
  args: z.object({
    node: z.string().min(1).optional().describe("Only this node's changes (name or id)"),
    user: z.string().min(1).optional().describe('Only what this person did: slack:U123, discord:123456 or a mention'),
    action: z.string().min(1).optional().describe('Only this command, with dots: pay.send, node.destroy'),
    outcome: z.enum(['ok', 'failed', 'refused']).optional().describe('Only this outcome: ok, failed or refused'),
    since: z.string().min(1).optional().describe('Only this recent: 7d, 24h, 30m, or a date (2026-11-01)'),
    limit: z.coerce.number().int().min(1).max(1000).default(20).describe('How many (default 20; up to 1000 for csv)'),
    csv: z.stringbool().default(false).describe('Export the filtered trail as a CSV file (at least 100 rows, up to limit=)'),
  }),
  positional: ['node'],
  nodeArg: false,
  role: 'read',
  async handler(ctx) {
    const a = ctx.args;
    const filters = {
      node: a.node,
      user: a.user ? toPrincipal(a.user, ctx.actor) : undefined,
      action: a.action,
      outcome: a.outcome,
      since: a.since ? sinceOf(a.since, ctx.services.now()) : undefined,
    };
    const shown = Object.entries({ ...a, csv: undefined, limit: undefined })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${String(v)}`);
    const scope = shown.length ? ` (${shown.join(' ')})` : '';
    const limit = a.csv ? Math.max(a.limit, 100) : Math.min(a.limit, 100);
    const entries = await ctx.services.audit.query({ ...filters, limit });
    if (!entries.length) {
      const hints = await emptyHints(ctx, a.node, filters.user);
      return {
        header: `Audit trail${scope}`,
        tone: 'neutral',
        blocks: [msg.text(`Nothing recorded${scope}.`), ...(hints.length ? [msg.context(hints.join(' '))] : [])],
      };
    }
    if (a.csv) {
      // The whole filtered trail as a file: uploaded on Slack and Discord, written to a path by the terminal.
      const name = `audit-${new Date(ctx.services.now()).toISOString().slice(0, 10)}.csv`;
      const n = entries.length;
      const rows = `${n} row${n === 1 ? '' : 's'}`;
      return {
        header: `Audit trail CSV${scope}: ${rows}`,
        tone: 'info',
        blocks: [
          msg.text([`${rows}, oldest first, in `, { code: name }, shown.length ? `; filters: ${shown.join(' ')}.` : '; no filters.']),
          msg.context(
            'Secrets are never recorded; cells a spreadsheet would run as a formula are defused.' +
              (n === limit ? ` Only the newest ${limit}: raise limit= (up to 1000) or narrow the filters for more.` : ''),
          ),
        ],
        files: [
          messageFile({
            name,
            mime: 'text/csv',
            bytes: Buffer.from(`${auditCsv(entries)}\n`, 'utf8'),
            title: `Audit trail${scope}`,
            alt: `The audit trail as CSV: ${rows}${scope}`,
          }),
        ],
      };
    }
    return {
      header: `Audit trail${scope}: latest ${entries.length}`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: msg.columns('When (UTC)', 'Who', 'What', 'Outcome', 'Where'),
          rows: entries.map((e) => [
            e.at.toISOString().slice(0, 19).replace('T', ' '),
            clip(actorLabel(e.actor), 40),
            describe(e),
            clip(e.reason ? `${OUTCOME_MARK[e.outcome]}: ${e.reason}` : OUTCOME_MARK[e.outcome], 80),
            `${e.place.platform}:${e.place.channelId}`,
          ]),
          caption: `newest first; secrets are never recorded${entries.length === a.limit ? `; limit=${a.limit}` : ''}; csv=true exports`,
        }),
      ],
    };
  },
});

const help = defineCommand({
  path: 'help',
  summary: 'Describe the commands (help <group> [action] for details)',
  example: '/rln help node',
  args: z.object({
    group: z.string().min(1).optional().describe('A command group, e.g. node'),
    action: z.string().min(1).optional().describe('One action of the group, for its details'),
  }),
  positional: ['group', 'action'],
  role: 'read',
  async handler(ctx) {
    return renderHelp(ctx.services.commands, ctx.args.group, ctx.args.action, ctx.place.platform);
  },
});

export const metaCommands: AnyCommand[] = [audit, help];
