/**
 * A node's refusal reads once, in the node's own words, with a hint that names the node:
 * not "node API /init failed (403 AlreadyInitialized): …" under a header that says the same.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { errorMessage } from '../../src/engine/index.js';
import { inlineToPlain } from '../../src/vocabulary/index.js';

describe('how a node API error reads', () => {
  let emulator: Emulator;
  afterAll(async () => emulator?.close());

  it("shows the node's words once and a hint naming the node", async () => {
    emulator = await startEmulator({ seed: 'demo', demoPassword: 'pw-demo-1' });
    const alice = emulator.nodes().find((n) => n.name === 'alice')!;
    const api = createNodeApiClient({
      baseUrl: alice.invoke_url!,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
    });
    const err = await api.init({ password: 'another-pw-1' }).catch((e: unknown) => e);
    const { message } = errorMessage(err, { path: 'node init', node: 'alice' });
    const text = message.blocks.map((b) => ('text' in b && typeof b.text !== 'undefined' ? inlineToPlain(b.text as never) : '')).join('\n');
    expect(message.header).toBe('Node API error: AlreadyInitialized (HTTP 403)');
    const nodeWords = (err as { serviceMessage: string }).serviceMessage;
    expect(text).toContain(`\`node init\` failed: ${nodeWords}`);
    expect(text).not.toMatch(/node API \/init failed/);
    expect(text).toContain('node unlock alice');
    expect(text).not.toContain('<node>');
  });
});
