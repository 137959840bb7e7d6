/**
 * The charts of the reports, from the snapshots the store keeps of each node (one per report):
 * - balance: on-chain, Lightning local and remote in sats (or BTC), and each RGB asset in its
 *   display units on its own panel (assets do not share a unit);
 * - channels: each channel's local share of its capacity, in percent.
 * A node with fewer than two snapshots in the window gets no chart: one point draws nothing.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { BalanceSnapshot } from '../balance-report.js';
import type { ChannelSnapshot } from '../channel-report.js';
import type { Unit } from '../types.js';
import { shortId } from '../../vocabulary/index.js';

export interface HistoryPoint<T> {
  takenAt: Date;
  data: T;
}

/** The windows a chart may cover. */
export const CHART_DAYS = [7, 30] as const;
export type ChartDays = (typeof CHART_DAYS)[number];
/** Asset panels per chart, and channel lines: more would not be readable at preview size. */
export const MAX_ASSET_PANELS = 4;
export const MAX_CHANNEL_LINES = 10;

const PANEL_WIDTH = 760;
const PANEL_HEIGHT = 230;

/**
 * The tick format fits the time the history spans, not the window asked for: reports seconds apart
 * read `01:31:07`, hours apart `Nov 27 01:31`, days apart `Nov 27`, so no two ticks read the same (P12).
 */
function timeFormat(spanMs: number): string {
  if (spanMs < 10 * 60_000) return '%H:%M:%S';
  if (spanMs < 5 * 86_400_000) return '%b %d %H:%M';
  return '%b %d';
}

const xAxis = (spanMs: number) => ({
  field: 't',
  type: 'temporal' as const,
  scale: { type: 'utc' as const },
  axis: { title: 'time (UTC)', format: timeFormat(spanMs), labelAngle: 0, tickCount: 6 },
});

/** The time the history spans, first report to last. */
function spanOf<T>(history: Array<HistoryPoint<T>>): number {
  const times = history.map((h) => h.takenAt.getTime());
  return Math.max(...times) - Math.min(...times);
}

/**
 * A y scale from 0: when every value is 0, a fixed 0–1 domain, since an empty domain makes the
 * axis's SI format read `NaN` (P12).
 */
const yScale = (values: number[]) => (values.some((v) => v !== 0) ? { zero: true } : { domain: [0, 1] });

function enough<T>(history: Array<HistoryPoint<T>>): boolean {
  return new Set(history.map((h) => h.takenAt.getTime())).size >= 2;
}

const num = (v: string | undefined) => Number(v ?? '0');

export function balanceChartSpec(
  node: string,
  history: Array<HistoryPoint<BalanceSnapshot>>,
  o: { unit: Unit; days: ChartDays },
): TopLevelSpec | undefined {
  if (!enough(history)) return undefined;
  const btcDiv = o.unit === 'btc' ? 1e8 : 1;
  const span = spanOf(history);
  const unitLabel = o.unit === 'btc' ? 'BTC' : 'sats';
  const btcRows = history.flatMap((h) => {
    const v = h.data.values;
    const t = h.takenAt.toISOString();
    return [
      { t, series: 'on-chain (settled)', value: (num(v['btc.vanilla.settled']) + num(v['btc.colored.settled'])) / btcDiv },
      { t, series: 'Lightning local', value: num(v['ln.local']) / btcDiv },
      { t, series: 'Lightning remote', value: num(v['ln.receivable']) / btcDiv },
    ];
  });
  // Each asset: its spendable amount in display units (raw / 10^precision), on its own panel.
  const assets = new Map<string, { label: string; precision: number }>();
  for (const h of history) {
    for (const [key, meta] of Object.entries(h.data.labels)) {
      const m = /^asset:(.+):spendable$/.exec(key);
      if (m) assets.set(m[1], { label: meta.label.replace(/ spendable$/, ''), precision: meta.precision });
    }
  }
  // Two assets with one ticker get their short ids, as the report's table shows them (P11).
  const labelCount = new Map<string, number>();
  for (const a of assets.values()) labelCount.set(a.label, (labelCount.get(a.label) ?? 0) + 1);
  for (const [id, a] of assets) if ((labelCount.get(a.label) ?? 0) > 1) a.label = `${a.label} · ${shortId(id, 14)}`;
  const assetPanels = [...assets.entries()]
    .sort((a, b) => a[1].label.localeCompare(b[1].label))
    .slice(0, MAX_ASSET_PANELS)
    .map(([id, meta]) => {
      const values = history.map((h) => ({
        t: h.takenAt.toISOString(),
        value: num(h.data.values[`asset:${id}:spendable`]) / 10 ** Math.max(0, meta.precision),
      }));
      return {
        title: `${meta.label} (display units)`,
        width: PANEL_WIDTH,
        height: Math.round(PANEL_HEIGHT * 0.6),
        data: { values },
        mark: { type: 'line' as const, point: true, color: '#7b4fb3' },
        encoding: {
          x: xAxis(span),
          y: {
            field: 'value',
            type: 'quantitative' as const,
            scale: yScale(values.map((v) => v.value)),
            axis: { title: meta.label, format: '~s' },
          },
        },
      };
    });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Balances of ${node}, last ${o.days} days`,
    vconcat: [
      {
        width: PANEL_WIDTH,
        height: PANEL_HEIGHT,
        data: { values: btcRows },
        mark: { type: 'line', point: true },
        encoding: {
          x: xAxis(span),
          y: {
            field: 'value',
            type: 'quantitative',
            scale: yScale(btcRows.map((r) => r.value)),
            axis: { title: unitLabel, format: o.unit === 'btc' ? '.4~f' : '~s' },
          },
          color: {
            field: 'series',
            type: 'nominal',
            title: 'bitcoin',
            scale: { domain: ['on-chain (settled)', 'Lightning local', 'Lightning remote'], range: ['#f2a900', '#2e7dd7', '#3aa655'] },
          },
        },
      },
      ...assetPanels,
    ],
  };
}

/** `perNode`: each line is a node (its channels together, see account-history.ts), not a channel. */
export function channelChartSpec(
  node: string,
  history: Array<HistoryPoint<ChannelSnapshot>>,
  o: { days: ChartDays; perNode?: boolean },
): TopLevelSpec | undefined {
  if (!enough(history)) return undefined;
  const latest = history[history.length - 1].data.channels;
  // The channels open now, largest first: those are the ones someone rebalances.
  const ids = Object.keys(latest)
    .sort((a, b) => num(latest[b].capacity) - num(latest[a].capacity))
    .slice(0, MAX_CHANNEL_LINES);
  if (!ids.length) return undefined;
  const label = (id: string) => (o.perNode ? latest[id].peer.slice(0, 24) : `${latest[id].peer.slice(0, 18)} · ${id.slice(0, 8)}`);
  const rows = history.flatMap((h) =>
    ids
      .filter((id) => h.data.channels[id] && num(h.data.channels[id].capacity) > 0)
      .map((id) => ({
        t: h.takenAt.toISOString(),
        channel: label(id),
        share: (100 * num(h.data.channels[id].local)) / num(h.data.channels[id].capacity),
      })),
  );
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: o.perNode
      ? `Local share of each of ${node} (its channels together), last ${o.days} days`
      : `Local share of each channel of ${node}, last ${o.days} days`,
    width: PANEL_WIDTH,
    height: PANEL_HEIGHT + 60,
    data: { values: rows },
    mark: { type: 'line', point: true },
    encoding: {
      x: xAxis(spanOf(history)),
      y: { field: 'share', type: 'quantitative', scale: { domain: [0, 100] }, axis: { title: 'local share (%)' } },
      color: { field: 'channel', type: 'nominal', title: o.perNode ? 'node' : 'channel (peer · id)' },
    },
  };
}
