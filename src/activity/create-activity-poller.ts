/**
 * The activity poller: every `intervalMs`, reads the API of each node that a watch hears
 * activity of, with bounded concurrency and a per-node time limit, compares with the last state
 * kept in the store, keeps the new one and hands what changed to `publish`.
 *
 * - A paused (or otherwise not running) node is not polled: it goes quiet until it runs again.
 * - A node that does not answer is polled less and less often (doubling, up to `maxBackoff`
 *   intervals), and at the normal rate again as soon as it answers. A locked node answers at once
 *   and is polled at the normal rate, so an unlock between two polls of it is not missed.
 * - `publish` is awaited BEFORE the new state is stored: what changed is queued durably first
 *   (at least once). If the bot dies in between, the next poll finds the same change against
 *   the same stored state and publishes it again with the same keys (activityEventKey), which
 *   the outbox takes as duplicates: nothing is lost, nothing is posted twice. Storing the state
 *   first would lose the event instead. The first poll of a node only records (a restart or a
 *   new watch never re-announces history), except a node found locked, which is told.
 * - Several replicas on one database split the nodes: before polling a node, a replica claims
 *   it for most of an interval (`claim`, a lease in the store); a node another replica has
 *   claimed is left to it. Each node is polled once per interval in all, never once per replica.
 * - The watch kinds (`profile`: which kinds a node's watches hear, their thresholds) add their
 *   reads for the kinds heard only (read-watch-facts.ts), the slower ones every `slowEvery` polls,
 *   and alert once per episode of a condition with a recovery when it ends (watch-step.ts). A node
 *   whose API stops answering while watched for `liveness` is polled again after a quarter
 *   interval until it has failed `livenessAfter` times, so the alert comes within an interval.
 */
import type { HostedNode } from '../hosting/index.js';
import { every, withDeadline } from '../vocabulary/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ActivityStateRepo } from '../store/index.js';
import { diffActivity } from './diff-activity.js';
import { readActivity, type ActivityNodeApi } from './read-activity.js';
import { DEFAULT_LIQUIDITY, type ActivityEvent, type ActivitySnapshot, type ActivityState, type LiquidityThresholds } from './types.js';
import { readWatchFacts, refreshWaiting, type WatchNodeApi } from './read-watch-facts.js';
import { watchStep } from './watch-step.js';
import { DEFAULT_WATCH_THRESHOLDS, type WatchProfile } from './watch-thresholds.js';
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
  /** The name of one of our nodes by its pubkey, whether or not a watch hears it. */
  nameOf(pubkey: string): string | undefined;
}

const LEGACY: WatchProfile = {
  kinds: new Set(['channels', 'payments', 'transfers', 'deposits', 'liquidity', 'lock']),
  thresholds: DEFAULT_WATCH_THRESHOLDS,
};

export interface ActivityPoller {
  start(): void;
  stop(): Promise<void>;
  /** One pass over the nodes that are due (tests; the timer calls it too). */
  pollOnce(): Promise<void>;
  /** The node's next poll makes the slower checks too (infra, backup, refresh) and comes at once (the demo's faults). */
  checkSoon(nodeId: string): void;
}

const isState = (v: unknown): v is ActivityState => !!v && typeof v === 'object' && 'snapshot' in v && 'bands' in v;

export function createActivityPoller(o: ActivityPollerOptions): ActivityPoller {
  const intervalMs = o.intervalMs ?? 30_000;
  const concurrency = Math.max(1, o.concurrency ?? 8);
  const nodeTimeoutMs = o.nodeTimeoutMs ?? 10_000;
  const maxBackoff = Math.max(1, o.maxBackoff ?? 8);
  const thresholds = o.thresholds ?? DEFAULT_LIQUIDITY;
  /** Per node: how many polls in a row found it locked or unreachable, when it is next due, and polls so far (the slower cadence). */
  const backoff = new Map<string, { misses: number; dueAt: number; polls: number; slowNext?: boolean }>();
  /** Our nodes' names by pubkey, learned as they are polled, or asked when an event names a peer (P35). */
  const names = new Map<string, string>();
  /** The nodes whose pubkey is known (a pubkey does not change). */
  const named = new Set<string>();
  const nameOf = (pubkey: string) => names.get(pubkey.toLowerCase());
  let account: HostedNode[] = [];

  /** Asks the running nodes not yet named for their pubkey, so that an alert says `bob`, not `02c8…`. */
  async function learnNames(): Promise<void> {
    const unknown = account.filter((n) => n.status === 'RUNNING' && n.invoke_url && !named.has(n.nodeId));
    await Promise.all(
      unknown.map(async (n) => {
        let timeout: NodeJS.Timeout | undefined;
        const info = await Promise.race([
          o
            .api(n)
            .nodeinfo()
            .catch(() => undefined),
          new Promise<undefined>((resolve) => {
            timeout = setTimeout(() => resolve(undefined), Math.min(nodeTimeoutMs, 2_000));
          }),
        ]).finally(() => clearTimeout(timeout));
        if (info?.pubkey) {
          names.set(info.pubkey.toLowerCase(), n.name);
          named.add(n.nodeId);
        }
      }),
    );
  }

  /** Reads the node, within the time limit: its activity, then what its watch kinds need. */
  async function read(node: HostedNode, profile: WatchProfile, previous: ActivityState | undefined, slow: boolean, now: number) {
    const api = o.api(node);
    const failures = slow ? await refreshWaiting(api, profile, previous?.snapshot) : undefined;
    const snapshot: ActivitySnapshot = await readActivity(api, now);
    if (snapshot.lock !== 'unlocked') return snapshot;
    const [extra, facts] = await Promise.all([
      readWatchFacts(api, profile, slow, now),
      slow && profile.kinds.has('backup') && o.facts ? o.facts(node).catch(() => undefined) : undefined,
    ]);
    return { ...snapshot, ...extra, ...(facts ? { backup: facts } : {}), ...(failures ? { transferFailures: failures } : {}) };
  }

  async function pollNode(node: HostedNode): Promise<void> {
    const now = o.now();
    const profile = (await o.profile?.(node)) ?? LEGACY;
    const stored = await o.states.get(node.nodeId);
    const previous = isState(stored) ? stored : undefined;
    const cadence = backoff.get(node.nodeId);
    const slow = !!cadence?.slowNext || (cadence?.polls ?? 0) % Math.max(1, profile.thresholds.slowEvery) === 0;
    let timeout: NodeJS.Timeout | undefined;
    const polled = await Promise.race([
      // Its own budget for the node's calls: an attempt is cut, and no retry starts, past nodeTimeoutMs.
      withDeadline(nodeTimeoutMs, () => read(node, profile, previous, slow, now)),
      new Promise<{ takenAt: number; lock: 'unreachable' }>((resolve) => {
        timeout = setTimeout(() => resolve({ takenAt: now, lock: 'unreachable' }), nodeTimeoutMs);
      }),
    ]).finally(() => clearTimeout(timeout));
    o.metrics?.activityPolls.inc({ outcome: polled.lock });
    o.metrics?.activityPollSeconds.observe(Math.max(0, o.now() - now) / 1000);
    if ('pubkey' in polled && polled.pubkey) {
      names.set(polled.pubkey.toLowerCase(), node.name);
      named.add(node.nodeId);
    }
    const { events, state } = diffActivity(previous, polled, { ...thresholds, lowShare: profile.thresholds.liquidityLow });
    const watched = watchStep(node, previous?.watch, state.snapshot, polled.lock, profile, now);
    // Only a node that does not answer is polled less often: a locked one answers at once, and its
    // unlock (then a lock again) must not fall between two backed-off polls (P49).
    const missed = polled.lock === 'unreachable';
    const misses = missed ? (cadence?.misses ?? 0) + 1 : 0;
    // A node that stopped answering while watched for liveness is asked again soon, until the alert is due.
    const confirming =
      polled.lock === 'unreachable' && profile.kinds.has('liveness') && watched.memory.misses < profile.thresholds.livenessAfter;
    const dueAt = confirming ? now + intervalMs / 4 : now + intervalMs * Math.min(maxBackoff, 2 ** misses) - intervalMs / 2;
    if (confirming) passSoon(intervalMs / 4);
    backoff.set(node.nodeId, { misses, dueAt, polls: (cadence?.polls ?? 0) + 1 });
    // Replicas: the node stays this one's until it is due again, so the others back off with it.
    if (missed) await o.claim?.(node.nodeId, dueAt, now);
    for (const e of [...events, ...watched.events]) o.metrics?.activityEvents.inc({ kind: e.kind });
    const since = previous?.snapshot.takenAt;
    if (events.length || watched.events.length) await learnNames();
    // A first poll's events (a node found locked) are keyed by this poll's time.
    if (events.length) await o.publish(node, events, { since: since ?? polled.takenAt, snapshot: state.snapshot, nameOf });
    // Conditions are the present, not history: a first poll publishes them too, and since 0 keeps
    // their keys stable across a retry.
    if (watched.events.length) await o.publish(node, watched.events, { since: since ?? 0, snapshot: state.snapshot, nameOf });
    await o.states.put(node.nodeId, { ...state, watch: watched.memory }, now);
  }

  /** One extra pass in `ms` (a node to ask again soon), besides the timer's; one at a time. */
  let soonTimer: NodeJS.Timeout | undefined;
  function passSoon(ms: number): void {
    if (soonTimer) return;
    soonTimer = setTimeout(() => {
      soonTimer = undefined;
      void loop.run().catch((err: unknown) => o.logger.error({ err }, 'activity: a poll pass failed'));
    }, ms);
    soonTimer.unref();
  }

  async function pass(): Promise<void> {
    let nodes: HostedNode[];
    try {
      nodes = await o.listNodes();
    } catch (err) {
      o.logger.warn({ err }, 'activity: could not list the nodes; polling again next interval');
      return;
    }
    account = nodes;
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
  let started = false;
  return {
    start: () => {
      started = true;
      loop.start({ now: true });
    },
    stop: () => {
      started = false;
      clearTimeout(soonTimer);
      return loop.stop();
    },
    pollOnce: () => loop.run(),
    checkSoon(nodeId) {
      const b = backoff.get(nodeId);
      backoff.set(nodeId, { misses: b?.misses ?? 0, polls: b?.polls ?? 0, dueAt: 0, slowNext: true });
      if (started) passSoon(0);
    },
  };
}
