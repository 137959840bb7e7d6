/**
 * `node …`: the hosting service operations (list, info, create, start, stop, upgrade, destroy,
 * settings, logs, image). The node API lifecycle (init, unlock, lock, password, backup, restore,
 * sync, shutdown) is in node-lifecycle.ts.
 */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { sleep } from '../src/vocabulary/index.js';
import { statusBadge } from '../src/vocabulary/index.js';
import { msg, type Block } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { httpsUrl, nodeArg, nodeOnly } from './support/arg-types.js';
import { done, serviceNote } from './support/node-done.js';
import { freshNode, fundsOf, notRunningNext, offlineField } from './support/node-state.js';
import { nodeLifecycleCommands } from './node-lifecycle.js';
import { upgrade } from './node-upgrade.js';
import { image, info, list } from './node-view.js';
import { compact, titled } from './support/present.js';
import type { Message } from '../src/vocabulary/index.js';
import { flag, int } from './support/arg-types.js';
import { requireNode } from './support/require-node.js';
import { logView } from './support/log-view.js';
import { backupFirst, backupPasswordField, backupPathArg, backupPathOf } from './support/backup-first.js';

/** How `node logs` waits for an export: a few short polls, then it hands back the task id. */
export const logPolling = { attempts: 5, delayMs: 500 };

export { imageOf } from './support/node-image.js';

// ---- hosting service ----------------------------------------------------------------------

const create = defineCommand({
  path: 'node create',
  summary: 'Create a node on the hosting service',
  example: '/rln node create alice network=regtest',
  args: z.object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only')
      .describe('Unique name for the new node'),
    network: z.enum(['regtest', 'testnet']).default('regtest').describe('Bitcoin network: regtest or testnet'),
    webhook: httpsUrl().optional().describe('HTTPS URL for status events (default: the bot, when PUBLIC_URL is set)'),
  }),
  role: 'admin',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const base = ctx.services.publicUrl ? `${ctx.services.publicUrl.replace(/\/+$/, '')}/webhooks/service` : undefined;
    let webhookUrl = ctx.args.webhook ?? base;
    const { node, message } = await ctx.services.hosting.createNode(
      compact({ name: ctx.args.name, network: ctx.args.network, webhookUrl }),
    );
    // A name that differs from another node's only in case makes both ambiguous when typed loosely (P31).
    // Asked after the create, so the create is the first thing the service is asked.
    const twin = (await ctx.services.hosting.listNodes().catch(() => [])).find(
      (n) => n.nodeId !== node.nodeId && n.name !== node.name && n.name.toLowerCase() === node.name.toLowerCase(),
    );
    // The bot's own URL names the node, as `node info` and `node settings webhook=bot` give it (P30);
    // its id is known only now. Should the service refuse, the URL without the id still works.
    if (!ctx.args.webhook && base) {
      const own = `${base}/${node.nodeId}`;
      webhookUrl = await ctx.services.hosting.updateSettings(node.nodeId, { webhookUrl: own }).then(
        () => own,
        () => webhookUrl,
      );
    }
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
        ...(twin
          ? [msg.context(`⚠ ${twin.name} exists too: from now on give each of the two by its exact name, in its case, or by its id.`)]
          : []),
        ...(webhookUrl
          ? []
          : [
              msg.context(
                `Without a webhook URL the service does not tell the bot when ${node.name} changes status: set PUBLIC_URL, or \`node settings ${node.name} webhook=https://…\`.`,
              ),
            ]),
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
  // Asks the service, not the cached list, as `node stop` does: a node already up is said so, not a service error.
  async check(ctx) {
    const node = requireNode(ctx);
    const { status } = await freshNode(ctx, node);
    if (status === 'RUNNING')
      return {
        reason: `${node.name} is already running; there is nothing to start.`,
        next: `See it with \`/rln node info ${node.name}\`.`,
      };
    if (status === 'STARTING' || status === 'IN_PROGRESS')
      return {
        reason: `${node.name} is ${status} already; there is nothing to start now.`,
        next: `Wait until it is RUNNING: \`/rln node info ${node.name}\`.`,
      };
    return undefined;
  },
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
    const { status } = await freshNode(ctx, node);
    if (status === 'RUNNING') return undefined;
    if (status === 'PAUSED')
      return {
        reason: `${node.name} is already stopped (PAUSED); there is nothing to stop.`,
        next: `Start it with \`/rln node start ${node.name}\`.`,
      };
    return {
      reason: `${node.name} is ${status}, not RUNNING: there is nothing to stop now.`,
      next: notRunningNext({ name: node.name, status }),
    };
  },
  async preview(ctx) {
    const node = requireNode(ctx);
    return [await offlineField(ctx, node, `it is started (\`node start ${node.name}\`) and unlocked again`)];
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

const destroy = defineCommand({
  path: 'node destroy',
  summary: 'Destroy a node for good (typed name; warns of the funds it still holds)',
  example: '/rln node destroy alice',
  args: z.object({
    node: nodeArg(),
    backup_path: backupPathArg('Where the node writes the backup, if one is made first (default /backups/…)'),
    backup: flag().optional().describe('Write a backup first (the dialog asks; its box wins)'),
  }),
  role: 'admin',
  confirm: 'typed-name',
  dialog: {
    title: 'Destroy node',
    submitLabel: 'Destroy',
    // Honest about the backup: the service cannot download one (docs/reference/service-interface.md has no such
    // operation), so a backup made here stays on the node's disk and goes away with the node.
    intro:
      "A backup made here is written to the node's own disk and is destroyed with the node: the service offers no way to download it, so it does not keep the funds. What keeps them is the mnemonic written down at `node init`, or moving them out first (`wallet send`, `channel close`, `asset send`).",
    check: (values): Record<string, string> =>
      values.backup === 'true' && !values.backup_password
        ? { backup_password: 'Enter the node password to back it up first, or untick the backup.' }
        : {},
  },
  secrets: [
    {
      name: 'backup',
      label: "Write a backup to the node's disk first (it is destroyed with the node)",
      kind: 'checkbox',
      initial: 'false',
    },
    backupPasswordField,
  ],
  /** Shown in the typed-name dialog: what the node still holds, with the amounts. */
  async preview(ctx) {
    const node = requireNode(ctx);
    if (node.status !== 'RUNNING')
      return [
        {
          label: 'Funds',
          value: `not readable while ${node.name} is ${node.status}: it may still hold funds (its mnemonic restores them).`,
        },
      ];
    const { holds, unread } = await fundsOf(ctx, node);
    if (holds.length) {
      return [
        {
          label: '⚠️ Still holds',
          value: `${holds.join(', ')}. Destroying the node loses them unless its mnemonic is kept: move them out first.`,
        },
      ];
    }
    return [
      {
        label: 'Funds',
        value: unread ? 'not all readable (is it locked?): it may still hold funds.' : 'none: no on-chain sats, channels or assets.',
      },
    ];
  },
  mutates: true,
  async handler(ctx) {
    const node = requireNode(ctx);
    const blocks: Block[] = [];
    const path = ctx.args.backup ? await backupFirst(ctx, node, backupPathOf(ctx, node)) : undefined;
    if (path)
      blocks.push(
        msg.fields([{ label: 'Backup', value: [{ code: path }] }]),
        msg.context("The backup was on the node's own disk and went away with it."),
      );
    const { message } = await ctx.services.hosting.destroyNode(node.nodeId);
    return {
      header: titled('Node destroyed', node),
      tone: 'danger',
      summary: `Node ${node.name} destroyed`,
      blocks: [msg.text(`${node.name} (${node.nodeId}) was destroyed.`), ...blocks, ...serviceNote(message)],
    };
  },
});

/** `webhook=`: an HTTPS URL, or `bot` for the bot's own (PUBLIC_URL/webhooks/service/<id>). */
const webhookArg = () =>
  z
    .string()
    .trim()
    .superRefine((v, zctx) => {
      if (v.toLowerCase() === 'bot') return;
      const r = httpsUrl().safeParse(v);
      if (!r.success)
        zctx.addIssue({
          code: 'custom',
          message: `${r.error.issues[0]?.message ?? 'expected an HTTPS URL'}; or bot, for the bot's own URL`,
        });
    });

const settings = defineCommand({
  path: 'node settings',
  summary: "Show a node's webhook URL, or set it (webhook=https://… or webhook=bot)",
  example: '/rln node settings alice webhook=https://bot.example.com/webhooks/service',
  args: z.object({
    node: nodeArg(),
    webhook: webhookArg()
      .optional()
      .describe("HTTPS URL for status events, or bot for the bot's own (PUBLIC_URL); omit to see the settings"),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const node = requireNode(ctx);
    const own = ctx.services.publicUrl ? `${ctx.services.publicUrl.replace(/\/+$/, '')}/webhooks/service/${node.nodeId}` : undefined;
    // Without webhook= nothing changes: the settings are shown, with how to change them.
    if (ctx.args.webhook === undefined) {
      const fresh = await ctx.services.hosting.getNode(node.nodeId);
      const current = fresh.settings?.webhookUrl;
      return {
        header: titled('Settings', node),
        tone: 'info',
        blocks: [
          msg.fields([{ label: 'Webhook URL', value: current ? [{ code: current }] : 'not set' }]),
          msg.context(
            `Nothing was changed. Set it with \`node settings ${node.name} webhook=https://…\`${own ? `, or \`webhook=bot\` for the bot's own (${own})` : ''}.`,
          ),
        ],
      };
    }
    const webhookUrl = ctx.args.webhook.toLowerCase() === 'bot' ? own : ctx.args.webhook;
    if (!webhookUrl) {
      throw new UserError(
        'invalid_arguments',
        "`webhook=bot` needs the bot's public URL, and PUBLIC_URL is not set.",
        'Give one: `node settings <node> webhook=https://…`.',
      );
    }
    const { message } = await ctx.services.hosting.updateSettings(node.nodeId, { webhookUrl });
    return done(node, 'Settings updated', 'Webhook URL set.', [
      msg.fields([{ label: 'Webhook URL', value: [{ code: webhookUrl }] }]),
      ...serviceNote(message),
    ]);
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
    const waiting = (text: string): Message => ({
      header: titled('Logs', node),
      tone: 'info',
      blocks: [msg.text(text), msg.progress('Checks', polls, attempts)],
    });
    const progress = await ctx.services.progress?.start(ctx.place, waiting('Exporting the logs…')).catch(() => undefined);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(logPolling.delayMs);
      result = await ctx.services.hosting.getLogs(node.nodeId, taskId);
      polls++;
      if (result.ready && result.urls.length > 0) break;
      await progress?.update(waiting(`Exporting the logs… not ready after ${polls} check${polls === 1 ? '' : 's'}.`));
    }
    await progress?.update(
      waiting(result.ready ? 'Export ready: the lines and files follow.' : 'Still preparing: see the answer for how to ask again.'),
    );
    if (!result.ready || result.urls.length === 0) {
      return done(
        node,
        'Logs',
        'The log export is still preparing.',
        [
          msg.progress('Export', polls, attempts + 1),
          msg.context([`Run `, { code: `node logs ${node.name} task=${taskId}` }, ` in a minute.`]),
        ],
        'info',
      );
    }
    const view = await logView(result.urls, { lines: ctx.args.lines, nodeName: node.name, maxBytes: ctx.services.logDownloadMaxBytes });
    return {
      ...done(
        node,
        'Logs',
        `Export ready after ${polls} check${polls === 1 ? '' : 's'}; ${result.urls.length} file${result.urls.length === 1 ? '' : 's'} attached.`,
        [...view.blocks, msg.context(`Export task ${taskId}. Secrets in the logs are masked as in the bot's own log.`)],
      ),
      files: view.files,
    };
  },
});

export const nodeCommands: AnyCommand[] = [
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
  ...nodeLifecycleCommands,
];
