/**
 * The whole bot (src/app.ts through test/support/harness.ts: real dispatcher, commands, store,
 * the emulator as the service) with Slack pointed at the fake Slack, for end-to-end tests.
 */
import { startHarness } from '../../support/harness.js';
import type { Emulator } from '../../../src/emulator/index.js';

/** The password of the demo nodes (initialised and unlocked at start). */
export const DEMO_NODE_PASSWORD = 'demo-node-password-e2e';

export interface SlackWorld {
  emulator: Emulator;
  /** The bot's HTTP base URL. */
  url: string;
  close(): Promise<void>;
}

export async function startSlackWorld(env: Record<string, string>): Promise<SlackWorld> {
  const h = await startHarness({ emulator: { seed: 'demo', lifecycleDelayMs: 30, demoPassword: DEMO_NODE_PASSWORD }, env });
  return { emulator: h.emulator, url: h.url, close: () => h.close() };
}
