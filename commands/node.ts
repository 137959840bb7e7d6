/**
 * `node …`: the hosting service operations (list, info, create, start, stop, upgrade, destroy,
 * settings, logs, image) and the node API lifecycle (init, unlock, lock, password, backup,
 * restore, sync, shutdown).
 */
import { z } from 'zod';
import { UserError } from '../src/core/index.js';
import { sleep } from '../src/core/index.js';
import { formatSats, statusBadge, statusTone, thousands } from '../src/core/index.js';
import { msg, type Block, type Message } from '../src/core/index.js';
import { defineCommand, type CommandDefinition, type CommandContext, type Reply } from '../src/core/index.js';
import type { HostedNode } from '../src/hosting/index.js';
import { lockStateText, lockStates } from './support/lock-state.js';
import { imageOf, imageOverview, upgradeTarget } from './support/node-image.js';
import { flag, httpsUrl, int, nodeArg, pagingArgs, splitList } from './support/arg-types.js';
import { nodeClient } from './support/node-client.js';
import { paginate } from './support/paginate.js';
import { compact, formatTime, peerAddressOf, rlnNameOf, titled, yesNo } from './support/present.js';
import { requireNode } from './support/require-node.js';
import { logView } from './support/log-view.js';
import { backupFirst } from './support/backup-first.js';

/** How `node logs` waits for an export: a few short polls, then it hands back the task id. */
export const logPolling = { attempts: 5, delayMs: 500 };

export { imageOf } from './support/node-image.js';

function lastBuild(node: HostedNode): string {
  const b = node.builds?.[node.builds.length - 1];
  if (!b) return '—';
  const num = b.buildNumber !== undefined ? `#${b.buildNumber} ` : '';
  return `${num}${b.buildStatus ?? (b.buildComplete ? 'complete' : 'running')}${b.timestamp ? ` ${formatTime(b.timestamp)}` : ''}`;
}

/** The default backup path on the node: `/backups/<name>-<UTC stamp>.backup`. */
export function defaultBackupPath(node: HostedNode, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `/backups/${node.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${stamp}.backup`;
}

function done(node: HostedNode, title: string, text: string, extra: Block[] = [], tone: Message['tone'] = 'success'): Message {
  return { header: titled(title, node), tone, blocks: [msg.text(text), ...extra] };
}

function serviceNote(message?: string): Block[] {
  return message ? [msg.context(`Service: ${message}`)] : [];
}

function needSecret(ctx: CommandContext<unknown>, name: string, what: string): string {
  const v = ctx.secrets[name];
  if (!v) throw new UserError('invalid_arguments', `The ${what} was not entered.`, 'Run the command again and fill in the private dialog.');
  return v;
}

/** A new password is typed twice: a typo in the only copy would lock the node for good. */
function sameTwice(ctx: CommandContext<unknown>, first: string, second: string, notDone: string, again: string): void {
  if ((ctx.secrets[first] ?? '') !== (ctx.secrets[second] ?? '')) {
    throw new UserError('invalid_arguments', `${notDone}: the two new passwords differ.`, `Run \`${again}\` again and type the same password twice.`);
  }
}

const nodeOnly = z.object({ node: nodeArg() });

// ---- hosting service ----------------------------------------------------------------------

const list = defineCommand({
  path: 'node list',
  summary: 'List the nodes of the account with their status',
  example: '/rln node list',
  args: z.object({ ...pagingArgs }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const nodes = await ctx.services.hosting.listNodes();
    if (nodes.length === 0) {
      return {
        header: 'Nodes',
        tone: 'neutral',
        blocks: [msg.text('No nodes yet.'), msg.context('Create one with `node create <name>`.')],
      };
    }
    const sorted = [...nodes].sort((a, b) => a.name.localeCompare(b.name));
    const { items, caption } = paginate(sorted, ctx.args);
    const counts = new Map<string, number>();
    for (const n of nodes) counts.set(n.status, (counts.get(n.status) ?? 0) + 1);
    const summary = [...counts.entries()].map(([s, c]) => `${c} ${statusBadge(s)}`).join(' · ');
    const anyFailed = counts.has('FAILED');
    const locks = await lockStates(ctx, items);
    return {
      header: `Nodes (${nodes.length})`,
      tone: anyFailed ? 'danger' : 'info',
      summary: `${nodes.length} nodes: ${summary}`,
      blocks: [
        msg.text(summary),
        msg.table({
          columns: [{ header: 'Name' }, { header: 'Status' }, { header: 'Wallet' }, { header: 'Network' }, { header: 'Initialized' }, { header: 'Last build' }],
          rows: items.map((n, i) => [n.name, statusBadge(n.status), lockStateText(locks[i]), n.network, yesNo(n.initialized), lastBuild(n)]),
          caption,
        }),
      ],
    };
  },
});

const info = defineCommand({
  path: 'node info',
  summary: 'Show a node: status, address, settings, builds and, when running, its node info',
  example: '/rln node info alice',
  args: nodeOnly,
  role: 'read',
  confirm: 'none',
  mutates: false,
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
          columns: [{ header: 'Build', align: 'right' }, { header: 'Status' }, { header: 'Complete' }, { header: 'Time' }],
          rows: recent.map((b) => [b.buildNumber !== undefined ? `#${b.buildNumber}` : '—', b.buildStatus ?? '—', yesNo(b.buildComplete), formatTime(b.timestamp)]),
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
            ...(ni.pubkey && peerAddressOf(node) ? [{ label: 'Peer address', value: [{ code: `${ni.pubkey}@${peerAddressOf(node)}` }] }] : []),
            { label: 'Channels', value: `${thousands(ni.num_usable_channels ?? 0)} usable / ${thousands(ni.num_channels ?? 0)}`, inline: true },
            { label: 'Peers', value: thousands(ni.num_peers ?? 0), inline: true },
            { label: 'Local balance', value: formatSats(ni.local_balance_sat ?? 0), inline: true },
            { label: 'Pending outbound', value: formatSats(ni.pending_outbound_payments_sat ?? 0), inline: true },
          ]),
        );
      } catch (err) {
        const name = rlnNameOf(err);
        if (name === 'LockedNode') blocks.push(msg.context('The node is locked: node details hidden. Unlock it with `node unlock ' + node.name + '`.'));
        else if (name === 'NotInitialized') blocks.push(msg.context('The node is not initialized yet: run `node init ' + node.name + '`.'));
        else blocks.push(msg.context(`Node API not reachable: ${err instanceof Error ? err.message : String(err)}`));
      }
    }
    return { header: titled('Node', node), tone: statusTone(node.status), summary: `${node.name}: ${node.status}`, blocks };
  },
});

const create = defineCommand({
  path: 'node create',
  summary: 'Create a node on the hosting service',
  example: '/rln node create alice network=regtest',
  args: z.object({
    name: z.string().min(1).max(64).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only').describe('Unique name for the new node'),
    network: z.enum(['regtest', 'testnet']).default('regtest').describe('Bitcoin network: regtest or testnet'),
    webhook: httpsUrl().optional().describe('HTTPS URL for status events (default: the bot, when PUBLIC_URL is set)'),
  }),
  nodeArg: false,
  role: 'admin',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const webhookUrl = ctx.args.webhook ?? (ctx.services.publicUrl ? `${ctx.services.publicUrl.replace(/\/+$/, '')}/webhooks/service` : undefined);
    const { node, message } = await ctx.services.hosting.createNode(compact({ name: ctx.args.name, network: ctx.args.network, webhookUrl }));
    return {
      header: titled('Node created', node),
      tone: 'success',
      summary: `Node ${node.name} created (${node.status})`,
      blocks: [
        msg.fields([
          { label: 'Status', value: statusBadge(node.status), inline: true },
          { label: 'Network', value: node.network, inline: true },
          { label: 'Node id', value: [{ code: node.nodeId }] },
          { label: 'Webhook URL', value: webhookUrl ? [{ code: webhookUrl }] : 'not set' },
        ]),
        ...serviceNote(message),
        ...(webhookUrl
          ? []
          : [msg.context(`Without a webhook URL the service does not tell the bot when ${node.name} changes status: set PUBLIC_URL, or \`node settings ${node.name} webhook=https://…\`.`)]),
        msg.context(`Next: wait for RUNNING (\`node info ${node.name}\`), then \`node init ${node.name}\`.`),
      ],
    };
  },
});

const start = defineCommand({
  path: 'node start',
  summary: 'Start a stopped node',
  example: '/rln node start alice',
  args: nodeOnly,
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const node = requireNode(ctx);
    const { message } = await ctx.services.hosting.startNode(node.nodeId);
    return done(node, 'Node starting', `${node.name} is starting. It will report RUNNING when ready.`, serviceNote(message), 'info');
  },
});

const stop = defineCommand({
  path: 'node stop',
  summary: 'Stop a node (its channels go offline)',
  example: '/rln node stop alice',
  args: nodeOnly,
  role: 'operate',
  confirm: 'button',
  mutates: true,
  // Asks the service, not the cached list: the node may have stopped a moment ago.
  async check(ctx) {
    const node = requireNode(ctx);
    const { status } = await ctx.services.hosting.getNode(node.nodeId);
    if (status !== 'PAUSED') return undefined;
    return { reason: `${node.name} is already stopped (PAUSED); there is nothing to stop.`, next: `Start it with \`/rln node start ${node.name}\`.` };
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    const { message } = await ctx.services.hosting.stopNode(node.nodeId);
    return {
      ...done(node, 'Node stopped', `${node.name} was asked to stop.`, serviceNote(message), 'warning'),
      buttons: [{ label: 'Start again', style: 'primary', command: 'node start', args: { node: node.name } }],
    };
  },
});

const upgrade = defineCommand({
  path: 'node upgrade',
  summary: 'Upgrade a node to the latest RLN image',
  example: '/rln node upgrade alice',
  args: nodeOnly,
  role: 'operate',
  confirm: 'button',
  mutates: true,
  // A state check done in the preview, which runs before the confirmation is asked, until the
  // pipeline has its own state-check step: a node already on the latest image is refused at once.
  async preview(ctx) {
    const node = requireNode(ctx);
    const { current, version } = await upgradeTarget(ctx, node);
    return [
      { label: 'Image', value: `${current ?? 'unknown'} → ${version}`, inline: true },
      { label: 'Goes offline', value: `${node.name} restarts on the new image`, inline: true },
    ];
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    const { current = 'unknown', version } = await upgradeTarget(ctx, node);
    const { message } = await ctx.services.hosting.upgradeNode(node.nodeId);
    return done(node, 'Node upgrading', `${node.name}: ${current} → ${version}`, [...serviceNote(message), msg.context(`Follow it with \`node info ${node.name}\`.`)], 'info');
  },
});

const destroy = defineCommand({
  path: 'node destroy',
  summary: 'Destroy a node for good (typed name; optional backup first)',
  example: '/rln node destroy alice',
  args: z.object({
    node: nodeArg(),
    backup_path: z.string().startsWith('/').optional().describe('Where the node writes the backup, if one is made first (default /backups/…)'),
  }),
  role: 'admin',
  confirm: 'typed-name',
  dialog: {
    title: 'Destroy node',
    submitLabel: 'Destroy',
    intro: 'Backing up first is recommended.',
    check: (values): Record<string, string> =>
      values.backup === 'true' && !values.backup_password ? { backup_password: 'Enter the node password to back it up first, or untick the backup.' } : {},
  },
  secrets: [
    { name: 'backup', label: 'Back up the node first (recommended: destroying is irreversible)', kind: 'checkbox', initial: 'true' },
    {
      name: 'backup_password',
      label: 'Node password (for the backup)',
      kind: 'secret',
      required: false,
      askedIf: 'backup',
    },
  ],
  mutates: true,
  /** Under approval, the backup asked for in the dialog runs now: its password is not kept for the approver. */
  async beforeApproval(ctx) {
    const node = requireNode(ctx);
    const path = await backupFirst(ctx, node, ctx.args.backup_path ?? defaultBackupPath(node, new Date(ctx.services.now())));
    return path ? [{ label: 'Backup (made before this request)', value: [{ code: path }] }] : [];
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    const blocks: Block[] = [];
    const path = await backupFirst(ctx, node, ctx.args.backup_path ?? defaultBackupPath(node, new Date(ctx.services.now())));
    if (path) blocks.push(msg.fields([{ label: 'Backup', value: [{ code: path }] }]));
    const { message } = await ctx.services.hosting.destroyNode(node.nodeId);
    return {
      header: titled('Node destroyed', node),
      tone: 'danger',
      summary: `Node ${node.name} destroyed`,
      blocks: [msg.text(`${node.name} (${node.nodeId}) was destroyed.`), ...blocks, ...serviceNote(message)],
    };
  },
});

const settings = defineCommand({
  path: 'node settings',
  summary: "Set a node's webhook URL",
  example: '/rln node settings alice webhook=https://bot.example.com/webhooks/service',
  args: z.object({
    node: nodeArg(),
    webhook: httpsUrl().optional().describe('HTTPS URL for status events (default: the bot, when PUBLIC_URL is set)'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const node = requireNode(ctx);
    const webhookUrl =
      ctx.args.webhook ?? (ctx.services.publicUrl ? `${ctx.services.publicUrl.replace(/\/+$/, '')}/webhooks/service/${node.nodeId}` : undefined);
    if (!webhookUrl) {
      throw new UserError('invalid_arguments', 'No webhook URL given, and PUBLIC_URL is not set.', 'Give one: `node settings <node> webhook=https://…`.');
    }
    const { message } = await ctx.services.hosting.updateSettings(node.nodeId, { webhookUrl });
    return done(node, 'Settings updated', 'Webhook URL set.', [msg.fields([{ label: 'Webhook URL', value: [{ code: webhookUrl }] }]), ...serviceNote(message)]);
  },
});

const logs = defineCommand({
  path: 'node logs',
  summary: "Export a node's logs: the last lines here, the full files attached (secrets masked)",
  example: '/rln node logs alice lines=100',
  args: z.object({
    node: nodeArg(),
    task: z.string().min(1).optional().describe('Id of an export already started (shown by an earlier `node logs`)'),
    lines: int().min(1).max(500).default(50).describe('How many of the last lines to show (default 50)'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const node = requireNode(ctx);
    const taskId = ctx.args.task ?? (await ctx.services.hosting.exportLogs(node.nodeId)).taskId;
    let result = { ready: false, urls: [] as string[] };
    const attempts = Math.max(1, logPolling.attempts);
    let polls = 0;
    // While it waits, a progress message where the command was typed, edited at each check.
    const waiting = (text: string): Message => ({ header: titled('Logs', node), tone: 'info', blocks: [msg.text(text), msg.progress('Checks', polls, attempts)] });
    const progress = await ctx.services.progress?.start(ctx.place, waiting('Exporting the logs…')).catch(() => undefined);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(logPolling.delayMs);
      result = await ctx.services.hosting.getLogs(node.nodeId, taskId);
      polls++;
      if (result.ready && result.urls.length > 0) break;
      await progress?.update(waiting(`Exporting the logs… not ready after ${polls} check${polls === 1 ? '' : 's'}.`));
    }
    await progress?.update(waiting(result.ready ? 'Export ready: the lines and files follow.' : 'Still preparing: see the answer for how to ask again.'));
    if (!result.ready || result.urls.length === 0) {
      return done(node, 'Logs', 'The log export is still preparing.', [
        msg.progress('Export', polls, attempts + 1),
        msg.context([`Run `, { code: `node logs ${node.name} task=${taskId}` }, ` in a minute.`]),
      ], 'info');
    }
    const view = await logView(result.urls, { lines: ctx.args.lines, nodeName: node.name });
    return {
      ...done(node, 'Logs', `Export ready after ${polls} check${polls === 1 ? '' : 's'}; ${result.urls.length} file${result.urls.length === 1 ? '' : 's'} attached.`, [
        ...view.blocks,
        msg.context(`Export task ${taskId}. Secrets in the logs are masked as in the bot's own log.`),
      ]),
      files: view.files,
    };
  },
});

const image = defineCommand({
  path: 'node image',
  summary: "The latest RLN image, and what each node (or the one named) runs",
  example: '/rln node image alice',
  positional: ['node'],
  args: z.object({ node: z.string().min(1).optional().describe('Node name or id (optional)') }),
  role: 'read',
  confirm: 'none',
  mutates: false,
  async handler(ctx) {
    const { version } = await ctx.services.hosting.latestImage();
    if (!ctx.node) return imageOverview(version, await ctx.services.hosting.listNodes());
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

// ---- node API lifecycle -------------------------------------------------------------------

const passwordField = { name: 'password', label: 'Node password', kind: 'secret' as const, required: true };

const init = defineCommand({
  path: 'node init',
  summary: "Initialize a node's wallet; the mnemonic is shown once, privately",
  example: '/rln node init alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'none',
  secrets: [
    { ...passwordField, label: 'New node password', hint: 'At least 8 characters. Needed to unlock, back up and restore.' },
    { name: 'password_repeat', label: 'Repeat the new password', kind: 'secret', required: true, hint: 'A typo here would lock you out of the node.' },
  ],
  mutates: true,
  async handler(ctx): Promise<Reply> {
    const { node, api } = nodeClient(ctx);
    const password = needSecret(ctx, 'password', 'password');
    sameTwice(ctx, 'password', 'password_repeat', `${node.name} was not initialized`, `node init ${node.name}`);
    const { mnemonic } = await api.init({ password });
    return {
      kind: 'message',
      visibility: 'private',
      message: {
        header: titled('Node initialized', node),
        tone: 'warning',
        summary: `${node.name} initialized`,
        blocks: [
          msg.text([{ bold: 'Write these words down now, offline. They are shown only this once and are never stored by the bot.' }]),
          msg.code(mnemonic),
          msg.context('Anyone with these words controls the funds. Do not paste them in a channel.'),
          msg.context(`Next: \`node unlock ${node.name}\`.`),
        ],
        buttons: [{ label: 'Unlock', style: 'primary', command: 'node unlock', args: { node: node.name } }],
      },
    };
  },
});

const unlock = defineCommand({
  path: 'node unlock',
  summary: 'Unlock a node with its password',
  example: '/rln node unlock alice',
  args: z.object({
    node: nodeArg(),
    bitcoind_rpc_username: z.string().optional().describe('bitcoind RPC user (default: the service’s)'),
    bitcoind_rpc_host: z.string().optional().describe('bitcoind RPC host (default: the service’s)'),
    bitcoind_rpc_port: int().optional().describe('bitcoind RPC port (default: the service’s)'),
    indexer_url: z.string().optional().describe('Electrum/Esplora indexer URL (default: the service’s)'),
    proxy_endpoint: z.string().optional().describe('RGB proxy endpoint (default: the service’s)'),
    announce_alias: z.string().optional().describe('Alias announced to the network'),
    announce_addresses: z.string().optional().describe('Addresses announced to the network, comma-separated'),
  }),
  role: 'admin',
  confirm: 'none',
  secrets: [passwordField, { name: 'bitcoind_rpc_password', label: 'bitcoind RPC password (optional)', kind: 'secret', required: false }],
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { node: _n, announce_addresses, ...rest } = ctx.args;
    await api.unlock(
      compact({
        password: needSecret(ctx, 'password', 'password'),
        ...rest,
        bitcoind_rpc_password: ctx.secrets.bitcoind_rpc_password || undefined,
        announce_addresses: announce_addresses !== undefined ? splitList(announce_addresses) : undefined,
      }),
    );
    return done(node, 'Node unlocked', `${node.name} is unlocked and online.`);
  },
});

const lock = defineCommand({
  path: 'node lock',
  summary: 'Lock a node (it goes offline until unlocked)',
  example: '/rln node lock alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.lock();
    return done(node, 'Node locked', `${node.name} is locked. Unlock it with \`node unlock ${node.name}\`.`, [], 'warning');
  },
});

const password = defineCommand({
  path: 'node password',
  summary: "Change a node's password (the node must be locked)",
  example: '/rln node password alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'none',
  secrets: [
    { name: 'old_password', label: 'Current password', kind: 'secret', required: true },
    { name: 'new_password', label: 'New password', kind: 'secret', required: true, hint: 'At least 8 characters' },
    { name: 'new_password_repeat', label: 'Repeat the new password', kind: 'secret', required: true, hint: 'A typo here would lock you out of the node.' },
  ],
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    sameTwice(ctx, 'new_password', 'new_password_repeat', `The password of ${node.name} was not changed`, `node password ${node.name}`);
    await api.changepassword({
      old_password: needSecret(ctx, 'old_password', 'current password'),
      new_password: needSecret(ctx, 'new_password', 'new password'),
    });
    return done(node, 'Password changed', `The password of ${node.name} was changed.`);
  },
});

const backup = defineCommand({
  path: 'node backup',
  summary: 'Back up a node (the node must be locked)',
  example: '/rln node backup alice backup_path=/backups/alice.backup',
  args: z.object({
    node: nodeArg(),
    backup_path: z.string().startsWith('/').optional().describe('Path on the node for the backup file (default /backups/<name>-<time>.backup)'),
  }),
  role: 'operate',
  confirm: 'none',
  secrets: [{ ...passwordField, hint: 'The backup is encrypted with it' }],
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const path = ctx.args.backup_path ?? defaultBackupPath(node, new Date(ctx.services.now()));
    await api.backup({ backup_path: path, password: needSecret(ctx, 'password', 'password') });
    return done(node, 'Backup made', 'Backup written.', [msg.fields([{ label: 'Path', value: [{ code: path }] }]), msg.context(`Restore with \`node restore ${node.name} ${path}\`.`)]);
  },
});

const restore = defineCommand({
  path: 'node restore',
  summary: 'Restore a node from a backup (the node must be locked)',
  example: '/rln node restore alice /backups/alice.backup',
  args: z.object({
    node: nodeArg(),
    backup_path: z.string().min(1).describe('Path of the backup file on the node'),
  }),
  role: 'admin',
  confirm: 'none',
  secrets: [{ ...passwordField, label: 'Password of the backup' }],
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.restore({ backup_path: ctx.args.backup_path, password: needSecret(ctx, 'password', 'password') });
    return done(node, 'Node restored', `${node.name} was restored from ${ctx.args.backup_path}.`, [msg.context(`Next: \`node unlock ${node.name}\`.`)]);
  },
});

const sync = defineCommand({
  path: 'node sync',
  summary: "Sync a node's wallet with the chain",
  example: '/rln node sync alice',
  args: nodeOnly,
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.sync();
    return done(node, 'Node synced', `${node.name} is synced.`);
  },
});

const shutdown = defineCommand({
  path: 'node shutdown',
  summary: 'Shut down the node process (it comes back locked)',
  example: '/rln node shutdown alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'button',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.shutdown();
    return done(node, 'Node shut down', `${node.name} was shut down. It will need \`node unlock ${node.name}\`.`, [], 'warning');
  },
});

export const nodeCommands: CommandDefinition<any>[] = [
  list,
  info,
  create,
  start,
  stop,
  upgrade,
  destroy,
  settings,
  logs,
  image,
  init,
  unlock,
  lock,
  password,
  backup,
  restore,
  sync,
  shutdown,
];

