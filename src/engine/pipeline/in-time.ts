/**
 * The bound on the steps before a dialog: Discord and Slack show a dialog only in answer to the
 * interaction, within 3 s. When the attempt would open a dialog and a lookup is late, the answer
 * is a button that opens the dialog (its click answers at once), and the check runs at submission.
 */
import { msg } from '../../vocabulary/index.js';
import type { Reply } from '../types.js';
import { LATE, within } from '../../vocabulary/index.js';
import { commandOf, opensDialog, typedNode, type Attempt, type Pipeline } from './attempt.js';

/** Internal button command: opens a command's dialog, its state check deferred to the submission. */
export const OPEN_DIALOG_COMMAND = '__open_dialog';

export async function inTime<T>(
  a: Attempt,
  p: Pipeline,
  work: Promise<T>,
): Promise<{ late: false; value: T } | { late: true; reply: Reply }> {
  if (!opensDialog(a)) return { late: false, value: await work };
  const left = a.startedAt + p.dialogBudgetMs - p.now();
  const r = await within(work, Math.max(0, left));
  if (r !== LATE) return { late: false, value: r };
  // The late work is not awaited further; its failure (if any) is only logged.
  work.catch((err: unknown) => p.logger.warn({ err, command: commandOf(a).path }, 'a check before a dialog failed after its time'));
  return { late: true, reply: await openDialogButton(a, p) };
}

async function openDialogButton(a: Attempt, p: Pipeline): Promise<Reply> {
  const def = commandOf(a);
  const named = typedNode(p, a);
  const message = await p.buttons.prepare({
    header: `${def.path}${named ? ` ${named}` : ''}`,
    tone: 'info',
    blocks: [
      msg.text('Checking took longer than a dialog may wait. Open the dialog when you are ready; the check runs when you submit it.'),
    ],
    buttons: [
      { label: 'Open the dialog', style: 'primary', command: OPEN_DIALOG_COMMAND, args: { path: def.path, args: JSON.stringify(a.args) } },
    ],
  });
  return { kind: 'message', message, visibility: 'private' };
}
