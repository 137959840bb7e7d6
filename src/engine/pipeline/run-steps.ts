/**
 * The runner: every attempt (typed command, click, dialog submission) goes through the same
 * steps in the same order (docs/ARCHITECTURE.md, "The pipeline's order"). Each step skips what does not apply
 * to it; the first step that answers (a refusal, a dialog, a confirmation prompt) ends the attempt.
 */
import { UserError } from '../../vocabulary/index.js';
import type { Reply } from '../types.js';
import type { Attempt, Pipeline, Step } from './attempt.js';
import { failAttempt } from './record-outcome.js';
import { refuseInlineSecret } from './steps/refuse-inline-secret.js';
import { validateArgs } from './steps/validate-args.js';
import { resolveNode } from './steps/resolve-node.js';
import { requireRole } from './steps/require-role.js';
import { checkState } from './steps/check-state.js';
import { handleDialog } from './steps/handle-dialog.js';
import { confirm } from './steps/confirm.js';
import { checkSpendLimit } from './steps/check-spend-limit.js';
import { requireApproval } from './steps/require-approval.js';
import { execute } from './steps/execute.js';
import { audit } from './steps/audit.js';

/** The steps, in order, named as docs/ARCHITECTURE.md ("The pipeline's order") names them. */
export const STEPS: ReadonlyArray<readonly [name: string, step: Step]> = [
  ['refuse inline secret', refuseInlineSecret],
  ['validate', validateArgs],
  ['resolve node', resolveNode],
  ['role', requireRole],
  ['state check', checkState],
  ['dialog', handleDialog],
  // Before the confirmation: a send over the day's limit is refused before anyone confirms it.
  ['spend limit', checkSpendLimit],
  ['confirmation', confirm],
  ['approval', requireApproval],
  ['execute', execute],
  ['audit', audit],
];

export async function runSteps(a: Attempt, p: Pipeline, steps: ReadonlyArray<readonly [string, Step]> = STEPS): Promise<Reply> {
  try {
    for (const [, step] of steps) {
      const r = await step(a, p);
      if (r instanceof UserError) return await failAttempt(p, a, r);
      if (r) return r;
    }
    throw new Error('the pipeline ended without a reply');
  } catch (e) {
    return failAttempt(p, a, e);
  }
}
