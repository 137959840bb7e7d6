/** RLN images: what a node runs, what the latest is, and whether an upgrade has anything to do. */
import { msg, type Message } from '../../src/vocabulary/index.js';
import type { HostedNode } from '../../src/hosting/index.js';

/** The image a node runs: the service's `imageVersion` field, else the last build's. */
export function imageOf(node: HostedNode): string | undefined {
  if (typeof node.imageVersion === 'string' && node.imageVersion) return node.imageVersion;
  const builds = node.builds ?? [];
  for (let i = builds.length - 1; i >= 0; i--) {
    const v = (builds[i] as Record<string, unknown>).imageVersion;
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

/** The node's image and the latest one; `upToDate` only when the node's version is known and already the latest (docs/ARCHITECTURE.md, "Node images"). */
export async function upgradeTarget(
  ctx: { services: { hosting: { latestImage(): Promise<{ version: string }> } } },
  node: HostedNode,
): Promise<{ current?: string; version: string; upToDate: boolean }> {
  const current = imageOf(node);
  const { version } = await ctx.services.hosting.latestImage();
  return { current, version, upToDate: current !== undefined && current === version };
}

/** Why an upgrade has nothing to do, and where to look instead. */
export function upToDateRefusal(node: HostedNode, version: string): { reason: string; next: string } {
  return {
    reason: `${node.name} already runs the latest image, ${version}: there is nothing to upgrade.`,
    next: 'See every node’s version with `/rln node image`.',
  };
}

/** The latest image and what each node runs (`unknown` where the service does not say). */
export function imageOverview(version: string, nodes: HostedNode[]): Message {
  const rows = [...nodes]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((n) => {
      const runs = imageOf(n);
      return [n.name, runs ?? 'unknown', runs === undefined ? 'unknown' : runs === version ? '✅ current' : `⬆️ upgrade to ${version}`];
    });
  const behind = rows.filter((r) => r[2].startsWith('⬆️')).length;
  return {
    header: 'RLN images',
    tone: behind ? 'warning' : 'info',
    blocks: [
      msg.fields([
        { label: 'Latest', value: version, inline: true },
        { label: 'Behind', value: `${behind} of ${rows.length} node(s)`, inline: true },
      ]),
      ...(rows.length ? [msg.table({ columns: msg.columns('Node', 'Runs', 'State'), rows })] : []),
      ...(behind ? [msg.context('Upgrade one with `node upgrade <node>`.')] : []),
    ],
  };
}
