/**
 * The chart files of a report: one PNG per node reported on in detail (at most DETAIL_MAX_NODES),
 * drawn from that node's snapshots over the window, rendered before the report is queued so the
 * outbox row carries the bytes. A chart that cannot be drawn is left out with a note, never
 * failing the report.
 */
import { messageFile, type MessageFile } from '../../core/index.js';
import type { HostedNode } from '../../hosting/index.js';
import type { Logger } from '../../log.js';
import type { SnapshotKind, SnapshotRepo } from '../../store/index.js';
import type { BalanceSnapshot } from '../balance-report.js';
import type { ChannelSnapshot } from '../channel-report.js';
import type { Unit } from '../types.js';
import { balanceChartSpec, channelChartSpec, type ChartDays } from './history-charts.js';
import { renderChart } from './render-chart.js';

const DAY_MS = 86_400_000;

export interface ChartRequest {
  kind: SnapshotKind;
  nodes: HostedNode[];
  unit: Unit;
  days: ChartDays;
  now: Date;
}

export async function reportCharts(req: ChartRequest, d: { snapshots: SnapshotRepo; logger: Logger }): Promise<{ files: MessageFile[]; notes: string[] }> {
  const files: MessageFile[] = [];
  const notes: string[] = [];
  const since = new Date(req.now.getTime() - req.days * DAY_MS);
  for (const node of req.nodes) {
    const spec =
      req.kind === 'balance'
        ? balanceChartSpec(node.name, await d.snapshots.history<BalanceSnapshot>(node.nodeId, 'balance', since), { unit: req.unit, days: req.days })
        : channelChartSpec(node.name, await d.snapshots.history<ChannelSnapshot>(node.nodeId, 'channels', since), { days: req.days });
    if (!spec) continue;
    try {
      const chart = await renderChart(spec);
      const what = req.kind === 'balance' ? 'Balances' : 'Channel local shares';
      files.push(
        messageFile({
          name: `${req.kind}-${node.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${req.days}d.png`,
          mime: 'image/png',
          bytes: chart.png,
          title: `${what} of ${node.name}, last ${req.days} days`,
          alt:
            req.kind === 'balance'
              ? `Line chart of ${node.name}'s on-chain, Lightning local and remote balances (${req.unit === 'btc' ? 'BTC' : 'sats'}) and each asset in display units over the last ${req.days} days`
              : `Line chart of the local share (%) of each channel of ${node.name} over the last ${req.days} days`,
          width: chart.width,
          height: chart.height,
        }),
      );
    } catch (e) {
      d.logger.warn({ err: e, nodeId: node.nodeId, kind: req.kind }, 'reports: a chart could not be drawn');
      notes.push(`The chart of ${node.name} could not be drawn; the numbers above are complete.`);
    }
  }
  return { files, notes };
}
