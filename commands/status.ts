/**
 * `status`: the dashboard. Every node of the account in one message: hosting status, wallet
 * lock state, on-chain and Lightning balances, usable channels, open incidents and mutes, and
 * the last report; a page at a time, with buttons to open a node or run its report. Only the
 * page's nodes are read; a figure that is not from a read now (the node did not answer) comes
 * from the activity poller's last pass or the last report and says its age ("as of 40 s ago").
 * Slack's App Home shows the same message (src/chat/slack/app-home.ts runs this command).
 */
import { z } from 'zod';
import { statusBadge, thousands } from '../src/vocabulary/index.js';
import { msg, type Button, type Message } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import type { DashboardNode } from '../src/reports/index.js';
import { formatTime } from './support/present.js';
import type { Incident, Watch } from '../src/notify/index.js';
import { int } from './support/arg-types.js';
import { paginate } from './support/paginate.js';
import { readableOf, withScopeNote } from './support/readable-nodes.js';

/** Nodes per page: two buttons each, plus paging, stays within a message's 25 buttons. */
export const STATUS_PAGE_SIZE = 8;

const LOCK_WORDS: Record<DashboardNode['lock'], string> = {
  unlocked: '🔓 unlocked',
  locked: '🔒 locked',
  'not initialised': '○ not initialised',
  unknown: '? unknown',
};

function sats(v: bigint | undefined): string {
  return v === undefined ? '—' : thousands(v);
}

/** `40 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function agoText(at: Date, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7_200) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3_600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** A figure, with its age when it is not from a read now. */
function aged(text: string, at: Date | undefined, now: Date): string {
  return at && text !== '—' ? `${text} (as of ${agoText(at, now)})` : text;
}

/** Open incidents and mutes of a node, across the channels that watch it. */
function alertsOf(n: DashboardNode, incidents: Incident[], watches: Watch[], now: Date): string {
  const open = incidents.filter((i) => i.nodeId === n.node.nodeId).length;
  const muted = watches.some((w) => (w.target === n.node.nodeId || w.target === 'all') && w.mutedUntil && w.mutedUntil > now);
  return [open ? `${open} open` : '', muted ? 'muted' : ''].filter(Boolean).join(' · ') || '—';
}

export function dashboardMessage(
  nodes: DashboardNode[],
  o: { incidents: Incident[]; watches: Watch[]; now: Date; page?: number },
): Message {
  if (!nodes.length) {
    return {
      header: 'Status · no nodes',
      tone: 'neutral',
      blocks: [msg.text('The account has no nodes yet.'), msg.context('Create one with /rln node create <name>.')],
    };
  }
  const { items, caption } = paginate(nodes, { limit: STATUS_PAGE_SIZE, page: o.page });
  const page = Math.min(Math.max(1, o.page ?? 1), Math.ceil(nodes.length / STATUS_PAGE_SIZE));
  const rows = items.map((n) => [
    n.node.name,
    statusBadge(n.node.status),
    aged(n.problem ? `${LOCK_WORDS[n.lock]}: ${n.problem}` : LOCK_WORDS[n.lock], n.asOf?.lock, o.now),
    aged(sats(n.onchainSat), n.asOf?.onchain, o.now),
    aged(n.lnLocalSat === undefined ? '—' : `${sats(n.lnLocalSat)} / ${sats(n.lnRemoteSat)}`, n.asOf?.channels, o.now),
    aged(n.channelsTotal === undefined ? '—' : `${n.channelsUsable}/${n.channelsTotal}`, n.asOf?.channels, o.now),
    alertsOf(n, o.incidents, o.watches, o.now),
    n.lastReportAt ? formatTime(n.lastReportAt) : 'never',
  ]);
  const old = items.some((n) => n.asOf);
  const running = nodes.filter((n) => n.node.status === 'RUNNING').length;
  const openIncidents = new Set(o.incidents.map((i) => i.nodeId)).size;
  const buttons: Button[] = items.flatMap((n) => [
    { label: `${n.node.name}: details`, command: 'node info', args: { node: n.node.name } },
    { label: `${n.node.name}: report`, command: 'report balance', args: { node: n.node.name } },
  ]);
  if (page > 1) buttons.push({ label: 'Previous page', command: 'status', args: { page: String(page - 1) }, replaces: true });
  if (page * STATUS_PAGE_SIZE < nodes.length)
    buttons.push({ label: 'Next page', command: 'status', args: { page: String(page + 1) }, replaces: true });
  return {
    header: `Status · ${nodes.length} node${nodes.length === 1 ? '' : 's'}`,
    purpose: 'dashboard',
    tone: openIncidents ? 'danger' : running === nodes.length ? 'success' : 'warning',
    summary: `${running} of ${nodes.length} node(s) running${openIncidents ? `, ${openIncidents} with an open incident` : ''}`,
    blocks: [
      msg.table({
        columns: msg.columns(
          'Node',
          'Status',
          'Wallet',
          msg.right('On-chain', 'LN local / remote', 'Channels'),
          'Incidents',
          'Last report',
        ),
        rows,
        caption: ['amounts in sats; channels usable/total', caption].filter(Boolean).join(' · '),
      }),
      msg.context(
        `${running} of ${nodes.length} running · read at ${formatTime(o.now)}` +
          (old ? ' · "as of": not read now, the last known figure (activity polling or the last report)' : ''),
      ),
    ],
    buttons,
  };
}

const status = defineCommand({
  path: 'status',
  summary: 'The dashboard: every node with its state, balances, channels, incidents and last report',
  example: '/rln status',
  args: z.object({ page: int().min(1).optional().describe('Which page of nodes (8 a page)') }),
  role: 'read',
  async handler(ctx) {
    const reach = await readableOf(ctx);
    const [nodes, incidents, watches] = await Promise.all([
      ctx.services.reports.dashboard({ page: ctx.args.page, pageSize: STATUS_PAGE_SIZE, readable: reach.may }),
      Promise.resolve(ctx.services.watches.incidents({ state: 'open' })),
      Promise.resolve(ctx.services.watches.list()),
    ]);
    // Incidents of nodes not shown are not counted either.
    const shown = new Set(nodes.map((n) => n.node.nodeId));
    return withScopeNote(
      dashboardMessage(nodes, {
        incidents: incidents.filter((i) => shown.has(i.nodeId)),
        watches,
        now: new Date(ctx.services.now()),
        page: ctx.args.page,
      }),
      reach.note(nodes.length),
    );
  },
});

export const statusCommands: AnyCommand[] = [status];
