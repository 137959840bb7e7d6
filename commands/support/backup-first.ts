/**
 * The backup `node destroy` and `node upgrade` offer, made just before the operation when it was
 * asked for: under approval only once approved, so a Reject or an expiry leaves the node as it was.
 * RLN backs up a locked node only: an unlocked one is locked first.
 */
import { z } from 'zod';
import { UserError } from '../../src/vocabulary/index.js';
import type { DialogField } from '../../src/engine/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { defaultBackupPath } from './node-done.js';
import { rlnNameOf } from './present.js';

/** `backup_path=`: where on its own disk the node writes a backup (an absolute path); `description` says when. */
export const backupPathArg = (description: string) => z.string().startsWith('/').optional().describe(description);

/** Where the backup goes: the `backup_path=` given, else a new file under /backups named after the node and now. */
export function backupPathOf(ctx: CommandContext<{ backup_path?: string }>, node: HostedNode): string {
  return ctx.args.backup_path ?? defaultBackupPath(node, new Date(ctx.services.now()));
}

/**
 * The node's password for a backup made first, asked only when the backup is. Under approval it is
 * asked once approved, so that nothing is locked (RLN backs up a locked node) while the request waits.
 */
export const backupPasswordField: DialogField = {
  name: 'backup_password',
  label: 'Node password (for the backup)',
  kind: 'secret',
  required: false,
  askedIf: 'backup',
  afterApproval: true,
};

/** The backup failed after the node was locked for it: the node stays locked. Its message is the node's. */
export class BackupAfterLockFailed extends Error {
  override readonly name = 'BackupAfterLockFailed';
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/**
 * Writes a backup to `path`. RLN backs up a locked node only: an unlocked one is locked first (when
 * `mayLock`; else its refusal is thrown as it came) and stays locked. `lockedFirst` says whether it
 * was; a backup that fails after the lock throws BackupAfterLockFailed.
 */
export async function backupLockingFirst(
  api: Pick<NodeApiClient, 'backup' | 'lock'>,
  path: string,
  password: string,
  mayLock = true,
): Promise<{ lockedFirst: boolean }> {
  try {
    await api.backup({ backup_path: path, password });
    return { lockedFirst: false };
  } catch (err) {
    if (rlnNameOf(err) !== 'UnlockedNode' || !mayLock) throw err;
  }
  await api.lock();
  try {
    await api.backup({ backup_path: path, password });
  } catch (err) {
    throw new BackupAfterLockFailed(err);
  }
  return { lockedFirst: true };
}

/** What the backup is made before: the words of its refusal when it fails. */
export interface BackupBefore {
  /** `destroyed`, `upgraded`. */
  notDone: string;
  /** The command to run again. */
  command: string;
  /** What to do instead of a backup. */
  without: string;
}

const DESTROY: BackupBefore = { notDone: 'destroyed', command: 'node destroy', without: 'destroy without one' };

/** Writes the backup to `path` (the caller asked for one) and returns the path. */
export async function backupFirst(
  ctx: CommandContext<unknown>,
  node: HostedNode,
  path: string,
  before: BackupBefore = DESTROY,
): Promise<string> {
  const password = ctx.secrets.backup_password;
  if (!password) {
    throw new UserError(
      'invalid_arguments',
      `Not ${before.notDone}: a backup was asked but no node password was entered.`,
      `Run \`${before.command}\` again and enter the password, or ${before.without}.`,
    );
  }
  try {
    await backupLockingFirst(ctx.services.nodeApi(node), path, password);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UserError(
      'node_error',
      `Not ${before.notDone}: the backup of ${node.name} failed (${why}).`,
      `Fix the backup (is the node RUNNING and the password right?) or ${before.without}.`,
    );
  }
  return path;
}
