/**
 * Step 8: the spend limit. A slot kept for the spend limits (`SPEND_LIMITS`, `policy limits`):
 * nothing is limited yet, so every attempt goes on. It will refuse an amount over the day's
 * limit; the execute step re-checks it atomically.
 */
import type { Step } from '../attempt.js';

export const checkSpendLimit: Step = () => undefined;
