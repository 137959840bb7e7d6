/** What the report builders work on: a node's data as gathered, or the reason there is none. */
import type { HostedNode } from '../hosting/index.js';
import type { Message } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';

export type ReportKind = 'balance' | 'channels' | 'digest';
export type Unit = 'sat' | 'btc';

export interface BtcBuckets {
  settled: bigint;
  future: bigint;
  spendable: bigint;
}

export interface AssetBalanceLine {
  assetId: string;
  /** Ticker, or the name for CFA (and anything without a ticker). */
  label: string;
  schema: 'Nia' | 'Uda' | 'Cfa';
  precision: number;
  spendable: bigint;
  settled: bigint;
  outbound: bigint;
  inbound: bigint;
}

export interface NodeHeader {
  network?: string;
  height?: bigint;
}

export interface BalanceData extends NodeHeader {
  btc: { vanilla: BtcBuckets; colored: BtcBuckets };
  ln: { local: bigint; sendable: bigint; receivable: bigint };
  assets: AssetBalanceLine[];
}

export type ChannelState = 'usable' | 'not_usable' | 'opening' | 'closing';

export interface ChannelLine {
  channelId: string;
  peer: string;
  peerPubkey: string;
  state: ChannelState;
  public: boolean;
  capacitySat: bigint;
  localSat: bigint;
  sendableSat: bigint;
  receivableSat: bigint;
  asset?: { assetId: string; label: string; precision: number; local: bigint; remote: bigint };
}

export interface ChannelData extends NodeHeader {
  channels: ChannelLine[];
}

export type NodeOutcome<T> = { ok: true; node: HostedNode; data: T } | { ok: false; node: HostedNode; problem: string; hint?: string };

/** What one report run produced. */
export interface ReportResult {
  message: Message;
  /** Nodes that answered and nodes that did not. */
  answered: number;
  failed: number;
}

/**
 * Which nodes the asker may read (a grant scoped to some nodes): `all` means those, and naming
 * another is refused. Absent: every node.
 */
export type ReadableNode = (node: Pick<HostedNode, 'name' | 'nodeId'>) => boolean;

export interface ReportOptions {
  unit?: Unit;
  readable?: ReadableNode;
  /** Days of history the report's chart covers (7 or 30); 0 draws no chart. Default 7. */
  chartDays?: 0 | 7 | 30;
  /** IANA zone used for times in the report. Default UTC. */
  timeZone?: string;
  /** Whose last report the change is counted from: '' (reports asked in chat) or `schedule:<id>`. */
  baseline?: string;
  /** The channel the report goes to: the digest lists that channel's incidents. */
  place?: { platform: Platform; channelId: string };
  /** Told each time a node has been read (or given up on): how many of how many, for a progress message. */
  onProgress?: (done: number, total: number) => void;
}

export interface ScheduleInfo {
  id: number;
  kind: ReportKind;
  node: string;
  cron: string;
  timezone: string;
  unit: Unit;
  platform: Platform;
  channelId: string;
  createdBy: string;
  /** Undefined when it will never run again (or the scheduler is stopped and it cannot tell). */
  nextRun?: Date;
}
