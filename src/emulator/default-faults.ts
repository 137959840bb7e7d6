import type { FailableOperation, Faults } from './types.js';

/** No fault injected: what an emulator starts with unless its options say otherwise. */
export function defaultFaults(): Faults {
  return {
    latencyMs: 0,
    errorRate: 0,
    garbage: false,
    webhookDuplicate: 0,
    webhookDrop: 0,
    failNext: new Set<FailableOperation>(),
    down: false,
    rateLimitNext: 0,
    retryAfterSec: 1,
    errorNext: 0,
  };
}
