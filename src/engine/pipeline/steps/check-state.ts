/**
 * Step 5: the command's own state check (`check` in its definition), e.g. `node stop` on a node
 * that is already stopped. It comes before any dialog or confirmation, and before a dialog it is
 * bounded in time (see `inTime`): when it is late, the answer is a button that opens the dialog,
 * and the check runs when the dialog is submitted.
 */
import { UserError } from '../../../vocabulary/index.js';
import { contextOf, commandOf, opensDialog, type Step } from '../attempt.js';
import { inTime } from '../in-time.js';

export const checkState: Step = async (a, p) => {
  const def = commandOf(a);
  if (!def.check) return undefined;
  if (opensDialog(a) && a.checkAtSubmission) return undefined;
  const ctx = contextOf(a, p);
  const r = await inTime(a, p, def.check(ctx));
  if (r.late) return r.reply;
  const refusal = r.value;
  if (!refusal) return undefined;
  return new UserError('wrong_state', refusal.reason, refusal.next, { path: def.path });
};
