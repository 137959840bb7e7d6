/**
 * Entry point: a dialog submission. The stored dialog names the command and its arguments; only
 * its requester may submit it, once, before it expires. Then every step again: the dialog step
 * reads the fields instead of opening the dialog.
 */
import { UserError } from '../../vocabulary/index.js';
import { actorKey } from '../../access/index.js';
import type { Invocation, Reply } from '../types.js';
import type { AnyCommand } from '../types.js';
import { newAttempt, type Attempt, type Pipeline } from './attempt.js';
import { ttlText } from './command-line.js';
import { failAttempt } from './record-outcome.js';
import { runSteps } from './run-steps.js';
import { CONTINUATION_KEY, maskSubmittedSecrets } from './steps/handle-dialog.js';

export async function fromDialog(
  inv: Extract<Invocation, { via: 'dialog' }>,
  p: Pipeline,
  internal: Map<string, AnyCommand>,
): Promise<Reply> {
  const a = newAttempt(inv, 'dialog', p);
  const values = inv.values ?? {};
  try {
    const row = await p.confirmations.getDialog(inv.dialogId);
    if (!row) throw new UserError('dialog_expired', 'This dialog is no longer open.', 'Run the command again.');
    const def = internal.get(row.path) ?? p.registry.get(row.path);
    if (!def) throw new UserError('unknown_command', `The command \`${row.path}\` no longer exists.`);
    a.def = def;
    const { [CONTINUATION_KEY]: continuation, ...args } = JSON.parse(row.argsJson) as Record<string, string>;
    a.args = args;
    // The requester's dialog after an approval: which approved request it continues.
    if (continuation) {
      a.continuation = JSON.parse(continuation) as NonNullable<Attempt['continuation']>;
      a.auditExtra = { approved_by: a.continuation.approvedBy, approval: a.continuation.approval };
    }
    // Secrets are masked in every log line from now on.
    maskSubmittedSecrets(p.registry, def, a.args, values);
    if (actorKey(inv.actor) !== row.requesterKey) {
      throw new UserError('confirmation_wrong_user', 'This dialog belongs to someone else.', `Run \`/rln ${def.path}\` yourself.`);
    }
    if (row.usedAt !== null)
      throw new UserError('dialog_used', 'This dialog was already submitted.', 'Run the command again if you need it.');
    if (p.now() > row.expiresAt) {
      throw new UserError(
        'dialog_expired',
        `This dialog expired after ${ttlText(p.dialogTtlMs)}; nothing was done.`,
        `Run \`/rln ${def.path}\` again.`,
      );
    }
    a.submission = { row, values };
  } catch (e) {
    return await failAttempt(p, a, e);
  }
  return runSteps(a, p);
}
