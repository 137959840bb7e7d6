/** Top-level actions: `audit [node]` (the latest changes) and `help` (derived from the registry). */
import { z } from 'zod';
import { defineCommand, type CommandDefinition } from '../src/core/types.js';
import { msg } from '../src/core/message.js';
import { renderHelp } from '../src/core/render-help.js';
import type { AuditEntry } from '../src/core/audit-log.js';
import { actorLabel } from '../src/core/actor-label.js';

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

const audit = defineCommand({
  path: 'audit',
  summary: 'Show the latest changes and refusals (optionally for one node)',
  example: '/rln audit alice',
  args: z.object({
    node: z.string().min(1).optional().describe("Only this node's changes (name or id)"),
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('How many (default 20)'),
  }),
  positional: ['node'],
  nodeArg: false,
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const entries = ctx.services.audit.latest({ node: ctx.args.node, limit: ctx.args.limit });
    const scope = ctx.args.node ? ` for ${ctx.args.node}` : '';
    if (!entries.length) {
      return { header: `Audit trail${scope}`, tone: 'neutral', blocks: [msg.text(`Nothing recorded yet${scope}.`)] };
    }
    return {
      header: `Audit trail${scope}: latest ${entries.length}`,
      tone: 'info',
      blocks: [
        msg.table({
          columns: [{ header: 'When (UTC)' }, { header: 'Who' }, { header: 'What' }, { header: 'Outcome' }, { header: 'Where' }],
          rows: entries.map((e) => [
            e.at.toISOString().slice(0, 19).replace('T', ' '),
            clip(actorLabel(e.actor), 40),
            describe(e),
            clip(e.reason ? `${OUTCOME_MARK[e.outcome]}: ${e.reason}` : OUTCOME_MARK[e.outcome], 80),
            `${e.place.platform}:${e.place.channelId}`,
          ]),
          caption: `newest first; secrets are never recorded${entries.length === ctx.args.limit ? `; limit=${ctx.args.limit}` : ''}`,
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
  nodeArg: false,
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    return renderHelp(ctx.services.commands, ctx.args.group, ctx.args.action);
  },
});

export const metaCommands: CommandDefinition<any>[] = [audit, help];
