/**
 * The spend-limit step, before the confirmation. A command that spends (`spend` in its definition) is refused when it
 * would take the actor over a daily limit (SPEND_LIMITS, `policy set limit`), saying what is left
 * and when the limit resets. For an approved request the actor is the requester: approved sends
 * count against the requester's limit. The execute step re-checks it atomically.
 */
import { commandOf, contextOf, opensDialog, type Step } from '../attempt.js';

export const checkSpendLimit: Step = async (a, p) => {
  const def = commandOf(a);
  if (!def.spend || opensDialog(a)) return undefined;
  const ctx = contextOf(a, p);
  a.spend = await def.spend(ctx);
  return a.spend ? await p.services.policy.checkLimit(a.actor, a.spend) : undefined;
};
