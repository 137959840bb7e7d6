/** Step 11: the audit trail (changes only), metrics and the log, then the handler's reply. */
import type { Step } from '../attempt.js';
import { recordOutcome } from '../record-outcome.js';

export const audit: Step = async (a, p) => {
  await recordOutcome(p, a, 'ok', { audit: 'ok' });
  return a.reply;
};
