/** `node list|info|image`: reading the nodes of the account, their state and their images. */
import { z } from 'zod';
import { formatSats, statusBadge, statusTone, thousands, msg, type Block } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import type { HostedNode } from '../src/hosting/index.js';
import { lockStateText, lockStates } from './support/lock-state.js';
import { imageOf, imageOverview } from './support/node-image.js';
import { nodeOnly, pagingArgs } from './support/arg-types.js';
import { listReply, typedArgs } from './support/list-command.js';
import { formatTime, peerAddressOf, rlnNameOf, titled, yesNo } from './support/present.js';
import { requireNode } from './support/require-node.js';
import { readableNodes, withScopeNote } from './support/readable-nodes.js';

function lastBuild(node: HostedNode): string {
  const b = node.builds?.[node.builds.length - 1];
  if (!b) return '—';
  const num = b.buildNumber !== undefined ? `#${b.buildNumber} ` : '';
  return `${num}${b.buildStatus ?? (b.buildComplete ? 'complete' : 'running')}${b.timestamp ? ` ${formatTime(b.timestamp)}` : ''}`;
}

export const list = defineCommand({
  path: 'node list',
  summary: 'List the nodes of the account with their status',
  example: '/rln node list',
  args: z.object({ ...pagingArgs }),
  role: 'read',
  async handler(ctx) {
    const { nodes, note } = await readableNodes(ctx);
    return listReply({
      title: 'Nodes',
      rows: [...nodes].sort((a, b) => a.name.localeCompare(b.name)),
      paging: ctx.args,
      pager: { command: 'node list', args: typedArgs(ctx.args) },
      empty: [msg.text('No nodes yet.'), msg.context('Create one with `node create <name>`.')],
      async page(items) {
        const counts = new Map<string, number>();
        for (const n of nodes) counts.set(n.status, (counts.get(n.status) ?? 0) + 1);
        const summary = [...counts.entries()].map(([s, c]) => `${c} ${statusBadge(s)}`).join(' · ');
        const locks = await lockStates(ctx, items);
        return {
          tone: counts.has('FAILED') ? 'danger' : 'info',
          summary: `${nodes.length} nodes: ${summary}`,
          before: [msg.text(summary), ...(note ? [msg.context(note)] : [])],
          table: {
            columns: msg.columns('Name', 'Status', 'Wallet', 'Network', 'Initialized', 'Last build'),
            rows: items.map((n, i) => [
              n.name,
              statusBadge(n.status),
              lockStateText(locks[i]),
              n.network,
              yesNo(n.initialized),
              lastBuild(n),
            ]),
          },
        };
      },
    });
  },
});

export const info = defineCommand({
  path: 'node info',
  summary: 'Show a node: status, address, settings, builds and, when running, its node info',
  example: '/rln node info alice',
  args: nodeOnly,
  role: 'read',
  async handler(ctx) {
    const node = await ctx.services.hosting.getNode(requireNode(ctx).nodeId);
    const blocks: Block[] = [
      msg.fields([
        { label: 'Status', value: statusBadge(node.status), inline: true },
        { label: 'Network', value: node.network, inline: true },
        { label: 'Initialized', value: yesNo(node.initialized), inline: true },
        { label: 'Image', value: imageOf(node) ?? '—', inline: true },
        { label: 'Node id', value: [{ code: node.nodeId }] },
        { label: 'Invoke URL', value: node.invoke_url ? [{ code: node.invoke_url }] : '—' },
        { label: 'Webhook URL', value: node.settings?.webhookUrl ? [{ code: node.settings.webhookUrl }] : 'not set (`node settings`)' },
      ]),
    ];
    const builds = node.builds ?? [];
    if (builds.length > 0) {
      const recent = builds.slice(-5).reverse();
      blocks.push(
        msg.table({
          columns: msg.columns(msg.right('Build'), 'Status', 'Complete', 'Time'),
          rows: recent.map((b) => [
            b.buildNumber !== undefined ? `#${b.buildNumber}` : '—',
            b.buildStatus ?? '—',
            yesNo(b.buildComplete),
            formatTime(b.timestamp),
          ]),
          caption: builds.length > recent.length ? `latest ${recent.length} of ${builds.length} builds` : undefined,
        }),
      );
    }
    if (node.status === 'RUNNING') {
      try {
        const ni = await ctx.services.nodeApi(node).nodeinfo();
        blocks.push(
          msg.divider(),
          msg.fields([
            { label: 'Pubkey', value: ni.pubkey ? [{ code: ni.pubkey }] : '—' },
            ...(ni.pubkey && peerAddressOf(node)
              ? [{ label: 'Peer address', value: [{ code: `${ni.pubkey}@${peerAddressOf(node)}` }] }]
              : []),
            {
              label: 'Channels',
              value: `${thousands(ni.num_usable_channels ?? 0)} usable / ${thousands(ni.num_channels ?? 0)}`,
              inline: true,
            },
            { label: 'Peers', value: thousands(ni.num_peers ?? 0), inline: true },
            { label: 'Local balance', value: formatSats(ni.local_balance_sat ?? 0), inline: true },
            { label: 'Pending outbound', value: formatSats(ni.pending_outbound_payments_sat ?? 0), inline: true },
            // The sizes `channel open` accepts: its refusal points here.
            ...(ni.channel_capacity_min_sat !== undefined && ni.channel_capacity_min_sat !== null
              ? [
                  {
                    label: 'Channel size',
                    value: `${formatSats(ni.channel_capacity_min_sat)}${ni.channel_capacity_max_sat !== undefined && ni.channel_capacity_max_sat !== null ? ` to ${formatSats(ni.channel_capacity_max_sat)}` : ' or more'}${ni.rgb_channel_capacity_min_sat !== undefined && ni.rgb_channel_capacity_min_sat !== null ? ` (RGB: from ${formatSats(ni.rgb_channel_capacity_min_sat)})` : ''}`,
                    inline: true,
                  },
                ]
              : []),
          ]),
        );
      } catch (err) {
        const name = rlnNameOf(err);
        if (name === 'LockedNode') {
          blocks.push(msg.context('The node is locked: node details hidden. Unlock it with `node unlock ' + node.name + '`.'));
        } else if (name === 'NotInitialized') {
          blocks.push(msg.context('The node is not initialized yet: run `node init ' + node.name + '`.'));
        } else {
          blocks.push(msg.context(`Node API not reachable: ${err instanceof Error ? err.message : String(err)}`));
        }
      }
    }
    return { header: titled('Node', node), tone: statusTone(node.status), summary: `${node.name}: ${node.status}`, blocks };
  },
});

export const image = defineCommand({
  path: 'node image',
  summary: 'The latest RLN image, and what each node (or the one named) runs',
  example: '/rln node image alice',
  positional: ['node'],
  args: z.object({ node: z.string().min(1).optional().describe('Node name or id (optional)') }),
  role: 'read',
  async handler(ctx) {
    const { version } = await ctx.services.hosting.latestImage();
    if (!ctx.node) {
      const { nodes, note } = await readableNodes(ctx);
      return withScopeNote(imageOverview(version, nodes), note);
    }
    const node = ctx.node;
    const current = imageOf(node);
    const upToDate = current === version;
    return {
      header: titled('RLN image', node),
      tone: upToDate ? 'success' : 'warning',
      blocks: [
        msg.fields([
          { label: 'Node runs', value: current ?? 'unknown', inline: true },
          { label: 'Latest', value: version, inline: true },
        ]),
        msg.context(upToDate ? 'Up to date.' : `Upgrade with \`node upgrade ${node.name}\`.`),
      ],
      buttons: upToDate ? undefined : [{ label: 'Upgrade', style: 'primary', command: 'node upgrade', args: { node: node.name } }],
    };
  },
});
