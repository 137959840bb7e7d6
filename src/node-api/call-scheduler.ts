/**
 * The one scheduler of node work: a piece of work on one node (a report's reads of it, a lock
 * state, a pubkey) runs when there is room for it, within two bounds and a deadline.
 *
 * - Overall, at most `limit` pieces run at once. The limit adapts (adaptive-limit.ts: AIMD with
 *   slow start) between `minConcurrency` and `maxConcurrency`: it grows while the nodes answer
 *   and their latency holds, and shrinks when more than a tenth of a round of work is dropped
 *   (a deadline passed, a 429, a 5xx, a node that cannot be reached). A few dead nodes among
 *   many do not slow the others down.
 * - Per node, at most a few pieces run at once (`perNodeMax`), with a limit of its own that
 *   halves on each drop by that node and grows back as it answers: a node that sheds load gets
 *   one piece at a time, and the others keep their pace.
 * - Each piece has a deadline (`deadlineMs`, from when it starts, not from when it was queued):
 *   its node calls share it (withDeadline), and at the deadline the caller gets a
 *   NodeDeadlineError while the others carry on. The piece keeps its place in the bounds until it
 *   has really ended (its calls are cut at the deadline), so the bounds count what is in flight.
 *
 * Pieces start in the order they were asked for, except that one whose node is at its bound
 * waits for that node while the next ones start. Work is what a caller queues: 2,000 nodes are
 * 2,000 pieces, started as the limit allows. The activity poller can use it as the reports do.
 */
import { performance } from 'node:perf_hooks';
import { withDeadline } from '../vocabulary/index.js';
import { AdaptiveLimit, type CallOutcome } from './adaptive-limit.js';
import { isNodeApiError } from './node-api-error.js';

/** A piece of node work did not end within its deadline. */
export class NodeDeadlineError extends Error {
  override readonly name = 'NodeDeadlineError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

export interface CallSchedulerOptions {
  /** The most pieces running at once, all nodes together (NODE_CALLS_MAX). Default 64. */
  maxConcurrency?: number;
  /** Where the overall limit starts. Default 16 (or maxConcurrency when lower). */
  initialConcurrency?: number;
  /** The overall limit never goes below this. Default 4 (or maxConcurrency when lower). */
  minConcurrency?: number;
  /** The most pieces running at once on one node. Default 4. */
  perNodeMax?: number;
  /** A piece's deadline when the caller gives none. Default 10 000 ms. */
  deadlineMs?: number;
  /** How an error counts for the limits. Default: classifyNodeError. */
  classify?: (error: unknown) => CallOutcome;
  /** The monotonic clock, in ms. Default performance.now. */
  now?: () => number;
}

export interface RunOptions {
  /** This piece's deadline, from when it starts (default the scheduler's). */
  deadlineMs?: number;
}

export interface MapOptions<T, R> extends RunOptions {
  /** What an item that failed or passed its deadline gives instead (without it, map rejects with the first error). */
  onError?: (error: unknown, item: T, index: number) => R;
}

export interface CallSchedulerStats {
  /** The overall limit now. */
  limit: number;
  maxConcurrency: number;
  perNodeMax: number;
  inFlight: number;
  queued: number;
  /** The most pieces that ran at once, overall and on one node, since the scheduler began. */
  peakInFlight: number;
  peakPerNode: number;
  /** Pieces that ran to an end, and those cut by their deadline. */
  done: number;
  deadlines: number;
}

export interface CallScheduler {
  /** Runs `work` for `node` (its id) when there is room; rejects with NodeDeadlineError when it takes too long. */
  run<T>(node: string, work: () => Promise<T>, opts?: RunOptions): Promise<T>;
  /** `fn` over `items`, each as a piece of work of its node, all queued at once; results keep the input order. */
  map<T, R>(
    items: readonly T[],
    nodeOf: (item: T) => string,
    fn: (item: T, index: number) => Promise<R>,
    opts?: MapOptions<T, R>,
  ): Promise<R[]>;
  /** The limit of one node now (perNodeMax for a node not seen lately). */
  nodeLimit(node: string): number;
  stats(): CallSchedulerStats;
}

/** A deadline, a timeout, a 429, a 5xx or an unreachable node is a drop; anything else the node answered is its own business. */
export function classifyNodeError(e: unknown): CallOutcome {
  if (e instanceof NodeDeadlineError) return 'drop';
  if (isNodeApiError(e)) {
    if (e.kind === 'timeout' || e.kind === 'network') return 'drop';
    const status = e.status ?? 0;
    return status === 429 || status >= 500 ? 'drop' : 'neutral';
  }
  const status = e && typeof e === 'object' ? (e as { status?: unknown }).status : undefined;
  return typeof status === 'number' && (status === 429 || status >= 500) ? 'drop' : 'neutral';
}

interface Piece {
  node: string;
  start(): void;
}

interface NodeSlot {
  running: number;
  limit: AdaptiveLimit;
}

/** Per-node limits are kept for this many nodes at most (the least recently used are forgotten). */
const MAX_NODES_KEPT = 10_000;

export function createCallScheduler(o: CallSchedulerOptions = {}): CallScheduler {
  const max = Math.max(1, Math.floor(o.maxConcurrency ?? 64));
  const perNodeMax = Math.max(1, Math.floor(o.perNodeMax ?? 4));
  const defaultDeadline = Math.max(1, o.deadlineMs ?? 10_000);
  const classify = o.classify ?? classifyNodeError;
  const now = o.now ?? (() => performance.now());
  const overall = new AdaptiveLimit({
    initial: o.initialConcurrency ?? Math.min(16, max),
    min: Math.min(max, o.minConcurrency ?? 4),
    max,
    backoff: 0.7,
    dropTolerance: 0.1,
  });
  const nodes = new Map<string, NodeSlot>();
  const queue: Piece[] = [];
  let inFlight = 0;
  let peakInFlight = 0;
  let peakPerNode = 0;
  let done = 0;
  let deadlines = 0;

  const slotOf = (node: string): NodeSlot => {
    let s = nodes.get(node);
    if (s) {
      // Most recently used last, so the first ones are the ones to forget.
      nodes.delete(node);
      nodes.set(node, s);
      return s;
    }
    s = { running: 0, limit: new AdaptiveLimit({ initial: perNodeMax, min: 1, max: perNodeMax, backoff: 0.5 }) };
    nodes.set(node, s);
    for (const [key, slot] of nodes) {
      if (nodes.size <= MAX_NODES_KEPT) break;
      if (slot.running === 0) nodes.delete(key);
    }
    return s;
  };

  /** Starts what the bounds allow, first asked first, skipping pieces whose node is full. */
  function pump(): void {
    for (let i = 0; i < queue.length && inFlight < overall.limit; ) {
      const piece = queue[i];
      const slot = slotOf(piece.node);
      if (slot.running >= slot.limit.limit) {
        i++;
        continue;
      }
      queue.splice(i, 1);
      piece.start();
    }
  }

  function run<T>(node: string, work: () => Promise<T>, opts: RunOptions = {}): Promise<T> {
    const deadlineMs = Math.max(1, opts.deadlineMs ?? defaultDeadline);
    return new Promise<T>((resolve, reject) => {
      queue.push({
        node,
        start() {
          const slot = slotOf(node);
          inFlight++;
          slot.running++;
          peakInFlight = Math.max(peakInFlight, inFlight);
          peakPerNode = Math.max(peakPerNode, slot.running);
          const startedAt = now();
          const started = { overall: inFlight, node: slot.running };
          let timer: NodeJS.Timeout | undefined;
          let settled = false;
          const finish = (outcome: CallOutcome) => {
            const latencyMs = now() - startedAt;
            overall.record({ outcome, latencyMs, inFlight: started.overall });
            slot.limit.record({ outcome, latencyMs, inFlight: started.node });
          };
          timer = setTimeout(() => {
            timer = undefined;
            if (settled) return;
            settled = true;
            deadlines++;
            reject(new NodeDeadlineError(deadlineMs));
          }, deadlineMs);
          // withDeadline is async: a work that throws at once rejects here too.
          withDeadline(deadlineMs, work)
            .then(
              (value) => {
                finish(settled ? 'drop' : 'ok');
                if (!settled) resolve(value);
              },
              (e: unknown) => {
                finish(settled ? 'drop' : classify(e));
                if (settled) return;
                // Its calls' attempts end with the deadline too (withDeadline): a call's timeout that
                // comes first, as timers due at once may, is the deadline's, and is told as such.
                if (isNodeApiError(e) && e.kind === 'timeout' && now() - startedAt >= deadlineMs - 1)
                  reject(new NodeDeadlineError(deadlineMs));
                else reject(e instanceof Error ? e : new Error(String(e)));
              },
            )
            .finally(() => {
              settled = true;
              clearTimeout(timer);
              inFlight--;
              slot.running--;
              done++;
              pump();
            });
        },
      });
      pump();
    });
  }

  return {
    run,
    map(items, nodeOf, fn, opts = {}) {
      const { onError } = opts;
      return Promise.all(
        items.map((item, i) => {
          const piece = run(nodeOf(item), () => fn(item, i), opts);
          return onError ? piece.catch((e: unknown) => onError(e, item, i)) : piece;
        }),
      );
    },
    nodeLimit: (node) => nodes.get(node)?.limit.limit ?? perNodeMax,
    stats: () => ({
      limit: overall.limit,
      maxConcurrency: max,
      perNodeMax,
      inFlight,
      queued: queue.length,
      peakInFlight,
      peakPerNode,
      done,
      deadlines,
    }),
  };
}
