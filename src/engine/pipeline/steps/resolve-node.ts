/**
 * Step 3: the node the command names, by name or id. Before a dialog opens it is looked up only
 * when the state check or the dialog's facts (the command's `preview`) need it, and then in
 * bounded time (see `inTime`): a dialog with neither opens with no call to the service, as
 * before, and the node is resolved at its submission.
 */
import { commandOf, opensDialog, typedNode, type Step } from '../attempt.js';
import { inTime } from '../in-time.js';

export const resolveNode: Step = async (a, p) => {
  const typed = typedNode(p, a);
  if (!typed) return undefined;
  const def = commandOf(a);
  if (opensDialog(a) && ((!def.check && !def.preview) || a.checkAtSubmission)) return undefined;
  const r = await inTime(a, p, p.nodes.resolve(typed));
  if (r.late) return r.reply;
  a.node = r.value;
  return undefined;
};
