/**
 * The chart files of a report: one PNG per node reported on in detail (at most DETAIL_MAX_NODES),
 * drawn from that node's snapshots over the window; over more nodes, one PNG for them all (the
 * account's totals, or each node's overall local share: account-history.ts), rendered before the report is queued so the
 * outbox row carries the bytes. A chart that cannot be drawn is left out with a note, never
 * failing the report.
 */
import { messageFile, type MessageFile } from '../../vocabulary/index.js';
import type { HostedNode } from '../../hosting/index.js';
import type { Logger } from '../../log.js';
import type { SnapshotKind, SnapshotRepo } from '../../store/index.js';
import type { BalanceSnapshot } from '../balance-report.js';
import type { ChannelSnapshot } from '../channel-report.js';
import type { Unit } from '../types.js';
import type { TopLevelSpec } from 'vega-lite';
import { DETAIL_MAX_NODES } from '../balance-report.js';
import { accountBalanceHistory, nodeShareHistory } from './account-history.js';
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

export async function reportCharts(
  req: ChartRequest,
  d: { snapshots: SnapshotRepo; logger: Logger },
): Promise<{ files: MessageFile[]; notes: string[] }> {
  const files: MessageFile[] = [];
  const notes: string[] = [];
  /** Renders one chart into `files`; one that cannot be drawn is a note instead. */
  const draw = async (spec: TopLevelSpec, c: { name: string; subject: string; nodeId?: string; nodes?: number }) => {
    try {
      const chart = await renderChart(spec);
      const each = c.nodes ? 'node (its channels together)' : 'channel';
      files.push(
        messageFile({
          name: c.name,
          mime: 'image/png',
          bytes: chart.png,
          title: `${req.kind === 'balance' ? 'Balances' : 'Channel local shares'} of ${c.subject}, last ${req.days} days`,
          alt:
            req.kind === 'balance'
              ? `Line chart of ${c.nodes ? `the total of ${c.subject}` : `${c.subject}'s`} on-chain, Lightning local and remote balances (${req.unit === 'btc' ? 'BTC' : 'sats'}) and each asset in display units over the last ${req.days} days`
              : `Line chart of the local share (%) of each ${each} of ${c.subject} over the last ${req.days} days`,
          width: chart.width,
          height: chart.height,
        }),
      );
    } catch (e) {
      d.logger.warn({ err: e, nodeId: c.nodeId, kind: req.kind }, 'reports: a chart could not be drawn');
      notes.push(`The chart of ${c.subject} could not be drawn; the numbers above are complete.`);
    }
  };
  const since = new Date(req.now.getTime() - req.days * DAY_MS);
  if (req.nodes.length > DETAIL_MAX_NODES) {
    const all = `all ${req.nodes.length} nodes`;
    const spec =
      req.kind === 'balance'
        ? balanceChartSpec(
            all,
            accountBalanceHistory(
              await Promise.all(req.nodes.map((n) => d.snapshots.history<BalanceSnapshot>(n.nodeId, 'balance', since))),
            ),
            { unit: req.unit, days: req.days },
          )
        : channelChartSpec(
            `${req.nodes.length} nodes`,
            nodeShareHistory(
              await Promise.all(
                req.nodes.map(async (n) => ({
                  nodeId: n.nodeId,
                  name: n.name,
                  history: await d.snapshots.history<ChannelSnapshot>(n.nodeId, 'channels', since),
                })),
              ),
            ),
            { days: req.days, perNode: true },
          );
    if (spec) await draw(spec, { name: `${req.kind}-all-${req.days}d.png`, subject: all, nodes: req.nodes.length });
    return { files, notes };
  }
  for (const node of req.nodes) {
    const spec =
      req.kind === 'balance'
        ? balanceChartSpec(node.name, await d.snapshots.history<BalanceSnapshot>(node.nodeId, 'balance', since), {
            unit: req.unit,
            days: req.days,
          })
        : channelChartSpec(node.name, await d.snapshots.history<ChannelSnapshot>(node.nodeId, 'channels', since), { days: req.days });
    if (spec)
      await draw(spec, {
        name: `${req.kind}-${node.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${req.days}d.png`,
        subject: node.name,
        nodeId: node.nodeId,
      });
  }
  return { files, notes };
}
