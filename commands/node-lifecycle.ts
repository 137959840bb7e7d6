/**
 * `node init|unlock|lock|password|backup|restore|sync|shutdown`: the node API lifecycle (backup in node-backup.ts). Each one
 * that asks for a password or a confirmation first checks the wallet's state (`check`), so that
 * nobody types a password for a command that cannot run.
 */
import { z } from 'zod';
import { UserError, msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { SyncStrategy } from '../src/node-api/index.js';
import { nodeArg, nodeOnly } from './support/arg-types.js';
import { nodeClient } from './support/node-client.js';
import { done } from './support/node-done.js';
import { offlineField, requireRunning, requireWallet } from './support/node-state.js';
import { requireNode } from './support/require-node.js';
import { MIN_PASSWORD, needSecret, newPasswordErrors, passwordField } from './support/node-secrets.js';
import { init } from './node-init.js';
import { unlock } from './node-unlock.js';
import { backup } from './node-backup.js';

const lock = defineCommand({
  path: 'node lock',
  summary: 'Lock a node (it takes no payments until unlocked)',
  example: '/rln node lock alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'button',
  check: (ctx) => requireWallet(ctx, requireNode(ctx), 'unlocked', 'lock'),
  async preview(ctx) {
    const node = requireNode(ctx);
    return [await offlineField(ctx, node, `someone unlocks it with \`node unlock ${node.name}\` and its password`)];
  },
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
    {
      name: 'new_password',
      label: 'New password',
      kind: 'secret',
      required: true,
      hint: `At least ${MIN_PASSWORD} characters`,
      minLength: MIN_PASSWORD,
    },
    {
      name: 'new_password_repeat',
      label: 'Repeat the new password',
      kind: 'secret',
      required: true,
      hint: 'A typo here would lock you out of the node.',
    },
  ],
  dialog: { check: (values) => newPasswordErrors(values, 'new_password', 'new_password_repeat') },
  check: (ctx) => requireWallet(ctx, requireNode(ctx), 'locked', 'change its password'),
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.changepassword({
      old_password: needSecret(ctx, 'old_password', 'current password'),
      new_password: needSecret(ctx, 'new_password', 'new password'),
    });
    return done(node, 'Password changed', `The password of ${node.name} was changed.`);
  },
});

const restore = defineCommand({
  path: 'node restore',
  summary: 'Restore a node from a backup, replacing its wallet (the node must not be unlocked)',
  example: '/rln node restore alice /backups/alice.backup',
  args: z.object({
    node: nodeArg(),
    backup_path: z.string().min(1).describe('Path of the backup file on the node'),
  }),
  role: 'admin',
  confirm: 'none',
  // The confirmation is a box in the private dialog: a button before the dialog would be a second
  // round trip, and the password can only be typed in the dialog (docs/ARCHITECTURE.md, "Secrets").
  secrets: [
    {
      name: 'overwrite',
      label: "Replace this node's wallet (keys, channels, assets) with the backup's",
      kind: 'checkbox',
      initial: 'false',
      confirms: true,
    },
    { ...passwordField, label: 'Password of the backup' },
  ],
  dialog: {
    intro:
      "Restoring overwrites the node's current wallet with the backup's: what the wallet holds now and the backup does not is lost. Tick the box to confirm.",
    submitLabel: 'Restore',
    check: (values): Record<string, string> =>
      values.overwrite === 'true'
        ? {}
        : { overwrite: 'Tick the box to confirm that the wallet is replaced, or close the dialog to keep it.' },
  },
  check: (ctx) => requireWallet(ctx, requireNode(ctx), 'not unlocked', 'restore a backup'),
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    if (ctx.secrets.overwrite !== 'true')
      throw new UserError(
        'invalid_arguments',
        `${node.name} was not restored: the overwrite was not confirmed.`,
        'Run it again and tick the box.',
      );
    await api.restore({ backup_path: ctx.args.backup_path, password: needSecret(ctx, 'password', 'password') });
    return done(node, 'Node restored', `${node.name} was restored from ${ctx.args.backup_path}.`, [
      msg.context(`Next: \`node unlock ${node.name}\`.`),
    ]);
  },
});

const sync = defineCommand({
  path: 'node sync',
  summary: "Sync a node's wallet with the chain",
  example: '/rln node sync alice strategy=FullScan',
  args: z.object({
    node: nodeArg(),
    strategy: SyncStrategy.optional().describe(
      'FastSync (default), FullSync or FullScan (6887cbf images; f379330 ones sync their own way)',
    ),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const shape = await api.generation('sync');
    await api.sync({ strategy: ctx.args.strategy });
    const note =
      shape === 'f379330' && ctx.args.strategy !== undefined
        ? [msg.context(`${node.name} runs an image with the f379330 node API, which takes no strategy: it synced its own way.`)]
        : [];
    const how = shape === '6887cbf' ? ` (${ctx.args.strategy ?? 'FastSync'})` : '';
    return done(node, 'Node synced', `${node.name} is synced${how}.`, note);
  },
});

const shutdown = defineCommand({
  path: 'node shutdown',
  summary: 'Shut down the node process (it comes back locked)',
  example: '/rln node shutdown alice',
  args: nodeOnly,
  role: 'admin',
  confirm: 'button',
  check: (ctx) => requireRunning(ctx, requireNode(ctx), 'shut down'),
  async preview(ctx) {
    const node = requireNode(ctx);
    return [await offlineField(ctx, node, `it is unlocked again with \`node unlock ${node.name}\``)];
  },
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    await api.shutdown();
    return done(node, 'Node shut down', `${node.name} was shut down. It will need \`node unlock ${node.name}\`.`, [], 'warning');
  },
});

export const nodeLifecycleCommands: AnyCommand[] = [init, unlock, lock, password, backup, restore, sync, shutdown];
