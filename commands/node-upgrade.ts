/**
 * `node upgrade`: to the latest RLN image. Its confirmation says what changes (the image, the lock it
 * comes back with, the backups it can no longer restore, the commands whose inputs change) and
 * offers a backup first.
 */
import { z } from 'zod';
import { UserError, msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { upgradeTarget, upToDateRefusal } from './support/node-image.js';
import { nodeArg } from './support/arg-types.js';
import { done, serviceNote } from './support/node-done.js';
import { freshNode, offlineField } from './support/node-state.js';
import { requireNode } from './support/require-node.js';
import { backupFirst, backupPasswordField, backupPathArg, backupPathOf } from './support/backup-first.js';
import { upgradeNotes } from './support/upgrade-notes.js';

/** `backup=yes` on `node upgrade`: a private dialog asks the node password, and a backup is made first. */
const yes = (v: string | undefined) => /^(yes|true|y|1|on)$/i.test(v ?? '');
const UPGRADE_BACKUP = { notDone: 'upgraded', command: 'node upgrade', without: 'upgrade without one' };

export const upgrade = defineCommand({
  path: 'node upgrade',
  summary: 'Upgrade a node to the latest RLN image (it comes back locked)',
  example: '/rln node upgrade alice',
  args: z.object({
    node: nodeArg(),
    backup: z
      .enum(['yes', 'no'])
      .optional()
      .describe('yes: back it up to its own disk first (a private dialog asks the password); default no'),
    backup_path: backupPathArg('Where the node writes that backup (default /backups/…)'),
  }),
  role: 'operate',
  confirm: 'button',
  // The backup's password is asked only when a backup was asked for; that dialog is then the confirmation.
  // Under approval the password is asked of the requester once approved (nothing is locked before).
  secrets: [backupPasswordField],
  dialogWhen: (args) => yes(args.backup),
  dialog: { title: 'Back up, then upgrade', submitLabel: 'Back up and upgrade' },
  confirmChoices: (args) => (args.backup === 'yes' ? [] : [{ label: 'Back up, then upgrade', args: { backup: 'yes' } }]),
  mutates: true,
  // Asks the service for the node's image now (the cached list may predate an upgrade).
  async check(ctx) {
    const node = await freshNode(ctx, requireNode(ctx));
    const { version, upToDate } = await upgradeTarget(ctx, node);
    return upToDate ? upToDateRefusal(node, version) : undefined;
  },
  async preview(ctx) {
    const node = await freshNode(ctx, requireNode(ctx));
    const { current, version } = await upgradeTarget(ctx, node);
    const [image, ...notes] = upgradeNotes(node, current, version, ctx.args.backup !== 'yes');
    return [image, await offlineField(ctx, node, `it is back on the new image and someone unlocks it`), ...notes];
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    const fresh = await freshNode(ctx, node);
    const { current = 'unknown', version, upToDate } = await upgradeTarget(ctx, fresh);
    if (upToDate) {
      const r = upToDateRefusal(node, version);
      throw new UserError('conflict', r.reason, r.next);
    }
    const path = await backupBeforeUpgrade(ctx);
    const { message } = await ctx.services.hosting.upgradeNode(node.nodeId);
    return done(
      node,
      'Node upgrading',
      `${node.name}: ${current} → ${version}. It comes back locked: the channels watching it get an Unlock button when it is back.`,
      [
        ...(path
          ? [
              msg.fields([{ label: 'Backup (before the upgrade)', value: [{ code: path }] }]),
              msg.context('That backup restores on the old image only: take a new one after unlocking.'),
            ]
          : []),
        ...serviceNote(message),
        msg.context(`Follow it with \`node info ${node.name}\`.`),
      ],
      'info',
    );
  },
});

/** The backup `backup=yes` asks for, made with the dialog's password (locking the node first, as RLN needs). */
async function backupBeforeUpgrade(ctx: Parameters<typeof upgrade.handler>[0]): Promise<string | undefined> {
  if (ctx.args.backup !== 'yes') return undefined;
  const node = requireNode(ctx);
  return backupFirst(ctx, node, backupPathOf(ctx, node), UPGRADE_BACKUP);
}
