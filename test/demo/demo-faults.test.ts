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

describe('/demo backup-old', () => {
  it("ages the service's record of the node (no node API state, so the same on both generations) and says which watch tells it", async () => {
    const faults = demoFaults(emulator);
    expect(faults.help()).toMatch(/backup-old .*\(kinds=backup\)/);
    const bob = emulator.nodes().find((n) => n.name === 'bob')!;
    const said = await faults.inject('backup-old', 'bob');
    expect(said).toContain('bob: the service now says it was created on');
    expect(said).toContain('/rln watch add bob kinds=status,backup');
    const aged = emulator.nodes().find((n) => n.name === 'bob')!;
    const days = (Date.now() - Date.parse(String(aged.createdAt))) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(29.9);
    // Every build is as old as the record, so none reads as an upgrade since a backup.
    for (const b of aged.builds ?? [])
      expect(Date.parse(String(b.timestamp))).toBeLessThanOrEqual(Date.parse(String(aged.createdAt)) + 60_000);
    expect(bob.createdAt).not.toBe(aged.createdAt);
  });
});
