/**
 * Which nodes belong to the account, from `hosting.listNodes()`, cached.
 *
 * A list older than `ttlMs` is refreshed in the background, at the next event, while events of
 * the nodes it holds are still answered from it (stale while it revalidates): the check only
 * says that a signed event's node is the account's, and waiting for the service's answer held
 * every webhook of that moment for a round trip to the service (issue 29: nothing the 2xx does
 * not promise on the request path), and refused them all 503 when it failed. Only a
 * list that could not be refreshed for `maxStaleMs` past its TTL is no longer trusted: then an
 * event waits for a fresh list, as every event did before, and is refused 503 if it cannot be had.
 *
 * A node not in the list triggers a refresh that the event waits for (at most one per
 * `minRefreshMs`), so a new node is known at once and a flood of unknown ids does not flood
 * the service. A node removed from the account is accepted until the refresh that drops it lands.
 */
import type { HostingClient, HostedNode } from '../hosting/index.js';

export interface NodeDirectoryOptions {
  hosting: Pick<HostingClient, 'listNodes'>;
  /** How long a fetched list is fresh; after it, the next event refreshes it in the background. Default 30 000 ms. */
  ttlMs?: number;
  /** How long past its TTL a list that cannot be refreshed still answers for its nodes. Default 600 000 ms. */
  maxStaleMs?: number;
  /** Least time between two refreshes caused by a miss or a stale list. Default 2 000 ms. */
  minRefreshMs?: number;
  /** A background refresh failed, the first time after a success (it is tried again, at most every `minRefreshMs`). */
  onRefreshFailed?: (err: unknown) => void;
  now?: () => number;
}

export interface NodeDirectory {
  /** The node, or undefined when the account has no such node. Throws when the list cannot be fetched. */
  lookup(nodeId: string): Promise<HostedNode | undefined>;
  /**
   * The node when the cached list can answer for it (fresh, or stale within `maxStaleMs`) and
   * has it; otherwise undefined, and `lookup` decides (it may wait for a fetch). Never waits: the
   * request path's synchronous fast path. A stale list is refreshed in the background.
   */
  cached(nodeId: string): HostedNode | undefined;
  /** The name of a node if it is cached (no fetch). */
  nameOf(nodeId: string): string | undefined;
}

export function createNodeDirectory(opts: NodeDirectoryOptions): NodeDirectory {
  const ttl = opts.ttlMs ?? 30_000;
  const maxStale = opts.maxStaleMs ?? 600_000;
  const minRefresh = opts.minRefreshMs ?? 2_000;
  const now = opts.now ?? Date.now;
  let nodes = new Map<string, HostedNode>();
  /** When the list held was fetched (-Infinity: none yet). */
  let listedAt = Number.NEGATIVE_INFINITY;
  /** When the last refresh began, and whether it failed. */
  let triedAt = Number.NEGATIVE_INFINITY;
  let failed = false;
  let inflight: Promise<void> | undefined;

  const refresh = (): Promise<void> => {
    if (!inflight) {
      triedAt = now();
      inflight = opts.hosting
        .listNodes()
        .then((list) => {
          nodes = new Map(list.map((n) => [n.nodeId, n]));
          listedAt = now();
          failed = false;
        })
        .catch((err: unknown) => {
          failed = true;
          throw err;
        })
        .finally(() => {
          inflight = undefined;
        });
    }
    return inflight;
  };

  /** Past its TTL, the list is refreshed without anyone waiting; a failure is reported once, not thrown. */
  const revalidate = (): void => {
    if (now() - listedAt < ttl || inflight || now() - triedAt < minRefresh) return;
    const wasFailing = failed;
    refresh().catch((err: unknown) => {
      if (!wasFailing) opts.onRefreshFailed?.(err);
    });
  };

  /** The list may still answer for the nodes it holds. */
  const usable = () => now() - listedAt < ttl + maxStale;

  return {
    async lookup(nodeId) {
      if (usable()) {
        revalidate();
        const hit = nodes.get(nodeId);
        if (hit) return hit;
        // Not in the list: perhaps a node created since it was fetched. Within minRefreshMs of a
        // refresh that did not fail, that refresh's list answers.
        if (!failed && now() - triedAt < minRefresh) {
          if (inflight) await inflight;
          return nodes.get(nodeId);
        }
      }
      await refresh();
      return nodes.get(nodeId);
    },
    cached(nodeId) {
      if (!usable()) return undefined;
      revalidate();
      return nodes.get(nodeId);
    },
    nameOf: (nodeId) => nodes.get(nodeId)?.name,
  };
}
