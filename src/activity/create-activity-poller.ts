/**
 * The activity poller: every `intervalMs`, reads the API of each node that a watch hears
 * activity of, with bounded concurrency and a per-node time limit, compares with the last state
 * kept in the store, keeps the new one and hands what changed to `publish`.
 *
 * - A paused (or otherwise not running) node is not polled: it goes quiet until it runs again.
 * - A node that is locked or does not answer is polled less and less often (doubling, up to
 *   `maxBackoff` intervals), and at the normal rate again as soon as it answers unlocked.
 * - `publish` is awaited BEFORE the new state is stored: what changed is queued durably first
 *   (at least once). If the bot dies in between, the next poll finds the same change against
 *   the same stored state and publishes it again with the same keys (activityEventKey), which
 *   the outbox takes as duplicates: nothing is lost, nothing is posted twice. Storing the state
 *   first would lose the event instead. The first poll of a node only records: a restart or a
 *   new watch never re-announces history.
 * - Several replicas on one database split the nodes: before polling a node, a replica claims
 *   it for most of an interval (`claim`, a lease in the store); a node another replica has
 *   claimed is left to it. Each node is polled once per interval in all, never once per replica.
 */
import type { HostedNode } from '../hosting/index.js';
import { every, withDeadline } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ActivityStateRepo } from '../store/index.js';
import { diffActivity } from './diff-activity.js';
import { readActivity, type ActivityNodeApi } from './read-activity.js';
import { DEFAULT_LIQUIDITY, type ActivityEvent, type ActivitySnapshot, type ActivityState, type LiquidityThresholds } from './types.js';

export interface ActivityPollerOptions {
  /** The account's nodes (hosting.listNodes). */
  listNodes(): Promise<HostedNode[]>;
  /** Whether any watch hears activity of this node. */
  isWatched(node: HostedNode): boolean | Promise<boolean>;
  api(node: HostedNode): ActivityNodeApi;
  states: ActivityStateRepo;
  /** Called with what changed on a node, before its new state is stored (see the header). */
  publish(node: HostedNode, events: ActivityEvent[], context: PublishContext): Promise<void> | void;
  metrics?: Metrics;
  now(): number;
  logger: Logger;
  /** Default 30 000 ms (POLL_INTERVAL_S). */
  intervalMs?: number;
  /** Nodes read at once. Default 8. */
  concurrency?: number;
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
  /** The name of one of our nodes by its pubkey, if it was polled. */
  nameOf(pubkey: string): string | undefined;
}

export interface ActivityPoller {
  start(): void;
  stop(): Promise<void>;
  /** One pass over the nodes that are due (tests; the timer calls it too). */
  pollOnce(): Promise<void>;
}

const isState = (v: unknown): v is ActivityState => !!v && typeof v === 'object' && 'snapshot' in v && 'bands' in v;

export function createActivityPoller(o: ActivityPollerOptions): ActivityPoller {
  const intervalMs = o.intervalMs ?? 30_000;
  const concurrency = Math.max(1, o.concurrency ?? 8);
  const nodeTimeoutMs = o.nodeTimeoutMs ?? 10_000;
  const maxBackoff = Math.max(1, o.maxBackoff ?? 8);
  const thresholds = o.thresholds ?? DEFAULT_LIQUIDITY;
  /** Per node: how many polls in a row found it locked or unreachable, and when it is next due. */
  const backoff = new Map<string, { misses: number; dueAt: number }>();
  /** Our nodes' names by pubkey, learned as they are polled. */
  const names = new Map<string, string>();
  const nameOf = (pubkey: string) => names.get(pubkey);

  async function pollNode(node: HostedNode): Promise<void> {
    const now = o.now();
    let timeout: NodeJS.Timeout | undefined;
    const polled = await Promise.race([
      // Its own budget for the node's calls: an attempt is cut, and no retry starts, past nodeTimeoutMs.
      withDeadline(nodeTimeoutMs, () => readActivity(o.api(node), now)),
      new Promise<{ takenAt: number; lock: 'unreachable' }>((resolve) => {
        timeout = setTimeout(() => resolve({ takenAt: now, lock: 'unreachable' }), nodeTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timeout));
    o.metrics?.activityPolls.inc({ outcome: polled.lock });
    o.metrics?.activityPollSeconds.observe(Math.max(0, o.now() - now) / 1000);
    if ('pubkey' in polled && polled.pubkey) names.set(polled.pubkey, node.name);
    const stored = await o.states.get(node.nodeId);
    const previous = isState(stored) ? stored : undefined;
    const { events, state } = diffActivity(previous, polled, thresholds);
    const missed = polled.lock === 'unreachable' || polled.lock === 'locked';
    const misses = missed ? (backoff.get(node.nodeId)?.misses ?? 0) + 1 : 0;
    const dueAt = now + intervalMs * Math.min(maxBackoff, 2 ** misses) - intervalMs / 2;
    backoff.set(node.nodeId, { misses, dueAt });
    // Replicas: the node stays this one's until it is due again, so the others back off with it.
    if (missed) await o.claim?.(node.nodeId, dueAt, now);
    if (events.length && previous) {
      for (const e of events) o.metrics?.activityEvents.inc({ kind: e.kind });
      await o.publish(node, events, { since: previous.snapshot.takenAt, snapshot: state.snapshot, nameOf });
    }
    await o.states.put(node.nodeId, state, now);
  }

  async function pass(): Promise<void> {
    let nodes: HostedNode[];
    try {
      nodes = await o.listNodes();
    } catch (err) {
      o.logger.warn({ err }, 'activity: could not list the nodes; polling again next interval');
      return;
    }
    try {
      await pollDue(nodes);
    } catch (err) {
      // The store did not answer (a database outage): this pass is lost, the next one tries again.
      o.logger.warn({ err }, 'activity: a poll pass failed; polling again next interval');
    }
  }

  async function pollDue(nodes: HostedNode[]): Promise<void> {
    const now = o.now();
    const due: HostedNode[] = [];
    for (const n of nodes) {
      if (n.status === 'RUNNING' && n.invoke_url && (backoff.get(n.nodeId)?.dueAt ?? 0) <= now && (await o.isWatched(n))) due.push(n);
    }
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const node = due[next++];
        try {
          // Claimed for 80% of an interval: free again before this replica's or another's next pass.
          if (o.claim && !(await o.claim(node.nodeId, o.now() + intervalMs * 0.8, o.now()))) continue;
          await pollNode(node);
        } catch (err) {
          o.metrics?.activityPolls.inc({ outcome: 'failed' });
          o.logger.warn({ err, nodeId: node.nodeId }, 'activity: polling a node failed');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
    await o.states.removeExcept(nodes.map((n) => n.nodeId));
  }

  const loop = every(pass, intervalMs, (err) => o.logger.error({ err }, 'activity: a poll pass failed'));
  return { start: () => loop.start({ now: true }), stop: () => loop.stop(), pollOnce: () => loop.run() };
}
