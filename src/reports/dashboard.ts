/**
 * What the status dashboard shows of each node (`/rln status`, Slack's App Home): its hosting
 * status, whether its wallet is unlocked, on-chain and Lightning balances, usable channels, and
 * when it was last reported on. Nodes are asked a few at a time, each with a short timeout, so
 * one slow node delays the dashboard by that timeout at most and never hides the others.
 */
import type { HostedNode } from '../hosting/index.js';
import { walletStateOf } from '../node-api/index.js';
import type { SnapshotRepo } from '../store/index.js';
import type { ReportNodeApi } from './node-api-shape.js';
import { big } from './node-api-shape.js';
import { problemFromError, problemFromStatus } from './describe-node-problem.js';
import { mapLimited, withTimeout } from './map-limited.js';
import { withDeadline } from '../vocabulary/index.js';

export type LockState = 'unlocked' | 'locked' | 'not initialised' | 'unknown';

export interface DashboardNode {
  node: HostedNode;
  lock: LockState;
  /** Why the numbers are missing, when they are. */
  problem?: string;
  onchainSat?: bigint;
  lnLocalSat?: bigint;
  lnRemoteSat?: bigint;
  channelsUsable?: number;
  channelsTotal?: number;
  /** The newest balance or channel report of this node. */
  lastReportAt?: Date;
}

export interface DashboardDeps {
  nodeApi(node: HostedNode): ReportNodeApi;
  snapshots: SnapshotRepo;
  concurrency: number;
  timeoutMs: number;
}

async function readNode(api: ReportNodeApi): Promise<Omit<DashboardNode, 'node' | 'lock' | 'lastReportAt'>> {
  // skip_sync: the dashboard is for a glance; a wallet sync could take longer than the timeout.
  const [btc, chans] = await Promise.all([api.btcbalance({ skip_sync: true }), api.listchannels()]);
  let local = 0n;
  let remote = 0n;
  let usable = 0;
  const list = chans.channels ?? [];
  for (const c of list) {
    local += big(c.local_balance_sat);
    remote += big(c.inbound_balance_msat) / 1000n;
    if (c.is_usable) usable++;
  }
  return {
    onchainSat: big(btc.vanilla?.spendable) + big(btc.colored?.spendable),
    lnLocalSat: local,
    lnRemoteSat: remote,
    channelsUsable: usable,
    channelsTotal: list.length,
  };
}

export async function gatherDashboard(nodes: HostedNode[], d: DashboardDeps): Promise<DashboardNode[]> {
  const sorted = [...nodes].sort((a, b) => a.name.localeCompare(b.name));
  return mapLimited(sorted, d.concurrency, async (node): Promise<DashboardNode> => {
    // Any report of the node, asked in chat or run by a schedule (each schedule keeps its own scope: P13).
    const lastReportAt = await d.snapshots.lastTakenAt(node.nodeId);
    const known = problemFromStatus(node);
    if (known) return { node, lock: 'unknown', problem: known.problem, lastReportAt };
    try {
      return {
        node,
        lock: 'unlocked',
        lastReportAt,
        ...(await withTimeout(
          withDeadline(d.timeoutMs, () => readNode(d.nodeApi(node))),
          d.timeoutMs,
        )),
      };
    } catch (e) {
      const p = problemFromError(node, e);
      const wallet = walletStateOf(e);
      const lock: LockState = wallet === 'locked' ? 'locked' : wallet === 'uninitialised' ? 'not initialised' : 'unknown';
      return { node, lock, problem: lock === 'unknown' ? p.problem : undefined, lastReportAt };
    }
  });
}
