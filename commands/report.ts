/** `report …`: balance and channel reports now, and their schedules for this channel. */
import { z } from 'zod';
import { msg, type Message } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { describeCron, type ScheduleInfo } from '../src/reports/index.js';
import { formatTime } from './support/present.js';
import { progressAfter } from './support/progress-after.js';
import { readableOf, withScopeNote } from './support/readable-nodes.js';

const isAll = (node: string) => node.trim().toLowerCase() === 'all';
const target = () => z.string().trim().min(1).describe('Node name or id, or all');
const unit = () => z.enum(['sat', 'btc']).default('sat').describe('Show BTC amounts in sats (default) or BTC');
const days = () => z.enum(['7', '30', '0']).default('7').describe('Days of history in the chart: 7 (default) or 30; 0 for no chart');
const chartDays = (d: '7' | '30' | '0') => Number(d) as 0 | 7 | 30;

/** `report balance` and `report channels`: the report now, for a node or all of them. */
const reportNow = (kind: 'balance' | 'channels', summary: string, example: string) =>
  defineCommand({
    path: `report ${kind}`,
    summary,
    example,
    args: z.object({ node: target(), unit: unit(), days: days() }),
    positional: ['node'],
    nodeArg: false,
    role: 'read',
    async handler(ctx) {
      // Over many nodes it may take a few seconds: past 2 s, a progress message says how far it is.
      const progress = progressAfter(ctx, `${kind === 'balance' ? 'Balance' : 'Channel'} report: ${ctx.args.node}`, 'Nodes');
      try {
        const reach = await readableOf(ctx);
        const r = await ctx.services.reports[kind](ctx.args.node, {
          readable: reach.may,
          unit: ctx.args.unit,
          chartDays: chartDays(ctx.args.days),
          onProgress: (done, total) => progress.tell(done, total),
        });
        await progress.finish(`Done: ${r.answered} node(s) answered${r.failed ? `, ${r.failed} did not` : ''}. The report follows.`);
        return withScopeNote(r.message, isAll(ctx.args.node) ? reach.note(r.answered + r.failed) : undefined);
      } catch (e) {
        await progress.finish('The report could not be made: see the answer.');
        throw e;
      }
    },
  });

const balance = reportNow(
  'balance',
  'Balance report: on-chain BTC, Lightning and RGB assets, with the change since the last report',
  '/rln report balance all',
);

const channels = reportNow(
  'channels',
  'Channel report: capacity, liquidity, asset amounts and state per channel, and changes since last run',
  '/rln report channels alice',
);

const digest = defineCommand({
  path: 'report digest',
  summary: 'The last 24 hours: payments, channels, incidents, upgrades, locks, alerts, vs the day before',
  example: '/rln report digest all',
  args: z.object({
    node: z.string().trim().min(1).default('all').describe('Node name or id, or all (default)'),
    tz: z.string().trim().min(1).default('UTC').describe('IANA time zone of the times shown, e.g. Europe/Rome (default UTC)'),
  }),
  positional: ['node'],
  nodeArg: false,
  role: 'read',
  async handler(ctx) {
    const place = { platform: ctx.place.platform, channelId: ctx.place.channelId };
    const reach = await readableOf(ctx);
    const r = await ctx.services.reports.digest(ctx.args.node, { timeZone: ctx.args.tz, place, readable: reach.may });
    return withScopeNote(r.message, isAll(ctx.args.node) ? reach.note(r.answered) : undefined);
  },
});

function nextRunText(s: ScheduleInfo): string {
  return s.nextRun ? formatTime(s.nextRun, s.timezone) : '—';
}

const schedule = defineCommand({
  path: 'report schedule',
  summary: 'Post a balance or channel report or the daily digest to this channel on a cron schedule',
  example: '/rln report schedule kind=digest node=all cron="0 9 * * *" tz=Europe/Rome',
  args: z.object({
    kind: z.enum(['balance', 'channels', 'digest']).describe('Which report: balance, channels or digest (the last 24 hours)'),
    node: target(),
    cron: z.string().trim().min(1).describe('Cron expression, 5 fields (or 6 with seconds first), e.g. "0 9 * * *"'),
    tz: z.string().trim().min(1).default('UTC').describe('IANA time zone of the expression, e.g. Europe/Rome (default UTC)'),
    unit: unit(),
  }),
  positional: ['kind', 'node', 'cron'],
  nodeArg: false,
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const reach = await readableOf(ctx);
    const s = await ctx.services.reports.schedule({
      readable: reach.may,
      platform: ctx.place.platform,
      channelId: ctx.place.channelId,
      kind: ctx.args.kind,
      node: ctx.args.node,
      cron: ctx.args.cron,
      timezone: ctx.args.tz,
      unit: ctx.args.unit,
      createdBy: `${ctx.actor.platform}:${ctx.actor.userId}`,
    });
    return {
      header: `Scheduled: ${s.kind} report for ${s.node}`,
      tone: 'success',
      blocks: [
        msg.fields([
          { label: 'Schedule', value: String(s.id), inline: true },
          { label: 'When', value: [describeCron(s.cron, s.timezone), ' (', { code: s.cron }, ')'], inline: true },
          { label: 'Next run', value: nextRunText(s), inline: true },
        ]),
        msg.context(`It is posted to this channel. Remove it with /rln report unschedule ${s.id}.`),
      ],
    } satisfies Message;
  },
});

const schedules = defineCommand({
  path: 'report schedules',
  summary: "List this channel's report schedules and their next run",
  role: 'read',
  async handler(ctx) {
    const list = await ctx.services.reports.schedules(ctx.place.platform, ctx.place.channelId);
    if (!list.length) {
      return {
        header: 'Report schedules',
        tone: 'neutral',
        blocks: [
          msg.text('This channel has no report schedules.'),
          msg.context('Add one: /rln report schedule kind=balance node=all cron="0 9 * * *"'),
        ],
      };
    }
    return {
      header: 'Report schedules',
      tone: 'info',
      blocks: [
        msg.table({
          columns: msg.columns(msg.right('Id'), 'Kind', 'Node', 'When', 'Cron', 'Next run'),
          rows: list.slice(0, 40).map((s) => [String(s.id), s.kind, s.node, describeCron(s.cron, s.timezone), s.cron, nextRunText(s)]),
          caption: list.length > 40 ? `showing 40 of ${list.length}` : undefined,
        }),
        msg.context('Each schedule reports the change since its own last run; reports asked here do not move that baseline.'),
      ],
    };
  },
});

const unschedule = defineCommand({
  path: 'report unschedule',
  summary: 'Remove one of this channel’s report schedules',
  example: '/rln report unschedule 3',
  args: z.object({ id: z.coerce.number().int().positive().describe('Schedule id, from report schedules') }),
  positional: ['id'],
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const s = await ctx.services.reports.unschedule(ctx.place.platform, ctx.place.channelId, ctx.args.id);
    return {
      header: `Removed schedule ${s.id}`,
      tone: 'success',
      blocks: [msg.text(`The ${s.kind} report for ${s.node} (${s.cron}, ${s.timezone}) is no longer posted here.`)],
    };
  },
});

export const reportCommands: AnyCommand[] = [balance, channels, digest, schedule, schedules, unschedule];
