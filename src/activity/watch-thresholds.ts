/**
 * The thresholds of the watch kinds: the account's settings are the defaults, a watch may set its
 * own (`watch add alice kinds=utxos utxos_below=5`). When several watches hear one node, the most
 * sensitive value of each applies to the node (the node is read once per interval for all of them).
 */
import type { ActivityKind } from './types.js';

export interface WatchThresholds {
  /** A channel's local share below this is low (liquidity; 0–1). */
  liquidityLow: number;
  /** A transfer still waiting after this many minutes is stuck (transfers). */
  stuckAfterMin: number;
  /** A waiting transfer this many minutes from its expiry is told (transfers). */
  expiryWithinMin: number;
  /** Fewer free colourable UTXOs than this is low (utxos). */
  utxosBelow: number;
  /** A channel peer disconnected this many minutes is gone (peers). */
  peerGoneMin: number;
  /** This many failed polls in a row while RUNNING is an API down (liveness). */
  livenessAfter: number;
  /** No backup in this many days is told (backup). */
  backupDays: number;
  /** The indexer and proxy the infra kind checks; unset: not checked. */
  indexerUrl?: string;
  proxyEndpoint?: string;
  /** The infra and backup checks (and the refresh of waiting transfers) run every this many polls. */
  slowEvery: number;
}

export const DEFAULT_WATCH_THRESHOLDS: WatchThresholds = {
  liquidityLow: 0.2,
  stuckAfterMin: 60,
  expiryWithinMin: 30,
  utxosBelow: 2,
  peerGoneMin: 10,
  livenessAfter: 3,
  backupDays: 7,
  slowEvery: 10,
};

/** What a watch may set with `key=value`, in the units people type. */
export const WATCH_THRESHOLD_ARGS = {
  liquidity_low: 'liquidityLow',
  stuck_after: 'stuckAfterMin',
  expiry_within: 'expiryWithinMin',
  utxos_below: 'utxosBelow',
  peer_gone_after: 'peerGoneMin',
  liveness_after: 'livenessAfter',
  backup_days: 'backupDays',
  indexer_url: 'indexerUrl',
  proxy_endpoint: 'proxyEndpoint',
} as const satisfies Record<string, keyof WatchThresholds>;

/** What a watch stores: only what it set itself. */
export type OwnThresholds = Partial<Omit<WatchThresholds, 'slowEvery'>>;

/** What the poller needs to know of a node: the kinds its watches hear and their thresholds. */
export interface WatchProfile {
  kinds: ReadonlySet<ActivityKind | 'status'>;
  thresholds: WatchThresholds;
}

/** For each number, the most sensitive of the watches' own values (or the default); the first URL given. */
export function mergeThresholds(defaults: WatchThresholds, own: OwnThresholds[]): WatchThresholds {
  const t = { ...defaults };
  const most = (key: keyof OwnThresholds, pick: (a: number, b: number) => number) => {
    const values = own.map((o) => o[key]).filter((v): v is number => typeof v === 'number');
    if (values.length) (t as Record<string, unknown>)[key] = values.reduce((a, b) => pick(a, b));
  };
  // Sensitive: a higher floor, a shorter wait.
  most('liquidityLow', Math.max);
  most('utxosBelow', Math.max);
  most('expiryWithinMin', Math.max);
  most('stuckAfterMin', Math.min);
  most('peerGoneMin', Math.min);
  most('livenessAfter', Math.min);
  most('backupDays', Math.min);
  t.indexerUrl = own.find((o) => o.indexerUrl)?.indexerUrl ?? defaults.indexerUrl;
  t.proxyEndpoint = own.find((o) => o.proxyEndpoint)?.proxyEndpoint ?? defaults.proxyEndpoint;
  return t;
}
