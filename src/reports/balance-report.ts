/**
 * The balance report: on-chain BTC (vanilla and colored), Lightning and RGB assets per node,
 * with the change since that node's previous balance report, and a team total with `all`.
 */
import type { Block, Inline, Message, Tone } from '../vocabulary/index.js';
import { msg } from '../vocabulary/index.js';
import { formatDelta, formatTime, shortId, thousands, withPrecision } from '../vocabulary/index.js';
import type { HostedNode } from '../hosting/index.js';
import type { BalanceData, NodeOutcome, Unit } from './types.js';

/** Precision marker for rows in sats (shown in the chosen unit). */
const SATS = -1;

export interface BalanceRow {
  key: string;
  label: string;
  amount: bigint;
  /** Asset precision, or -1 for a BTC amount in sats. */
  precision: number;
}

/** What is stored after a balance report, to compute the next one's change. */
export interface BalanceSnapshot {
  values: Record<string, string>;
  labels: Record<string, { label: string; precision: number }>;
}

export const MAX_TABLE_ROWS = 40;
/** With `all`, more nodes than this get one overview row each instead of a section each. */
export const DETAIL_MAX_NODES = 4;

/**
 * Whether a report shows each node in a section of its own (with its network and block height),
 * or, with `all` over more than `detailMaxNodes`, one overview row each.
 */
export function showsEachNode(target: string, nodeCount: number, detailMaxNodes = DETAIL_MAX_NODES): boolean {
  return !(target === 'all' && nodeCount > detailMaxNodes);
}

/** One row per number of the report, zero or not (zero rows are dropped at rendering). */
export function balanceRows(d: BalanceData): BalanceRow[] {
  const rows: BalanceRow[] = [];
  const btc = (key: string, label: string, amount: bigint) => rows.push({ key, label, amount, precision: SATS });
  btc('btc.vanilla.settled', 'BTC settled', d.btc.vanilla.settled);
  btc('btc.vanilla.spendable', 'BTC spendable', d.btc.vanilla.spendable);
  btc('btc.vanilla.pending', 'BTC pending', d.btc.vanilla.future - d.btc.vanilla.settled);
  btc('btc.colored.settled', 'Colored settled', d.btc.colored.settled);
  btc('btc.colored.spendable', 'Colored spendable', d.btc.colored.spendable);
  btc('btc.colored.pending', 'Colored pending', d.btc.colored.future - d.btc.colored.settled);
  btc('ln.local', 'LN local', d.ln.local);
  btc('ln.sendable', 'LN sendable', d.ln.sendable);
  btc('ln.receivable', 'LN receivable', d.ln.receivable);
  for (const a of d.assets) {
    const add = (part: string, what: string, amount: bigint) =>
      rows.push({ key: `asset:${a.assetId}:${part}`, label: `${a.label} ${what}`, amount, precision: a.precision });
    add('spendable', 'spendable', a.spendable);
    add('settled', 'settled', a.settled);
    add('outbound', 'LN outbound', a.outbound);
    add('inbound', 'LN inbound', a.inbound);
  }
  return rows;
}

export function toBalanceSnapshot(rows: BalanceRow[]): BalanceSnapshot {
  const snap: BalanceSnapshot = { values: {}, labels: {} };
  for (const r of rows) {
    snap.values[r.key] = r.amount.toString();
    snap.labels[r.key] = { label: r.label, precision: r.precision };
  }
  return snap;
}

export interface RowWithChange extends BalanceRow {
  /** Undefined when there is no previous report to compare with. */
  delta?: bigint;
}

/** Every row with its change since `prev`; rows gone since `prev` come back as 0. */
export function allRowsWithChange(rows: BalanceRow[], prev?: BalanceSnapshot): RowWithChange[] {
  const out: RowWithChange[] = rows.map((r) => ({ ...r, delta: prev ? r.amount - BigInt(prev.values[r.key] ?? '0') : undefined }));
  if (prev) {
    const seen = new Set(rows.map((r) => r.key));
    for (const [key, value] of Object.entries(prev.values)) {
      if (seen.has(key) || BigInt(value) === 0n) continue;
      const meta = prev.labels[key] ?? { label: key, precision: 0 };
      out.push({ key, label: meta.label, precision: meta.precision, amount: 0n, delta: -BigInt(value) });
    }
  }
  return out;
}

/** Zero rows are left out, unless they changed. */
export function visibleRows(rows: RowWithChange[]): RowWithChange[] {
  return rows.filter((r) => r.amount !== 0n || (r.delta !== undefined && r.delta !== 0n));
}

function amountText(amount: bigint, precision: number, unit: Unit): string {
  if (precision === SATS) return unit === 'btc' ? withPrecision(amount, 8) : thousands(amount);
  return withPrecision(amount, precision);
}

function deltaText(delta: bigint | undefined, precision: number, unit: Unit): string {
  if (delta === undefined || delta === 0n) return '';
  return formatDelta(delta, precision === SATS ? (unit === 'btc' ? 8 : 0) : precision);
}

/** The asset id of an asset row's key (`asset:<id>:<part>`), else undefined. */
export const assetIdOfKey = (key: string): string | undefined => /^asset:(.+):[a-z]+$/.exec(key)?.[1];

/**
 * Rows of different assets that would read the same (two assets with the ticker USDT, on one node or
 * across the team) get the asset's short id, as `asset list` shows it (P11).
 */
export function distinguishAssets<T extends { key: string; label: string }>(rows: T[]): T[] {
  const ids = new Map<string, Set<string>>();
  for (const r of rows) {
    const id = assetIdOfKey(r.key);
    if (id === undefined) continue;
    const set = ids.get(r.label) ?? new Set<string>();
    ids.set(r.label, set.add(id));
  }
  return rows.map((r) => {
    const id = assetIdOfKey(r.key);
    return id !== undefined && (ids.get(r.label)?.size ?? 0) > 1 ? { ...r, label: `${r.label} · ${shortId(id, 14)}` } : r;
  });
}

export function balanceTable(rows: RowWithChange[], unit: Unit, withChange: boolean): Block {
  const shown = distinguishAssets(rows.slice(0, MAX_TABLE_ROWS));
  const columns = [
    { header: 'Balance' },
    // One column holds bitcoin and asset rows: the caption says which unit is which.
    { header: 'Amount', align: 'right' as const },
    ...(withChange ? [{ header: 'Change', align: 'right' as const }] : []),
  ];
  const body = shown.map((r) => [
    r.label,
    amountText(r.amount, r.precision, unit),
    ...(withChange ? [deltaText(r.delta, r.precision, unit)] : []),
  ]);
  const notes = [`bitcoin in ${unit === 'btc' ? 'BTC' : 'sats'}, assets in their own units`];
  if (rows.length > shown.length) notes.unshift(`showing ${shown.length} of ${rows.length} rows`);
  return msg.table({ columns, rows: body, caption: notes.join(' · ') });
}

export interface BalanceNodeInput {
  outcome: NodeOutcome<BalanceData>;
  previous?: { takenAt: Date; data: BalanceSnapshot };
}

export interface BalanceReportInput {
  /** `all`, or the node's name. */
  target: string;
  nodes: BalanceNodeInput[];
  unit: Unit;
  now: Date;
  timeZone?: string;
  /** Default DETAIL_MAX_NODES. */
  detailMaxNodes?: number;
}

function headerLine(node: HostedNode, d: { network?: string; height?: bigint }, now: Date, tz?: string): string {
  const parts = [d.network ?? node.network];
  if (d.height !== undefined) parts.push(`block ${thousands(d.height)}`);
  parts.push(formatTime(now, tz));
  return parts.join(' · ');
}

function problemBlock(outcome: { node: HostedNode; problem: string; hint?: string }): Block {
  return msg.text([{ bold: outcome.node.name }, `: ${outcome.problem}${outcome.hint ? ` (${outcome.hint})` : ''}`]);
}

/** Nodes that cannot be reported on, one line each, in one block. */
export function problemsBlock(problems: Array<{ node: HostedNode; problem: string; hint?: string }>): Block {
  const shown = problems.slice(0, MAX_TABLE_ROWS);
  const spans: Inline[] = [];
  shown.forEach((p, i) => {
    if (i > 0) spans.push('\n');
    spans.push({ bold: p.node.name }, `: ${p.problem}${p.hint ? ` (${p.hint})` : ''}`);
  });
  if (problems.length > shown.length) spans.push(`\n… and ${problems.length - shown.length} more`);
  return msg.text(spans);
}

function changeContext(name: string, prev: { takenAt: Date } | undefined, rows: RowWithChange[], tz?: string): Block {
  if (!prev) return msg.text([{ italic: `First balance report for ${name}: the next one shows the change.` }]);
  const changed = rows.filter((r) => r.delta !== undefined && r.delta !== 0n).length;
  return msg.text([
    {
      italic: changed
        ? `Change since ${formatTime(prev.takenAt, tz)}: ${changed} balance(s) moved.`
        : `No change since ${formatTime(prev.takenAt, tz)}.`,
    },
  ]);
}

/** The Message, and the snapshot to store for each node that answered. */
export function buildBalanceReport(input: BalanceReportInput): {
  message: Message;
  snapshots: Array<{ nodeId: string; data: BalanceSnapshot }>;
} {
  const { unit, now, timeZone: tz } = input;
  const snapshots: Array<{ nodeId: string; data: BalanceSnapshot }> = [];
  const sections: Block[][] = [];
  const overview: string[][] = [];
  const problems: Array<{ node: HostedNode; problem: string; hint?: string }> = [];
  const totals = new Map<string, RowWithChange>();
  let answered = 0;
  let allHavePrev = true;
  const eachNode = showsEachNode(input.target, input.nodes.length, input.detailMaxNodes);

  for (const n of input.nodes) {
    const o = n.outcome;
    if (!o.ok) {
      if (eachNode) sections.push([problemBlock(o)]);
      problems.push(o);
      continue;
    }
    answered++;
    const rows = balanceRows(o.data);
    snapshots.push({ nodeId: o.node.nodeId, data: toBalanceSnapshot(rows) });
    const all = allRowsWithChange(rows, n.previous?.data);
    const shown = visibleRows(all);
    if (!n.previous) allHavePrev = false;
    for (const r of all) {
      const t = totals.get(r.key);
      if (!t) totals.set(r.key, { ...r });
      else {
        t.amount += r.amount;
        t.delta = t.delta === undefined || r.delta === undefined ? undefined : t.delta + r.delta;
      }
    }
    const pick = (...keys: string[]) => {
      const hit = all.filter((r) => keys.includes(r.key));
      const amount = hit.reduce((a, r) => a + r.amount, 0n);
      const delta = n.previous ? hit.reduce((a, r) => a + (r.delta ?? 0n), 0n) : undefined;
      return [amountText(amount, SATS, unit), deltaText(delta, SATS, unit)];
    };
    overview.push([
      o.node.name,
      ...pick('btc.vanilla.spendable', 'btc.colored.spendable'),
      ...pick('ln.local'),
      pick('ln.sendable')[0],
      pick('ln.receivable')[0],
      String(o.data.assets.filter((a) => a.spendable || a.settled || a.outbound || a.inbound).length),
    ]);
    if (!eachNode) continue;
    const section: Block[] = [];
    // Per-node lines are text, not context: a platform may gather context blocks into one footer.
    if (input.nodes.length > 1 || input.target === 'all')
      section.push(msg.text([{ bold: o.node.name }, ` · ${headerLine(o.node, o.data, now, tz)}`]));
    else section.push(msg.context(headerLine(o.node, o.data, now, tz)));
    section.push(shown.length ? balanceTable(shown, unit, Boolean(n.previous)) : msg.text('No balances: every amount is zero.'));
    section.push(changeContext(o.node.name, n.previous, shown, tz));
    sections.push(section);
  }

  const blocks: Block[] = [];
  const isAll = input.target === 'all';
  if (isAll) {
    const totalRows = visibleRows([...totals.values()]);
    blocks.push(msg.text([{ bold: `Team total` }, ` · ${answered} of ${input.nodes.length} node(s) answered · ${formatTime(now, tz)}`]));
    blocks.push(
      totalRows.length ? balanceTable(totalRows, unit, allHavePrev && answered > 0) : msg.text('No balances: every amount is zero.'),
    );
  }
  if (!eachNode) {
    // Many nodes: one row each, so the message stays within what a chat message can hold.
    blocks.push(msg.divider());
    if (overview.length) {
      const u = unit === 'btc' ? 'BTC' : 'sats';
      blocks.push(
        msg.table({
          columns: msg.columns('Node', msg.right('On-chain', 'Change', 'LN local', 'Change', 'Sendable', 'Receivable', 'Assets')),
          rows: overview.slice(0, MAX_TABLE_ROWS),
          caption: [
            `BTC spendable in ${u}`,
            overview.length > MAX_TABLE_ROWS ? `showing ${MAX_TABLE_ROWS} of ${overview.length} nodes` : '',
          ]
            .filter(Boolean)
            .join(' · '),
        }),
      );
    }
    if (problems.length) blocks.push(problemsBlock(problems));
    blocks.push(msg.context('Details of one node: /rln report balance <node>'));
  } else {
    sections.forEach((s, i) => {
      if (isAll || i > 0) blocks.push(msg.divider());
      blocks.push(...s);
    });
  }
  if (!input.nodes.length) blocks.push(msg.text('No nodes to report on.'));

  return { message: reportMessage('Balance report', input, answered, blocks), snapshots };
}

/**
 * A report's Message: the header and summary name what it covers (all nodes, or the node) and
 * how many nodes did not answer; the tone is danger when none answered, warning when some did
 * not (or `flagged`, something in it needs a look), info otherwise.
 */
export function reportMessage(
  title: string,
  input: { target: string; nodes: Array<{ outcome: { node: HostedNode } }> },
  answered: number,
  blocks: Block[],
  flagged = false,
): Message {
  const failed = input.nodes.length - answered;
  const tone: Tone = answered === 0 && failed > 0 ? 'danger' : failed > 0 || flagged ? 'warning' : 'info';
  const who = input.target === 'all' ? 'all nodes' : (input.nodes[0]?.outcome.node.name ?? input.target);
  return {
    header: `${title} · ${who}`,
    purpose: 'report',
    tone,
    blocks,
    summary: `${title} for ${who}${failed ? ` (${failed} node(s) did not answer)` : ''}`,
  };
}
