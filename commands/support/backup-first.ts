/** The backup `node destroy` offers, made when its dialog asked for one, just before the destroy (approved, if it needs approval). */
import { UserError } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { rlnNameOf } from './present.js';

/**
 * Writes the backup to `path` (the dialog ticked it) and returns the path. RLN backs up a locked
 * node only, so an unlocked one is locked first: under approval this runs only once approved.
 */
export async function backupFirst(ctx: CommandContext<unknown>, node: HostedNode, path: string): Promise<string> {
  const password = ctx.secrets.backup_password;
  if (!password) {
    throw new UserError(
      'invalid_arguments',
      `Not destroyed: a backup was asked but no node password was entered.`,
      'Run `node destroy` again and enter the password, or untick the backup.',
    );
  }
  const api = ctx.services.nodeApi(node);
  try {
    try {
      await api.backup({ backup_path: path, password });
    } catch (err) {
      if (rlnNameOf(err) !== 'UnlockedNode') throw err;
      // RLN backs up a locked node only.
      await api.lock();
      await api.backup({ backup_path: path, password });
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UserError(
      'node_error',
      `Not destroyed: the backup of ${node.name} failed (${why}).`,
      'Fix the backup (is the node RUNNING and the password right?) or destroy without one.',
    );
  }
  return path;
}
