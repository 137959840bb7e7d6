/**
 * The activity poller: once per `intervalMs`, reads the API of each node that a watch hears
 * activity of, within a per-node time limit, compares with the last state kept in the store, keeps
 * the new one and hands what changed to `publish`.
 *
 * - Paced, not in bursts: each watched node has a slot, a phase of its own in the interval (the
 *   nodes found together are spread evenly over it), and is polled at its slot, one poll at a time
 *   per node. How many polls run at once is sized from the rate needed and the measured poll time
 *   (Little's law, poll-pacer.ts), bounded by `maxConcurrency`. A node polled late keeps its phase
 *   (its next slot comes sooner); missed intervals and overdue nodes go to the metrics, and a
 *   warning to the log at most once an interval. The account is read again every interval.
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
import { every, secondsText, withDeadline } from '../vocabulary/index.js';
import { diffActivity } from './diff-activity.js';
import { readActivity } from './read-activity.js';
import { DEFAULT_LIQUIDITY, type ActivitySnapshot, type ActivityState } from './types.js';
import { readWatchFacts, refreshWaiting } from './read-watch-facts.js';
import { createPollPacer, dueOf, type Cadence } from './poll-pacer.js';
import { watchStep } from './watch-step.js';
import { DEFAULT_WATCH_THRESHOLDS, type WatchProfile } from './watch-thresholds.js';
import type { ActivityPoller, ActivityPollerOptions } from './activity-poller-types.js';

export type { ActivityPoller, ActivityPollerOptions, PublishContext } from './activity-poller-types.js';

const LEGACY: WatchProfile = {
  kinds: new Set(['channels', 'payments', 'transfers', 'deposits', 'liquidity', 'lock']),
  thresholds: DEFAULT_WATCH_THRESHOLDS,
};

const isState = (v: unknown): v is ActivityState => !!v && typeof v === 'object' && 'snapshot' in v && 'bands' in v;

export function createActivityPoller(o: ActivityPollerOptions): ActivityPoller {
  const intervalMs = o.intervalMs ?? 30_000;
  const nodeTimeoutMs = o.nodeTimeoutMs ?? 10_000;
  const maxBackoff = Math.max(1, o.maxBackoff ?? 8);
  const thresholds = o.thresholds ?? DEFAULT_LIQUIDITY;
  const pacer = createPollPacer({ intervalMs, max: o.maxConcurrency ?? 64, guessMs: Math.min(500, nodeTimeoutMs) });
  /** The dispatcher's tick: a hundredth of the interval (300 ms at 30 s), within 10 ms and 250 ms. */
  const tickMs = Math.min(250, Math.max(10, intervalMs / 100));
  /** Each watched node's cadence (see Cadence), by nodeId. */
  const cadences = new Map<string, Cadence>();
  /** The nodes being polled now (one poll at a time per node), and their polls. */
  const inFlight = new Map<string, Promise<void>>();
  /** Due nodes the last tick could not start yet (the bound), oldest first: started as polls end. */
  let backlog: Cadence[] = [];
  /** Our nodes' names by pubkey, learned as they are polled, or asked when an event names a peer (P35). */
  const names = new Map<string, string>();
  /** The nodes whose pubkey is known (a pubkey does not change). */
  const named = new Set<string>();
  const nameOf = (pubkey: string) => names.get(pubkey.toLowerCase());
  let account: HostedNode[] = [];
  let started = false;
  let warnedAt = Number.NEGATIVE_INFINITY;
  let behind = false;

  /** When each node not yet named was last asked its pubkey. */
  const asked = new Map<string, number>();
  /**
   * The account's running nodes not yet named, narrowed as names are learned and read again with
   * the account: each poll with events asks for names, and a scan of the whole account at each
   * was quadratic in a sweep where every node had something to tell (2,000 nodes).
   */
  let unnamed: HostedNode[] | undefined;
  let learning: Promise<void> | undefined;
  /** Asks the nodes not yet named for their pubkey (`bob`, not `02c8…`): one round at a time, each node at most once an interval. */
  function learnNames(): Promise<void> {
    learning ??= askNames().finally(() => {
      learning = undefined;
    });
    return learning;
  }
  async function askNames(): Promise<void> {
    const now = o.now();
    unnamed = (unnamed ?? account).filter((n) => n.status === 'RUNNING' && n.invoke_url && !named.has(n.nodeId));
    const unknown = unnamed.filter((n) => now - (asked.get(n.nodeId) ?? -Infinity) >= intervalMs);
    for (const n of unknown) asked.set(n.nodeId, now);
    let next = 0;
    const ask = async () => {
      while (next < unknown.length) {
        const n = unknown[next++];
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
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, unknown.length) }, ask));
  }

  /** Reads the node, within the time limit: its activity, then what its watch kinds need. */
  async function read(node: HostedNode, profile: WatchProfile, previous: ActivityState | undefined, slow: boolean, now: number) {
    // Its requests in flight stay within NODE_CALLS_PER_NODE, together with everyone else's: the
    // client takes a turn at the node's gate for each (src/node-api/node-gates.ts).
    const api = o.api(node);
    const failures = slow ? await refreshWaiting(api, profile, previous?.snapshot) : undefined;
    const snapshot: ActivitySnapshot = await readActivity(api, now, previous?.snapshot.pubkey);
    if (snapshot.lock !== 'unlocked') return snapshot;
    const [extra, facts] = await Promise.all([
      readWatchFacts(api, profile, slow, now),
      slow && profile.kinds.has('backup') && o.facts ? o.facts(node).catch(() => undefined) : undefined,
    ]);
    return { ...snapshot, ...extra, ...(facts ? { backup: facts } : {}), ...(failures ? { transferFailures: failures } : {}) };
  }

  async function pollNode(c: Cadence, now: number): Promise<void> {
    const { node } = c;
    const profile = (await o.profile?.(node)) ?? LEGACY;
    const stored = await o.states.get(node.nodeId);
    const previous = isState(stored) ? stored : undefined;
    const slow = !!c.slowNext || c.polls % Math.max(1, profile.thresholds.slowEvery) === 0;
    c.slowNext = false;
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
    c.misses = missed ? c.misses + 1 : 0;
    c.polls++;
    reschedule(c, now, missed ? Math.min(maxBackoff, 2 ** c.misses) : 1);
    // A node that stopped answering while watched for liveness is asked again soon, until the alert is due.
    if (missed && profile.kinds.has('liveness') && watched.memory.misses < profile.thresholds.livenessAfter) {
      c.soonAt = now + intervalMs / 4;
    }
    // Replicas: the node stays this one's until it is due again, so the others back off with it.
    if (missed) await o.claim?.(node.nodeId, dueOf(c), now);
    for (const e of [...events, ...watched.events]) o.metrics?.activityEvents.inc({ kind: e.kind });
    const since = previous?.snapshot.takenAt;
    if (events.length || watched.events.length) await learnNames();
    // A first poll's events (a node found locked) are keyed by this poll's time.
    if (events.length) await o.publish(node, events, { since: since ?? polled.takenAt, snapshot: state.snapshot, nameOf });
    // Conditions are the present, not history: a first poll publishes them too, and since 0 keeps
    // their keys stable across a retry.
    if (watched.events.length) await o.publish(node, watched.events, { since: since ?? 0, snapshot: state.snapshot, nameOf });
    await o.states.put(node.nodeId, { ...state, watch: watched.memory }, now);
    // Those keys come from no stored state: written at once, not held for a second, so that a crash
    // does not make the next poll a first one again, which would tell them under new keys.
    if (!previous && events.length) await o.states.flush();
  }

  /**
   * The node's next slot after a poll started at `at`, on its phase: the first slot after `at` (after
   * `times` - 1 more intervals for a node that does not answer). A poll that started a whole interval
   * or more past its slot counts the intervals missed. A poll before its slot (checkSoon, a liveness
   * confirmation) leaves the slot where it is.
   */
  function reschedule(c: Cadence, at: number, times: number): void {
    if (c.slot <= at) {
      const missed = Math.floor((at - c.slot) / intervalMs);
      if (missed > 0 && started) o.metrics?.activityMissed.inc(missed);
    }
    const target = at + (times - 1) * intervalMs;
    if (c.slot <= target) c.slot += (Math.floor((target - c.slot) / intervalMs) + 1) * intervalMs;
  }

  /** Polls one node now (its claim first, on replicas); never throws. */
  function launch(c: Cadence): Promise<void> {
    const id = c.node.nodeId;
    c.soonAt = undefined;
    const poll = (async () => {
      const at = o.now();
      try {
        // Claimed for 80% of an interval: free again before this replica's or another's next slot.
        if (o.claim && !(await o.claim(id, at + intervalMs * 0.8, at))) return reschedule(c, at, 1);
        await pollNode(c, at);
        c.failed = false;
      } catch (err) {
        // Tried again at its next slot (a store outage must not turn into a loop), or by the next pollOnce.
        c.failed = true;
        reschedule(c, at, 1);
        o.metrics?.activityPolls.inc({ outcome: 'failed' });
        o.logger.warn({ err, nodeId: id }, 'activity: polling a node failed');
      }
      pacer.observe(o.now() - at);
    })().finally(() => {
      inFlight.delete(id);
      if (started) drain();
    });
    inFlight.set(id, poll);
    return poll;
  }

  /** Starts what the backlog holds, as far as the bound allows. */
  function drain(): void {
    const limit = pacer.limit(cadences.size, backlog.length);
    while (backlog.length && inFlight.size < limit) {
      const c = backlog.shift()!;
      if (cadences.get(c.node.nodeId) === c && !inFlight.has(c.node.nodeId)) void launch(c);
    }
  }

  /** The nodes due at `now` (and those whose last poll failed, with `failed`) not being polled, the longest waiting first. */
  function dueAt(now: number, failed = false): Cadence[] {
    const due: Cadence[] = [];
    for (const c of cadences.values()) if ((dueOf(c) <= now || (failed && c.failed)) && !inFlight.has(c.node.nodeId)) due.push(c);
    return due.sort((a, b) => dueOf(a) - dueOf(b));
  }

  /** The dispatcher's tick: starts the due nodes within the bound, and says whether polling keeps up. */
  function tick(): void {
    const now = o.now();
    backlog = dueAt(now);
    drain();
    const limit = pacer.limit(cadences.size, backlog.length);
    const { overdue, lagMs } = pacer.behind(
      backlog.map((c) => dueOf(c)),
      now,
    );
    o.metrics?.activityConcurrency.set(limit);
    o.metrics?.activityOverdue.set(overdue);
    o.metrics?.activityLag.set(lagMs / 1000);
    if (overdue > 0 && now - warnedAt >= intervalMs) {
      warnedAt = now;
      behind = true;
      o.logger.warn(
        {
          overdue,
          watched: cadences.size,
          lagS: Math.round(lagMs / 100) / 10,
          inFlight: inFlight.size,
          concurrency: limit,
          meanPollMs: Math.round(pacer.meanMs()),
          neededPerS: Math.round(pacer.rate(cadences.size) * 10) / 10,
        },
        `activity: polling does not keep up: ${overdue} of ${cadences.size} watched nodes are past their time, by up to ${secondsText(lagMs)}, with ${limit} polls at once at most; raise POLL_MAX_CONCURRENCY or POLL_INTERVAL_S`,
      );
    } else if (overdue === 0 && behind) {
      behind = false;
      o.logger.info({ watched: cadences.size }, 'activity: polling keeps up again');
    }
  }

  /**
   * Reads the account: which nodes run and are watched. A node new to the poller gets a slot: now
   * when it comes alone, and the ones found together (a start, `watch add all`) spread evenly over
   * the interval when `spread`. A node no longer running or watched goes quiet.
   */
  async function refresh(spread: boolean): Promise<boolean> {
    let nodes: HostedNode[];
    try {
      nodes = await o.listNodes();
    } catch (err) {
      o.logger.warn({ err }, 'activity: could not list the nodes; polling again next interval');
      return false;
    }
    account = nodes;
    unnamed = undefined;
    const now = o.now();
    const seen = new Set<string>();
    const fresh: HostedNode[] = [];
    for (const n of nodes) {
      if (n.status !== 'RUNNING' || !n.invoke_url || !(await o.isWatched(n))) continue;
      seen.add(n.nodeId);
      const c = cadences.get(n.nodeId);
      if (c) c.node = n;
      else fresh.push(n);
    }
    for (const id of cadences.keys()) if (!seen.has(id)) cadences.delete(id);
    const step = spread ? intervalMs / Math.max(1, fresh.length) : 0;
    fresh.forEach((node, i) => {
      const soon = early.delete(node.nodeId);
      cadences.set(node.nodeId, { node, slot: now + i * step, misses: 0, polls: 0, ...(soon ? { soonAt: now, slowNext: true } : {}) });
    });
    try {
      await o.states.removeExcept(nodes.map((n) => n.nodeId));
    } catch (err) {
      // The store did not answer (a database outage): the polls say so too, and the next interval tries again.
      o.logger.warn({ err }, 'activity: a poll pass failed; polling again next interval');
    }
    return true;
  }
  /** Nodes asked for with checkSoon before the poller knew them. */
  const early = new Set<string>();

  const loop = every(
    async () => {
      await refresh(true);
      tick();
    },
    intervalMs,
    (err) => o.logger.error({ err }, 'activity: a poll pass failed'),
  );
  let ticker: NodeJS.Timeout | undefined;
  return {
    start: () => {
      if (started) return;
      started = true;
      loop.start({ now: true });
      ticker = setInterval(tick, tickMs);
      ticker.unref();
    },
    stop: async () => {
      started = false;
      clearInterval(ticker);
      backlog = [];
      await loop.stop();
      await Promise.all(inFlight.values());
      // The states held for a write together (activity-states.ts) are written before the database closes.
      await o.states.flush().catch((err: unknown) => o.logger.warn({ err }, 'activity: the last polled states were not stored'));
    },
    pollOnce: async () => {
      if (!(await refresh(false))) return;
      const due = dueAt(o.now(), true);
      let next = 0;
      const worker = async () => {
        while (next < due.length) await launch(due[next++]);
      };
      await Promise.all(Array.from({ length: Math.min(pacer.limit(cadences.size, due.length), due.length) }, worker));
    },
    checkSoon(nodeId) {
      const c = cadences.get(nodeId);
      if (!c) early.add(nodeId);
      else Object.assign(c, { soonAt: 0, slowNext: true });
      if (!started) return;
      if (c) tick();
      else void loop.run().catch((err: unknown) => o.logger.error({ err }, 'activity: a poll pass failed'));
    },
  };
}
