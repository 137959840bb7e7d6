/**
 * The history of a report over many nodes (more than are shown one by one), as one chart:
 * the account's totals for a balance report, and each node's overall local share for a channel
 * report. Nodes are reported at different times (a schedule, someone asking), so the history is
 * bucketed by hour and, in each bucket, every node counts with its latest snapshot up to the
 * bucket's end (carried forward): a node not reported in that hour does not drop out of the total.
 */
import type { BalanceSnapshot } from '../balance-report.js';
import type { ChannelSnapshot } from '../channel-report.js';
import type { HistoryPoint } from './history-charts.js';

const HOUR_MS = 3_600_000;

/** For each hour with a snapshot of any node: each node's latest snapshot up to the end of it. */
function carriedForward<T>(histories: Array<Array<HistoryPoint<T>>>): Array<{ at: Date; latest: T[] }> {
  const buckets = [...new Set(histories.flat().map((p) => Math.floor(p.takenAt.getTime() / HOUR_MS)))].sort((a, b) => a - b);
  return buckets.map((b) => {
    const end = (b + 1) * HOUR_MS;
    const latest: T[] = [];
    let at = 0;
    for (const h of histories) {
      let last: HistoryPoint<T> | undefined;
      for (const p of h) if (p.takenAt.getTime() < end) last = p;
      if (last) {
        latest.push(last.data);
        at = Math.max(at, last.takenAt.getTime());
      }
    }
    return { at: new Date(at), latest };
  });
}

const big = (v: string | undefined): bigint => {
  try {
    return BigInt(v ?? '0');
  } catch {
    return 0n;
  }
};

/** The account's totals over time: every number of the balance snapshots, summed over the nodes. */
export function accountBalanceHistory(histories: Array<Array<HistoryPoint<BalanceSnapshot>>>): Array<HistoryPoint<BalanceSnapshot>> {
  return carriedForward(histories).map(({ at, latest }) => {
    const values: Record<string, bigint> = {};
    const labels: BalanceSnapshot['labels'] = {};
    for (const s of latest) {
      for (const [k, v] of Object.entries(s.values)) values[k] = (values[k] ?? 0n) + big(v);
      Object.assign(labels, s.labels);
    }
    return { takenAt: at, data: { values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.toString()])), labels } };
  });
}

/** Each node as one line: its channels' local and capacity summed, so the chart shows its overall local share. */
export function nodeShareHistory(
  histories: Array<{ nodeId: string; name: string; history: Array<HistoryPoint<ChannelSnapshot>> }>,
): Array<HistoryPoint<ChannelSnapshot>> {
  return carriedForward(histories.map((h) => h.history.map((p) => ({ takenAt: p.takenAt, data: { node: h, snap: p.data } })))).map(
    ({ at, latest }) => {
      const channels: ChannelSnapshot['channels'] = {};
      for (const { node, snap } of latest) {
        let capacity = 0n;
        let local = 0n;
        for (const c of Object.values(snap.channels)) {
          capacity += big(c.capacity);
          local += big(c.local);
        }
        if (capacity > 0n)
          channels[node.nodeId] = {
            peer: node.name,
            capacity: capacity.toString(),
            local: local.toString(),
            sendable: '0',
            receivable: '0',
            state: 'usable',
          };
      }
      return { takenAt: at, data: { channels } };
    },
  );
}
