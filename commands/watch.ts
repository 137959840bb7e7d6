/**
 * `watch …`: which nodes this channel is told about, muting for maintenance, and
 * acknowledging incidents. Stored (src/notify), so watches survive restarts.
 */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { statusBadge } from '../src/vocabulary/index.js';
import { msg, type Block, type Message } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { type AnyCommand, type CommandDefinition } from '../src/engine/index.js';
import type { Services } from './services.js';
import type { HostedNode } from '../src/hosting/index.js';
import { ALL_NODES } from '../src/notify/index.js';
import { formatTime } from './support/present.js';
import { parseMsatWithUnit } from './support/amount.js';

import {
  WATCH_KINDS,
  describeThresholds,
  describeWatch,
  escalationOf,
  formatMsat,
  ownThresholds,
  parseKinds,
  parseStatuses,
  resolveTarget,
  target,
  thresholdArgs,
} from './support/watch-args.js';

/** Points nodes without a webhook URL at this bot; returns lines saying what was done. */
async function pointWebhooks(ctx: CommandContext<unknown>, nodes: HostedNode[]): Promise<string[]> {
  const base = ctx.services.publicUrl?.replace(/\/+$/, '');
  const lines: string[] = [];
  for (const n of nodes) {
    const current = n.settings?.webhookUrl;
    const wanted = base ? `${base}/webhooks/service/${n.nodeId}` : undefined;
    if (current) {
      if (wanted && current !== wanted && !current.startsWith(`${base}/webhooks/service`)) {
        lines.push(
          `${n.name}: its webhook URL already points elsewhere (${current}); events reach this bot only if that endpoint forwards them.`,
        );
      }
      continue;
    }
    if (!wanted) {
      lines.push(
        `${n.name}: has no webhook URL and PUBLIC_URL is not set, so the service will not send its events here. ` +
          'Set PUBLIC_URL, or set the URL with `/rln node settings`.',
      );
      continue;
    }
    try {
      await ctx.services.hosting.updateSettings(n.nodeId, { webhookUrl: wanted });
      lines.push(`${n.name}: webhook URL set to ${wanted}.`);
    } catch (err) {
      lines.push(`${n.name}: could not set its webhook URL (${(err as Error).message}). Set it with \`/rln node settings\`.`);
    }
  }
  return lines;
}

/**
 * A command on the watches of this channel, which an operator runs at once: its first argument,
 * `node`, names what is watched (a node or `all`), and the command resolves it itself
 * (`resolveTarget`), so the engine resolves no node for it.
 */
function watchCommand<S extends z.ZodObject<z.ZodRawShape>>(
  spec: Omit<CommandDefinition<S, Services>, 'positional' | 'nodeArg' | 'role' | 'confirm' | 'mutates'>,
): CommandDefinition<S, Services> {
  return defineCommand<S>({ ...spec, positional: ['node'], nodeArg: false, role: 'operate', confirm: 'none', mutates: true });
}

const add = watchCommand({
  path: 'watch add',
  summary: 'Post a node’s (or all nodes’) status changes here; with kinds=, its payments, channels and more too',
  example: '/rln watch add alice kinds=status,payments,channels,liquidity,lock min_amount=10k sats',
  args: z.object({
    node: target(),
    status: z.string().trim().optional().describe('Only these statuses, comma-separated, e.g. FAILED,PAUSED (default: every change)'),
    kinds: z
      .string()
      .trim()
      .optional()
      // Discord holds 100 characters: every kind, whole; without kinds= a watch hears status (the summary says so).
      .describe(`${WATCH_KINDS.join(',')}, or all`),
    min_amount: z
      .string()
      .trim()
      .meta({ amount: 'msat' })
      .optional()
      .describe('Payments below this are not posted, e.g. "10k sats" or "500000 msat"'),
    escalate_after: z.coerce
      .number()
      .positive()
      .max(7 * 24 * 60)
      .optional()
      .describe('Minutes an incident may stay unacknowledged before on-call is paged (default 10)'),
    pagerduty_key: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{20,64}$/, 'a PagerDuty integration (routing) key: 32 letters and digits')
      .optional()
      .describe('PagerDuty routing key for this watch (default: PAGERDUTY_ROUTING_KEY)'),
    ...thresholdArgs,
  }),
  async handler(ctx): Promise<Message> {
    const statuses = parseStatuses(ctx.args.status);
    const kinds = parseKinds(ctx.args.kinds);
    const minAmountMsat = ctx.args.min_amount ? parseMsatWithUnit(ctx.args.min_amount, 'min_amount') : undefined;
    const { target: t, node } = await resolveTarget(ctx, ctx.args.node);
    const w = await ctx.services.watches.add({
      place: ctx.place,
      target: t,
      targetName: node?.name,
      statuses,
      kinds,
      minAmountMsat,
      escalateAfterMin: ctx.args.escalate_after,
      pagerdutyKey: ctx.args.pagerduty_key,
      thresholds: ownThresholds(ctx.args),
      actor: ctx.actor,
    });
    const nodes = node ? [node] : await ctx.services.hosting.listNodes();
    const webhookLines = await pointWebhooks(ctx, nodes);
    return {
      header: `Watching ${describeWatch(w)} in this channel`,
      tone: 'success',
      blocks: [
        msg.fields([
          { label: 'Nodes', value: describeWatch(w), inline: true },
          { label: 'Statuses', value: w.statuses ? w.statuses.map(statusBadge).join(', ') : 'every change', inline: true },
          { label: 'Hears', value: `${w.kinds.join(', ')}${describeThresholds(w.thresholds)}`, inline: true },
          ...(w.minAmountMsat ? [{ label: 'Least amount', value: formatMsat(w.minAmountMsat), inline: true }] : []),
          { label: 'Escalation', value: escalationOf(w), inline: true },
        ]),
        ...(webhookLines.length ? [msg.text(webhookLines.join('\n'))] : []),
        msg.context(
          'A FAILED status opens an incident with Restart, Logs and Acknowledge buttons. `/rln watch mute` silences it for a while.',
        ),
      ],
    };
  },
});

const remove = watchCommand({
  path: 'watch remove',
  summary: 'Stop posting status changes of a node (or all nodes) to this channel',
  example: '/rln watch remove alice',
  args: z.object({ node: target() }),
  async handler(ctx): Promise<Message> {
    const value = ctx.args.node;
    const mine = await ctx.services.watches.list(ctx.place);
    const w =
      mine.find((x) => x.target === value || (value.toLowerCase() === ALL_NODES && x.target === ALL_NODES)) ??
      mine.find((x) => x.targetName === value || x.targetName?.toLowerCase() === value.toLowerCase());
    if (!w) {
      const all = mine.some((x) => x.target === ALL_NODES);
      // Suggest muting only a node that exists: for anything else, say so and point at the lists.
      const known =
        value.toLowerCase() === ALL_NODES ||
        (await ctx.services.hosting.listNodes().catch(() => [])).some(
          (n) => n.nodeId === value || n.name.toLowerCase() === value.toLowerCase(),
        );
      if (!known) {
        throw new UserError(
          'invalid_arguments',
          `There is no node ${JSON.stringify(value.slice(0, 60))}, and this channel does not watch it.`,
          'See what this channel watches with `/rln watch list`, and your nodes with `/rln node list`.',
        );
      }
      throw new UserError(
        'invalid_arguments',
        all
          ? `This channel does not watch ${JSON.stringify(value)} on its own: it watches all nodes.`
          : `This channel does not watch ${JSON.stringify(value)}.`,
        all
          ? `To hear less about it, \`/rln watch mute ${value}\` for a while, or \`/rln watch remove all\` and add the nodes you want.`
          : 'Run `/rln watch list` to see what it watches.',
      );
    }
    await ctx.services.watches.remove(ctx.place, w.target);
    return { header: `No longer watching ${describeWatch(w)} in this channel`, tone: 'neutral', blocks: [] };
  },
});

/** The channel's mutes, each on its own row (a mute of one node under a watch of all is shown too) (P34). */
async function mutesTable(ctx: CommandContext<unknown>): Promise<Block[]> {
  const mutes = await ctx.services.watches.mutes(ctx.place);
  if (!mutes.length) return [];
  const nodes = mutes.some((m) => m.target !== ALL_NODES) ? await ctx.services.hosting.listNodes().catch(() => []) : [];
  const name = (target: string) => (target === ALL_NODES ? 'all nodes' : (nodes.find((n) => n.nodeId === target)?.name ?? target));
  return [
    msg.text('Mutes (notifications held, summarised when each ends):'),
    msg.table({
      columns: msg.columns('Muted', 'Until', 'By'),
      rows: mutes.map((m) => [name(m.target), formatTime(m.until.toISOString()), m.mutedBy]),
    }),
  ];
}

const list = defineCommand({
  path: 'watch list',
  summary: 'What this channel watches, its mutes and open incidents',
  role: 'read',
  async handler(ctx): Promise<Message> {
    const watches = await ctx.services.watches.list(ctx.place);
    const incidents = await ctx.services.watches.incidents({ place: ctx.place, state: 'open' });
    const mutes = await mutesTable(ctx);
    if (!watches.length) {
      return {
        header: 'This channel watches no node',
        tone: 'neutral',
        blocks: [msg.context(['Start with ', { code: '/rln watch add <node|all>' }]), ...mutes],
      };
    }
    const blocks = [
      msg.table({
        columns: msg.columns('Nodes', 'Statuses', 'Kinds', 'Escalation', 'State', 'Added by'),
        rows: watches.map((w) => [
          describeWatch(w),
          w.statuses ? w.statuses.join(', ') : 'every change',
          `${w.kinds.join(', ')}${w.minAmountMsat ? ` (≥ ${formatMsat(w.minAmountMsat)})` : ''}${describeThresholds(w.thresholds)}`,
          escalationOf(w),
          w.paused ? `paused (${w.paused.reason})` : w.mutedUntil ? `muted until ${formatTime(w.mutedUntil.toISOString())}` : 'active',
          w.createdBy,
        ]),
      }),
    ];
    blocks.push(...mutes);
    if (incidents.length) {
      blocks.push(
        msg.table({
          columns: msg.columns('Incident', 'Node', 'Status', 'Acknowledged'),
          rows: incidents.map((i) => [`#${i.id}`, i.nodeName ?? i.nodeId, statusBadge(i.lastStatus), i.ackedBy ?? 'no']),
        }),
      );
    }
    return { header: `This channel watches ${watches.length} target(s)`, tone: 'info', blocks };
  },
});

const mute = watchCommand({
  path: 'watch mute',
  summary: 'Hold this channel’s notifications for a while (maintenance); they are summarised when the mute ends',
  example: '/rln watch mute alice minutes=60',
  args: z.object({
    node: target().default(ALL_NODES),
    minutes: z.coerce
      .number()
      .positive()
      .max(7 * 24 * 60)
      .default(60)
      .describe('How long, in minutes (default 60)'),
  }),
  async handler(ctx): Promise<Message> {
    const { target: t, node } = await resolveTarget(ctx, ctx.args.node);
    const { until } = await ctx.services.watches.mute({ place: ctx.place, target: t, minutes: ctx.args.minutes, actor: ctx.actor });
    return {
      header: `Muted ${node ? node.name : 'all nodes'} in this channel until ${formatTime(until.toISOString())}`,
      tone: 'neutral',
      blocks: [msg.context(['Events are kept and summarised when the mute ends. End it early with ', { code: '/rln watch unmute' }])],
    };
  },
});

const unmute = watchCommand({
  path: 'watch unmute',
  summary: 'End mutes in this channel now; what was held is posted as one summary',
  example: '/rln watch unmute',
  args: z.object({ node: target().optional() }),
  async handler(ctx): Promise<Message> {
    const t = ctx.args.node ? (await resolveTarget(ctx, ctx.args.node)).target : undefined;
    const n = await ctx.services.watches.unmute(ctx.place, t);
    return {
      header: n ? `Unmuted (${n} mute${n === 1 ? '' : 's'} ended)` : 'Nothing was muted here',
      tone: n ? 'success' : 'neutral',
      blocks: n ? [msg.context('Anything held during the mute is posted as one summary.')] : [],
    };
  },
});

const ack = defineCommand({
  path: 'watch ack',
  summary: 'Acknowledge an incident: records who took it and stops repeat notifications',
  example: '/rln watch ack 12',
  args: z.object({
    incident: z
      .string()
      .trim()
      .regex(/^#?\d+$/, 'an incident number, e.g. 12')
      .describe('Incident number, as shown on the incident message'),
    // The incident's Acknowledge button carries its node, so a role limited to that node may use it.
    node: z.string().min(1).optional().describe("The incident's node (needed with a role limited to some nodes)"),
  }),
  positional: ['incident', 'node'],
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx): Promise<Message> {
    const id = Number(ctx.args.incident.replace(/^#/, ''));
    const { incident, already } = await ctx.services.watches.ack({
      incidentId: id,
      actor: ctx.actor,
      place: ctx.place,
      nodeId: ctx.node?.nodeId,
    });
    const name = incident.nodeName ?? incident.nodeId;
    if (already) {
      return {
        header:
          incident.state === 'resolved'
            ? `Incident #${id} (${name}) is already resolved`
            : `Incident #${id} (${name}) was already acknowledged by ${incident.ackedBy}`,
        tone: 'neutral',
        blocks: [],
      };
    }
    return {
      header: `Incident #${id} (${name}) acknowledged by ${incident.ackedBy}`,
      tone: 'info',
      blocks: [msg.context('Repeat notifications stop; updates continue in the incident thread.')],
    };
  },
});

export const watchCommands: AnyCommand[] = [add, remove, list, mute, unmute, ack];
