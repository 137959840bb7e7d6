/**
 * The whole bot (src/app/create-app.ts through test/support/harness.ts: real dispatcher, commands, store,
 * the emulator as the service) with Slack pointed at the fake Slack, for end-to-end tests.
 */
import { startHarness } from './harness.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { SlackMode } from '../fakes/slack/index.js';

/** The password of the demo nodes (initialised and unlocked at start). */
export const DEMO_NODE_PASSWORD = 'demo-node-password-e2e';

export interface SlackWorld {
  emulator: Emulator;
  /** The bot's HTTP base URL. */
  url: string;
  close(): Promise<void>;
}

/** `mode` documents the transport the env selects (SLACK_APP_TOKEN: socket, SLACK_SIGNING_SECRET: http). */
export async function startSlackWorld(mode: SlackMode, env: Record<string, string>): Promise<SlackWorld> {
  const wanted = env.SLACK_APP_TOKEN ? 'socket' : 'http';
  if (wanted !== mode) throw new Error(`startSlackWorld: mode ${mode} but the env selects ${wanted}`);
  const h = await startHarness({ emulator: { seed: 'demo', lifecycleDelayMs: 30, demoPassword: DEMO_NODE_PASSWORD }, env });
  return { emulator: h.emulator, url: h.url, close: () => h.close() };
}
