/**
 * The channel report: one row per channel (state, peer, capacity, sendable, receivable,
 * local share, asset amounts, private mark), a summary line, channels whose local share
 * is outside the thresholds flagged, and the channels opened and closed since the
 * previous channel report of that node.
 */
import type { Block, Message } from '../vocabulary/index.js';
import { msg } from '../vocabulary/index.js';
import { formatDelta, formatTime, shareBar, thousands, withPrecision } from '../vocabulary/index.js';
import type { HostedNode } from '../hosting/index.js';
import type { ChannelData, ChannelLine, ChannelState, NodeOutcome, Unit } from './types.js';
import { MAX_TABLE_ROWS, problemsBlock, reportMessage, showsEachNode } from './balance-report.js';

export interface Thresholds {
  low: number;
  high: number;
}

export const STATE_MARKS: Record<ChannelState, string> = {
  usable: '●',
  not_usable: '◐',
  opening: '○',
  closing: '✕',
};

const STATE_WORDS: Record<ChannelState, string> = {
  usable: 'usable',
  not_usable: 'not usable',
  opening: 'opening',
  closing: 'closing',
};

export const LEGEND = '● opened, usable · ◐ opened, not usable · ○ opening · ✕ closing · P private · ! local share outside';

/** What is stored after a channel report. */
export interface ChannelSnapshot {
  channels: Record<string, { peer: string; capacity: string; local: string; sendable: string; receivable: string; state: ChannelState }>;
}

export function toChannelSnapshot(d: ChannelData): ChannelSnapshot {
  const channels: ChannelSnapshot['channels'] = {};
  for (const c of d.channels) {
    channels[c.channelId] = {
      peer: c.peer,
      capacity: c.capacitySat.toString(),
      local: c.localSat.toString(),
      sendable: c.sendableSat.toString(),
      receivable: c.receivableSat.toString(),
      state: c.state,
    };
  }
  return { channels };
}

/** Local share of a channel, 0..1 (0 for a channel without capacity). */
export function localShare(c: ChannelLine): number {
  return c.capacitySat > 0n ? Number((c.localSat * 10000n) / c.capacitySat) / 10000 : 0;
}

/** Flags compare exactly (in millionths), not the rounded share: 20.0001% is not "at most 20%". */
export function isFlagged(c: ChannelLine, t: Thresholds): 'low' | 'high' | undefined {
  if (c.capacitySat <= 0n) return undefined;
  const share = c.localSat * 1_000_000n;
  const at = (x: number) => BigInt(Math.round(x * 1_000_000)) * c.capacitySat;
  if (share <= at(t.low)) return 'low';
  if (share >= at(t.high)) return 'high';
  return undefined;
}

function sats(v: bigint, unit: Unit): string {
  return unit === 'btc' ? withPrecision(v, 8) : thousands(v);
}

export function channelTable(channels: ChannelLine[], t: Thresholds, unit: Unit): Block {
  const shown = channels.slice(0, MAX_TABLE_ROWS);
  const rows = shown.map((c) => {
    const share = localShare(c);
    const flag = isFlagged(c, t);
    const marks = [c.public ? '' : 'P', flag ? `!${flag}` : ''].filter(Boolean).join(' ');
    return [
      STATE_MARKS[c.state],
      c.peer,
      sats(c.capacitySat, unit),
      sats(c.sendableSat, unit),
      sats(c.receivableSat, unit),
      `${shareBar(share, 5)} ${Math.round(share * 100)}%`,
      c.asset
        ? `${c.asset.label} ${withPrecision(c.asset.local, c.asset.precision)}/${withPrecision(c.asset.remote, c.asset.precision)}`
        : '',
      marks,
    ];
  });
  const u = unit === 'btc' ? 'BTC' : 'sats';
  const caption = [
    `amounts in ${u}; asset local/remote`,
    channels.length > shown.length ? `showing ${shown.length} of ${channels.length} channels` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return msg.table({
    columns: msg.columns('', 'Peer', msg.right('Capacity', 'Sendable', 'Receivable'), 'Local', 'Asset', 'Flags'),
    rows,
    caption,
  });
}

export function summaryLine(channels: ChannelLine[], t: Thresholds, unit: Unit): string {
  const count = (s: ChannelState) => channels.filter((c) => c.state === s).length;
  const sum = (f: (c: ChannelLine) => bigint) => channels.reduce((a, c) => a + f(c), 0n);
  const u = unit === 'btc' ? 'BTC' : 'sats';
  const flagged = channels.filter((c) => isFlagged(c, t)).length;
  const states = (['usable', 'not_usable', 'opening', 'closing'] as ChannelState[]).map((s) => `${count(s)} ${STATE_WORDS[s]}`).join(', ');
  return (
    `${channels.length} channel(s): ${states} · ${flagged} flagged (local share ≤ ${Math.round(t.low * 100)}% or ≥ ${Math.round(t.high * 100)}%)\n` +
    `Capacity ${sats(
      sum((c) => c.capacitySat),
      unit,
    )} · sendable ${sats(
      sum((c) => c.sendableSat),
      unit,
    )} · receivable ${sats(
      sum((c) => c.receivableSat),
      unit,
    )} ${u}`
  );
}

export interface ChannelChanges {
  opened: string[];
  closed: string[];
  sendableDelta: bigint;
  receivableDelta: bigint;
}

export function channelChanges(d: ChannelData, prev: ChannelSnapshot): ChannelChanges {
  const now = new Set(d.channels.map((c) => c.channelId));
  const opened = d.channels.filter((c) => !(c.channelId in prev.channels)).map((c) => c.peer);
  const closed = Object.entries(prev.channels)
    .filter(([id]) => !now.has(id))
    .map(([, c]) => c.peer);
  const prevSum = (k: 'sendable' | 'receivable') => Object.values(prev.channels).reduce((a, c) => a + BigInt(c[k]), 0n);
  const sum = (f: (c: ChannelLine) => bigint) => d.channels.reduce((a, c) => a + f(c), 0n);
  return {
    opened,
    closed,
    sendableDelta: sum((c) => c.sendableSat) - prevSum('sendable'),
    receivableDelta: sum((c) => c.receivableSat) - prevSum('receivable'),
  };
}

function changeText(ch: ChannelChanges, since: Date, unit: Unit, tz?: string): string {
  const p = unit === 'btc' ? 8 : 0;
  const u = unit === 'btc' ? 'BTC' : 'sats';
  const parts: string[] = [];
  parts.push(
    ch.opened.length
      ? `opened ${ch.opened.length} (${ch.opened.slice(0, 5).join(', ')}${ch.opened.length > 5 ? ', …' : ''})`
      : 'none opened',
  );
  parts.push(
    ch.closed.length
      ? `closed ${ch.closed.length} (${ch.closed.slice(0, 5).join(', ')}${ch.closed.length > 5 ? ', …' : ''})`
      : 'none closed',
  );
  parts.push(`sendable ${formatDelta(ch.sendableDelta, p)} ${u}`, `receivable ${formatDelta(ch.receivableDelta, p)} ${u}`);
  return `Since ${formatTime(since, tz)}: ${parts.join(' · ')}.`;
}

export interface ChannelNodeInput {
  outcome: NodeOutcome<ChannelData>;
  previous?: { takenAt: Date; data: ChannelSnapshot };
}

export interface ChannelReportInput {
  target: string;
  nodes: ChannelNodeInput[];
  thresholds: Thresholds;
  unit: Unit;
  now: Date;
  timeZone?: string;
  /** Default DETAIL_MAX_NODES. */
  detailMaxNodes?: number;
}

function headerLine(node: HostedNode, d: ChannelData, now: Date, tz?: string): string {
  const parts = [d.network ?? node.network];
  if (d.height !== undefined) parts.push(`block ${thousands(d.height)}`);
  parts.push(formatTime(now, tz));
  return parts.join(' · ');
}

export function buildChannelReport(input: ChannelReportInput): {
  message: Message;
  snapshots: Array<{ nodeId: string; data: ChannelSnapshot }>;
} {
  const { thresholds: t, unit, now, timeZone: tz } = input;
  const blocks: Block[] = [];
  const snapshots: Array<{ nodeId: string; data: ChannelSnapshot }> = [];
  const isAll = input.target === 'all';
  let answered = 0;
  let flaggedTotal = 0;
  if (isAll) {
    const every = input.nodes.flatMap((n) => (n.outcome.ok ? n.outcome.data.channels : []));
    blocks.push(
      msg.text([
        { bold: 'Team' },
        ` · ${input.nodes.filter((n) => n.outcome.ok).length} of ${input.nodes.length} node(s) answered · ${formatTime(now, tz)}`,
      ]),
    );
    blocks.push(msg.text(summaryLine(every, t, unit)));
  }
  const compact = !showsEachNode(input.target, input.nodes.length, input.detailMaxNodes);
  const overview: string[][] = [];
  const problems: Array<{ node: HostedNode; problem: string; hint?: string }> = [];
  input.nodes.forEach((n) => {
    const o = n.outcome;
    if (!o.ok) {
      problems.push(o);
      if (compact) return;
      if (blocks.length) blocks.push(msg.divider());
      blocks.push(msg.text([{ bold: o.node.name }, `: ${o.problem}${o.hint ? ` (${o.hint})` : ''}`]));
      return;
    }
    answered++;
    snapshots.push({ nodeId: o.node.nodeId, data: toChannelSnapshot(o.data) });
    const chans = o.data.channels;
    const flagged = chans.filter((c) => isFlagged(c, t)).length;
    flaggedTotal += flagged;
    const changes = n.previous ? channelChanges(o.data, n.previous.data) : undefined;
    if (compact) {
      const sum = (f: (c: ChannelLine) => bigint) =>
        sats(
          chans.reduce((a, c) => a + f(c), 0n),
          unit,
        );
      overview.push([
        o.node.name,
        String(chans.length),
        String(chans.filter((c) => c.state === 'usable').length),
        sum((c) => c.capacitySat),
        sum((c) => c.sendableSat),
        sum((c) => c.receivableSat),
        String(flagged),
        changes ? `+${changes.opened.length}/−${changes.closed.length}` : '',
      ]);
      return;
    }
    if (blocks.length) blocks.push(msg.divider());
    // Per-node lines are text, not context: a platform may gather context blocks into one footer.
    if (isAll || input.nodes.length > 1) blocks.push(msg.text([{ bold: o.node.name }, ` · ${headerLine(o.node, o.data, now, tz)}`]));
    else blocks.push(msg.context(headerLine(o.node, o.data, now, tz)));
    if (chans.length) blocks.push(channelTable(chans, t, unit));
    blocks.push(msg.text(chans.length ? summaryLine(chans, t, unit) : 'No channels.'));
    blocks.push(
      msg.text([
        {
          italic:
            n.previous && changes
              ? changeText(changes, n.previous.takenAt, unit, tz)
              : `First channel report for ${o.node.name}: the next one shows the change.`,
        },
      ]),
    );
  });
  if (compact) {
    blocks.push(msg.divider());
    if (overview.length) {
      blocks.push(
        msg.table({
          columns: msg.columns('Node', msg.right('Channels', 'Usable', 'Capacity', 'Sendable', 'Receivable', 'Flagged', 'Opened/closed')),
          rows: overview.slice(0, MAX_TABLE_ROWS),
          caption: [
            `amounts in ${unit === 'btc' ? 'BTC' : 'sats'}; opened/closed since the last report`,
            overview.length > MAX_TABLE_ROWS ? `showing ${MAX_TABLE_ROWS} of ${overview.length} nodes` : '',
          ]
            .filter(Boolean)
            .join(' · '),
        }),
      );
    }
    if (problems.length) blocks.push(problemsBlock(problems));
    blocks.push(msg.context('Channels of one node: /rln report channels <node>'));
  }
  if (!input.nodes.length) blocks.push(msg.text('No nodes to report on.'));
  if (answered && !compact) blocks.push(msg.context(`${LEGEND} ${Math.round(t.low * 100)}–${Math.round(t.high * 100)}%`));
  return { message: reportMessage('Channel report', input, answered, blocks, flaggedTotal > 0), snapshots };
}
