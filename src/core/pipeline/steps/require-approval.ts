/**
 * Step 9: approval by a second person. A slot kept for `APPROVAL_POLICY` (`policy set`): no
 * command needs an approval yet, so every attempt goes on. It will post an approval request and
 * end the attempt here; the approver's click runs the remaining steps.
 */
import type { Step } from '../attempt.js';

export const requireApproval: Step = () => undefined;
