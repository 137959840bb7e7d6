/** What the activity poller is given, what it gives `publish`, and what it answers to (create-activity-poller.ts). */
import type { HostedNode } from '../hosting/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ActivityStateRepo } from '../store/index.js';
import type { ActivityNodeApi } from './read-activity.js';
import type { ActivityEvent, ActivitySnapshot, LiquidityThresholds } from './types.js';
import type { WatchNodeApi } from './read-watch-facts.js';
import type { WatchProfile } from './watch-thresholds.js';
import type { NodeFacts } from './watch-conditions.js';

export interface ActivityPollerOptions {
  /** The account's nodes (hosting.listNodes). */
  listNodes(): Promise<HostedNode[]>;
  /** Whether any watch hears activity of this node. */
  isWatched(node: HostedNode): boolean | Promise<boolean>;
  api(node: HostedNode): ActivityNodeApi & WatchNodeApi;
  /** The kinds the node's watches hear and their thresholds (default: the activity kinds, default thresholds). */
  profile?(node: HostedNode): WatchProfile | Promise<WatchProfile>;
  /** What the `backup` kind needs besides the node's API (its backups and upgrades); read at the slower cadence. */
  facts?(node: HostedNode): Promise<NodeFacts>;
  states: ActivityStateRepo;
  /** Called with what changed on a node, before its new state is stored (see the header). */
  publish(node: HostedNode, events: ActivityEvent[], context: PublishContext): Promise<void> | void;
  metrics?: Metrics;
  now(): number;
  logger: Logger;
  /** Default 30 000 ms (POLL_INTERVAL_S). */
  intervalMs?: number;
  /** The most nodes read at once; below it, the poller sizes its concurrency from the measured poll time. Default 64. */
  maxConcurrency?: number;
  /** How long one node may take to answer a whole poll. Default 10 000 ms. */
  nodeTimeoutMs?: number;
  /** A locked or unreachable node is polled at most every `maxBackoff` intervals. Default 8. */
  maxBackoff?: number;
  thresholds?: LiquidityThresholds;
  /**
   * Takes the node for this replica until `until` (false: another replica polls it now).
   * Without it (one process), every node is this process's.
   */
  claim?(nodeId: string, until: number, now: number): Promise<boolean>;
}

export interface PublishContext {
  /** When the state the events were compared with was taken (part of their dedupe keys). */
  since: number;
  /** The snapshot just taken (with what the node could not tell carried over). */
  snapshot: ActivitySnapshot;
  /** The name of one of our nodes by its pubkey, whether or not a watch hears it. */
  nameOf(pubkey: string): string | undefined;
}

export interface ActivityPoller {
  start(): void;
  stop(): Promise<void>;
  /** Reads the account again and polls every node that is due, or whose last poll failed, now (tests); resolves when they are done. */
  pollOnce(): Promise<void>;
  /** The node's next poll makes the slower checks too (infra, backup, refresh) and comes at once (the demo's faults). */
  checkSoon(nodeId: string): void;
}
