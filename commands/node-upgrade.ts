/**
 * `node upgrade`: to the latest RLN image. Its confirmation says what changes (the image, the lock it
 * comes back with, the backups it can no longer restore, the commands whose inputs change) and
 * offers a backup first.
 */
import { z } from 'zod';
import { UserError, msg } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { upgradeTarget, upToDateRefusal } from './support/node-image.js';
import { nodeArg } from './support/arg-types.js';
import { done, serviceNote } from './support/node-done.js';
import { freshNode, offlineField } from './support/node-state.js';
import { requireNode } from './support/require-node.js';
import { backupFirst, backupPasswordField, backupPathArg, backupPathOf } from './support/backup-first.js';
import { upgradeNotes } from './support/upgrade-notes.js';
import { readOnce } from './support/read-once.js';

/** `backup=yes` on `node upgrade`: a private dialog asks the node password, and a backup is made first. */
const yes = (v: string | undefined) => /^(yes|true|y|1|on)$/i.test(v ?? '');
const UPGRADE_BACKUP = { notDone: 'upgraded', command: 'node upgrade', without: 'upgrade without one' };

/**
 * The node as the service has it now (the cached list may predate an upgrade) and the image it
 * would go to: asked once by the check and the preview of one attempt (readOnce), and again by
 * the handler when it acts.
 */
const upgradePlan = (ctx: CommandContext<unknown>) => {
  const node = requireNode(ctx);
  return readOnce(ctx, `node upgrade plan ${node.nodeId}`, async () => {
    const fresh = await freshNode(ctx, node);
    return { fresh, ...(await upgradeTarget(ctx, fresh)) };
  });
};

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
  async check(ctx) {
    const { fresh, version, upToDate } = await upgradePlan(ctx);
    return upToDate ? upToDateRefusal(fresh, version) : undefined;
  },
  async preview(ctx) {
    const { fresh, current, version } = await upgradePlan(ctx);
    const [image, ...notes] = upgradeNotes(fresh, current, version, ctx.args.backup !== 'yes');
    return [image, await offlineField(ctx, fresh, `it is back on the new image and someone unlocks it`), ...notes];
  },
  async handler(ctx) {
    const node = requireNode(ctx);
    const { current = 'unknown', version, upToDate } = await upgradePlan(ctx);
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
