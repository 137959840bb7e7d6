/**
 * Which nodes belong to the account, from `hosting.listNodes()`, cached briefly. A node
 * not in the cache triggers one refresh (at most one per `minRefreshMs`), so a new node is
 * known at once and a flood of unknown ids does not flood the service.
 */
import type { HostingClient, HostedNode } from '../hosting/index.js';

export interface NodeDirectoryOptions {
  hosting: Pick<HostingClient, 'listNodes'>;
  /** How long a fetched list is trusted. Default 30 000 ms. */
  ttlMs?: number;
  /** Least time between two refreshes caused by a miss. Default 2 000 ms. */
  minRefreshMs?: number;
  now?: () => number;
}

export interface NodeDirectory {
  /** The node, or undefined when the account has no such node. Throws when the list cannot be fetched. */
  lookup(nodeId: string): Promise<HostedNode | undefined>;
  /**
   * The node when the cached list is fresh (within the TTL) and has it; otherwise undefined, and
   * `lookup` decides (it may fetch). Never fetches: the request path's synchronous fast path.
   */
  cached(nodeId: string): HostedNode | undefined;
  /** The name of a node if it is cached (no fetch). */
  nameOf(nodeId: string): string | undefined;
}

export function createNodeDirectory(opts: NodeDirectoryOptions): NodeDirectory {
  const ttl = opts.ttlMs ?? 30_000;
  const minRefresh = opts.minRefreshMs ?? 2_000;
  const now = opts.now ?? Date.now;
  let nodes = new Map<string, HostedNode>();
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<void> | undefined;

  const refresh = (): Promise<void> => {
    if (!inflight) {
      fetchedAt = now();
      inflight = opts.hosting
        .listNodes()
        .then((list) => {
          nodes = new Map(list.map((n) => [n.nodeId, n]));
          fetchedAt = now();
        })
        .catch((err: unknown) => {
          fetchedAt = Number.NEGATIVE_INFINITY;
          throw err;
        })
        .finally(() => {
          inflight = undefined;
        });
    }
    return inflight;
  };

  return {
    async lookup(nodeId) {
      if (now() - fetchedAt >= ttl) await refresh();
      const hit = nodes.get(nodeId);
      if (hit) return hit;
      if (now() - fetchedAt >= minRefresh) {
        await refresh();
        return nodes.get(nodeId);
      }
      if (inflight) await inflight;
      return nodes.get(nodeId);
    },
    cached: (nodeId) => (now() - fetchedAt < ttl ? nodes.get(nodeId) : undefined),
    nameOf: (nodeId) => nodes.get(nodeId)?.name,
  };
}
