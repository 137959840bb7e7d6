/** The node list, cached briefly: resolving a node by name or id, and autocomplete. */
import type { HostedNode, HostingClient } from '../hosting/index.js';
import { UserError } from '../vocabulary/index.js';
import { closestOf } from '../vocabulary/index.js';

export interface NodeLookup {
  /** The node named `value` (id, name, or name in any case); an unknown name is a UserError naming the closest. */
  resolve(value: string): Promise<HostedNode>;
  list(): Promise<HostedNode[]>;
  /** Forgets the cached list (after a change). */
  invalidate(): void;
}

/**
 * The node `v` names: its id, its exact name, or its name in any case. A name that matches
 * several nodes only in another case is refused with the candidates: never guess which.
 */
export function findNode<N extends Pick<HostedNode, 'nodeId' | 'name'>>(nodes: N[], v: string): N | undefined {
  const exact = nodes.find((n) => n.nodeId === v) ?? nodes.find((n) => n.name === v);
  if (exact) return exact;
  const loose = nodes.filter((n) => n.name.toLowerCase() === v.toLowerCase());
  if (loose.length > 1) {
    throw new UserError(
      'invalid_arguments',
      `${/^[\w.:-]{1,64}$/u.test(v) ? `\`${v}\`` : 'That name'} matches ${loose.length} nodes: ${loose.map((n) => `${n.name} (${n.nodeId})`).join(', ')}.`,
      'Give the exact name, in its case, or the node id.',
      { candidates: loose.map((n) => n.name) },
    );
  }
  return loose[0];
}

export function createNodeLookup(opts: { hosting: Pick<HostingClient, 'listNodes'>; now: () => number; cacheMs?: number }): NodeLookup {
  const cacheMs = opts.cacheMs ?? 5_000;
  let cache: { at: number; nodes: HostedNode[] } | undefined;
  let inflight: Promise<HostedNode[]> | undefined;
  const listNodes = async (force = false): Promise<{ nodes: HostedNode[]; fresh: boolean }> => {
    if (!force && cache && opts.now() - cache.at < cacheMs) return { nodes: cache.nodes, fresh: false };
    inflight ??= opts.hosting.listNodes().finally(() => (inflight = undefined));
    const nodes = await inflight;
    cache = { at: opts.now(), nodes };
    return { nodes, fresh: true };
  };
  return {
    async resolve(value) {
      const v = value.trim();
      const first = await listNodes();
      let nodes = first.nodes;
      const fresh = first.fresh;
      let found = findNode(nodes, v);
      if (!found && !fresh) {
        nodes = (await listNodes(true)).nodes;
        found = findNode(nodes, v);
      }
      if (found) return found;
      const near = closestOf(
        v,
        nodes.map((n) => n.name),
        { max: 3, maxDistance: Math.max(2, Math.ceil(v.length / 2)) },
      );
      const shown = /^[\w.:-]{1,64}$/u.test(v) ? `\`${v}\`` : 'that name';
      throw new UserError(
        'unknown_node',
        `No node is named ${shown} or has it as its id.`,
        near.length
          ? `Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}? \`/rln node list\` shows every node.`
          : '`/rln node list` shows every node.',
        { closest: near },
      );
    },
    list: async () => (await listNodes()).nodes,
    invalidate: () => {
      cache = undefined;
    },
  };
}
