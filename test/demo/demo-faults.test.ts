/** `/demo fail <node>` resolves the node as /rln does: a name matching two nodes in another case is refused (P31). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient } from '../../src/hosting/index.js';
import { demoFaults } from '../../src/demo/demo-faults.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
});
afterAll(async () => {
  await emulator?.close();
});

describe('/demo fail', () => {
  it('refuses a name that matches two nodes in another case, and takes the exact one', async () => {
    const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token });
    await hosting.createNode({ name: 'Alice', network: 'regtest' });
    const faults = demoFaults(emulator);
    expect(await faults.fail('ALICE')).toContain('matches 2 nodes');
    expect(emulator.nodes().filter((n) => n.status === 'FAILED')).toEqual([]);
    expect(await faults.fail('alice')).toContain('alice is now FAILED');
    expect(emulator.nodes().find((n) => n.name === 'alice')?.status).toBe('FAILED');
  });
});
