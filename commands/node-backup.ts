/**
 * `node backup`: a backup of the node to a file on its own disk. RLN backs up a locked node only
 * (its /backup answers 403 UnlockedNode otherwise), so on an unlocked node plain `node backup` is
 * refused before asking, and `lock=yes` (what a `backup` alert's Back up button runs) locks it
 * first: its private dialog then says so, with a box to tick that is the confirmation, and the
 * answer says that the node stays locked until someone unlocks it, with the button to do it.
 */
import { z } from 'zod';
import { UserError, msg } from '../src/vocabulary/index.js';
import type { DialogField } from '../src/engine/index.js';
import { defineCommand } from './define-command.js';
import { nodeArg } from './support/arg-types.js';
import { nodeClient } from './support/node-client.js';
import { done } from './support/node-done.js';
import { BackupAfterLockFailed, backupLockingFirst, backupPathArg, backupPathOf } from './support/backup-first.js';
import { FACTS_TIMEOUT_MS, offlineField, requireWallet } from './support/node-state.js';
import { lockStateOf } from './support/lock-state.js';
import { requireNode } from './support/require-node.js';
import { needSecret, passwordField } from './support/node-secrets.js';

const LOCK_BOX = 'lock_first';
const locking = (lock: string | undefined) => lock === 'yes';

const passwordBox: DialogField = { ...passwordField, hint: 'The backup is encrypted with this password' };
const lockBox: DialogField = {
  name: LOCK_BOX,
  label: 'Lock the node for the backup: it takes no payments until someone unlocks it again',
  kind: 'checkbox',
  initial: 'false',
  confirms: true,
  onlyWithArg: 'lock',
};

export const backup = defineCommand({
  path: 'node backup',
  summary: 'Back up a node to a file on its own disk (the node must be locked; lock=yes locks it first)',
  example: '/rln node backup alice backup_path=/backups/alice.backup',
  args: z.object({
    node: nodeArg(),
    backup_path: backupPathArg('Path on the node for the backup file (default /backups/<name>-<time>.backup)'),
    lock: z
      .enum(['yes', 'no'])
      .optional()
      .describe('yes: lock an unlocked node first (RLN backs up locked nodes only); it stays locked. Default no'),
  }),
  role: 'operate',
  confirm: 'none',
  secrets: [lockBox, passwordBox],
  dialog: {
    intro:
      "The backup is written to the node's own disk: the service offers no way to download it, and it is lost if the node is destroyed.",
    // The box is asked only of an unlocked node (see `fields`): ticking it is the confirmation that it is locked.
    check: (values): Record<string, string> =>
      values[LOCK_BOX] === 'true'
        ? {}
        : { [LOCK_BOX]: 'Tick the box to lock the node for the backup, or close the dialog to leave it unlocked.' },
    // The box only when the node is unlocked now (or does not say in time): a locked node needs no lock.
    async fields(ctx) {
      if (!locking(ctx.args.lock)) return [passwordBox];
      const state = await lockStateOf(ctx, requireNode(ctx), FACTS_TIMEOUT_MS);
      return state === 'locked' ? [passwordBox] : [{ ...lockBox, label: `Lock ${requireNode(ctx).name} for the backup` }, passwordBox];
    },
  },
  // With lock=yes an unlocked node is fine: it is locked first. Without, its refusal says lock=yes exists.
  check(ctx) {
    const node = requireNode(ctx);
    if (locking(ctx.args.lock)) return requireWallet(ctx, node, 'initialised', 'back up');
    return requireWallet(ctx, node, 'locked', 'back up', {
      whenUnlocked: `Or back up with \`/rln node backup ${node.name} lock=yes\`: it is locked for the backup and stays locked until unlocked.`,
    });
  },
  // What the dialog says before the box is ticked: what goes offline, and until when.
  async preview(ctx) {
    const node = requireNode(ctx);
    if (!locking(ctx.args.lock) || (await lockStateOf(ctx, node, FACTS_TIMEOUT_MS)) === 'locked') return [];
    return [
      {
        label: 'Locked for the backup',
        value: `${node.name} is unlocked: RLN backs up a locked node only, so it is locked first and stays locked after.`,
      },
      await offlineField(ctx, node, `someone unlocks it with \`node unlock ${node.name}\` and its password`),
    ];
  },
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const path = backupPathOf(ctx, node);
    const password = needSecret(ctx, 'password', 'password');
    let locked: boolean;
    try {
      ({ lockedFirst: locked } = await backupLockingFirst(api, path, password, locking(ctx.args.lock) && ctx.secrets[LOCK_BOX] === 'true'));
    } catch (err) {
      if (!(err instanceof BackupAfterLockFailed)) throw err;
      throw new UserError(
        'node_error',
        `${node.name} was locked for the backup, but the backup failed (${err.message}). It is still locked.`,
        `Unlock it with \`/rln node unlock ${node.name}\`, or run the backup again (the node is locked now, so it needs no lock=yes).`,
      );
    }
    const answer = done(node, 'Backup made', "Backup written to the node's own disk.", [
      msg.fields([{ label: 'Path', value: [{ code: path }] }]),
      ...(locked
        ? [msg.text(`${node.name} was locked for the backup and is still locked: it takes no payments until it is unlocked.`)]
        : []),
      msg.context(
        `Restore with \`node restore ${node.name} ${path}\`. The file stays on ${node.name}: destroying the node destroys it too.`,
      ),
    ]);
    return locked
      ? {
          ...answer,
          tone: 'warning',
          buttons: [{ label: `Unlock ${node.name}`, style: 'primary', command: 'node unlock', args: { node: node.nodeId } }],
        }
      : answer;
  },
});
