/**
 * What the status dashboard shows of each node (`/rln status`, Slack's App Home): its hosting
 * status, whether its wallet is unlocked, on-chain and Lightning balances, usable channels, and
 * when it was last reported on.
 *
 * Only the page shown is read. The order (by name) and the page come from the service's node
 * list alone, so a page of 8 nodes costs 8 nodes' calls whatever the size of the account. Each
 * shown node is asked through the call scheduler with a short deadline, so one slow node delays
 * the page by that deadline at most and never hides the others. When a node cannot answer now,
 * its last known figures are shown with their age: the lock state and channels from the activity
 * poller's last pass, the on-chain balance from the last balance report.
 */
import type { HostedNode } from '../hosting/index.js';
import { walletStateOf, type CallScheduler } from '../node-api/index.js';
import type { ActivityStateRepo, SnapshotRepo } from '../store/index.js';
import type { ReportNodeApi } from './node-api-shape.js';
import { big } from './node-api-shape.js';
import { problemFromError, problemFromStatus } from './describe-node-problem.js';
import type { BalanceSnapshot } from './balance-report.js';
import type { ReadableNode } from './types.js';

export type LockState = 'unlocked' | 'locked' | 'not initialised' | 'unknown';

/** When a figure was taken, when it is not from a read made for this page. */
export interface Freshness {
  lock?: Date;
  onchain?: Date;
  /** Lightning balances and channels. */
  channels?: Date;
}

export interface DashboardNode {
  node: HostedNode;
  lock: LockState;
  /** Why the numbers are missing (or old), when they are. */
  problem?: string;
  onchainSat?: bigint;
  lnLocalSat?: bigint;
  lnRemoteSat?: bigint;
  channelsUsable?: number;
  channelsTotal?: number;
  /** The newest balance or channel report of this node (shown nodes only). */
  lastReportAt?: Date;
  /** True for a node outside the page asked for: nothing of it was read. */
  unread?: boolean;
  /** The figures that come from the poller or a stored report rather than a read now, with when they were taken. */
  asOf?: Freshness;
}

export interface DashboardPage {
  /** 1-based; clamped to the pages there are. */
  page?: number;
  pageSize: number;
  /** Only these nodes are listed (a grant scoped to some nodes); absent: every node. */
  readable?: ReadableNode;
}

export interface DashboardDeps {
  nodeApi(node: HostedNode): ReportNodeApi;
  snapshots: SnapshotRepo;
  /** What the activity poller kept of each node at its last pass. */
  states?: Pick<ActivityStateRepo, 'get'>;
  calls: CallScheduler;
  timeoutMs: number;
}

type Figures = Pick<DashboardNode, 'onchainSat' | 'lnLocalSat' | 'lnRemoteSat' | 'channelsUsable' | 'channelsTotal'>;

async function readNode(api: ReportNodeApi): Promise<Figures> {
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

/** The nodes of one page, in the dashboard's order (by name): decided from the node list alone. */
export function dashboardOrder(nodes: HostedNode[]): HostedNode[] {
  return [...nodes].sort((a, b) => a.name.localeCompare(b.name));
}

/** The index range of a page (clamped to the pages there are, as the message does). */
export function pageRange(total: number, p: DashboardPage): { start: number; end: number } {
  const size = Math.max(1, p.pageSize);
  const pages = Math.max(1, Math.ceil(total / size));
  const page = Math.min(Math.max(1, p.page ?? 1), pages);
  return { start: (page - 1) * size, end: Math.min(total, page * size) };
}

interface PolledState {
  takenAt: number;
  lock: 'uninitialised' | 'locked' | 'unlocked' | 'unreachable';
  channels?: Array<{ usable: boolean; localMsat: string; remoteMsat: string }>;
}

/** The poller's last snapshot of the node (activity/types.ts's ActivityState), read defensively: it is stored JSON. */
function polledOf(stored: unknown): PolledState | undefined {
  const s = stored && typeof stored === 'object' ? (stored as { snapshot?: unknown }).snapshot : undefined;
  if (!s || typeof s !== 'object') return undefined;
  const snap = s as Partial<PolledState>;
  return typeof snap.takenAt === 'number' && typeof snap.lock === 'string' ? (snap as PolledState) : undefined;
}

/** A stored decimal string (amounts are kept exact as text), 0 when absent or not a number. */
function amountOf(v: unknown): bigint {
  if (typeof v !== 'string' && typeof v !== 'number') return 0n;
  try {
    return BigInt(v);
  } catch {
    return 0n;
  }
}

const LOCK_OF: Record<PolledState['lock'], LockState> = {
  unlocked: 'unlocked',
  locked: 'locked',
  uninitialised: 'not initialised',
  unreachable: 'unknown',
};

/** The last figures known of a node that cannot answer now, each with when it was taken. */
async function lastKnown(node: HostedNode, d: DashboardDeps): Promise<Figures & { lock?: LockState; asOf: Freshness }> {
  const [stored, balance] = await Promise.all([
    d.states?.get(node.nodeId).catch(() => undefined),
    d.snapshots.latest<BalanceSnapshot>(node.nodeId, 'balance').catch(() => undefined),
  ]);
  const out: Figures & { lock?: LockState; asOf: Freshness } = { asOf: {} };
  const polled = polledOf(stored);
  if (polled && polled.lock !== 'unreachable') {
    out.lock = LOCK_OF[polled.lock];
    out.asOf.lock = new Date(polled.takenAt);
  }
  if (polled?.channels) {
    const list = polled.channels;
    out.lnLocalSat = list.reduce((sum, c) => sum + amountOf(c.localMsat), 0n) / 1000n;
    out.lnRemoteSat = list.reduce((sum, c) => sum + amountOf(c.remoteMsat), 0n) / 1000n;
    out.channelsUsable = list.filter((c) => c.usable).length;
    out.channelsTotal = list.length;
    out.asOf.channels = new Date(polled.takenAt);
  }
  const values = balance?.data.values;
  if (values && balance) {
    out.onchainSat = amountOf(values['btc.vanilla.spendable']) + amountOf(values['btc.colored.spendable']);
    out.asOf.onchain = balance.takenAt;
  }
  return out;
}

async function dashboardRow(node: HostedNode, d: DashboardDeps): Promise<DashboardNode> {
  // Any report of the node, asked in chat or run by a schedule (each schedule keeps its own scope: P13).
  const lastReportAt = await d.snapshots.lastTakenAt(node.nodeId);
  const known = problemFromStatus(node);
  if (known) return { node, lock: 'unknown', problem: known.problem, lastReportAt };
  try {
    const figures = await d.calls.run(node.nodeId, () => readNode(d.nodeApi(node)), { deadlineMs: d.timeoutMs });
    return { node, lock: 'unlocked', lastReportAt, ...figures };
  } catch (e) {
    const wallet = walletStateOf(e);
    const lock: LockState = wallet === 'locked' ? 'locked' : wallet === 'uninitialised' ? 'not initialised' : 'unknown';
    if (lock !== 'unknown') return { node, lock, lastReportAt };
    // It did not answer now: what the poller and the last report knew, with their age.
    const { lock: before, asOf, ...figures } = await lastKnown(node, d);
    const hasAny = Object.keys(asOf).length > 0;
    return {
      node,
      lock: before ?? 'unknown',
      problem: problemFromError(node, e).problem,
      lastReportAt,
      ...figures,
      ...(hasAny ? { asOf } : {}),
    };
  }
}

/**
 * Every node of the account in the dashboard's order; only those of the page asked for are read
 * (the others have `unread: true` and no figures).
 */
export async function gatherDashboard(nodes: HostedNode[], page: DashboardPage, d: DashboardDeps): Promise<DashboardNode[]> {
  const sorted = dashboardOrder(page.readable ? nodes.filter(page.readable) : nodes);
  const { start, end } = pageRange(sorted.length, page);
  const shown = await Promise.all(sorted.slice(start, end).map((node) => dashboardRow(node, d)));
  return sorted.map((node, i) => (i >= start && i < end ? shown[i - start] : { node, lock: 'unknown', unread: true }));
}
