// readActivity over real HTTP: the node API client against the emulator's node world on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { diffActivity, readActivity } from '../../src/activity/index.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { ok, twoNodes, openChannel } from '../support/node-world.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

let server: NodeWorldServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const clientFor = (s: NodeWorldServer, nodeId: string) =>
  createNodeApiClient({ baseUrl: s.urlOf(nodeId), credentials: { kind: 'token', token: 'node-token' }, retries: 0, timeoutMs: 2_000 });

describe('readActivity', () => {
  it("reads an unlocked node's channels and payments, and the diff tells the payment bob received", async () => {
    const world = await twoNodes();
    server = await startNodeWorldServer({ world, token: 'node-token' });
    await openChannel(world);
    const bob = clientFor(server, 'bob');
    const first = await readActivity(bob, 1);
    expect(first.lock).toBe('unlocked');
    expect(first.channels).toHaveLength(1);
    expect(first.channels![0]).toMatchObject({ status: 'Opened', usable: true, capacitySat: '100000' });

    const { invoice } = await ok(world, 'bob', 'lninvoice', { amt_msat: 3_000_000, expiry_sec: 600 });
    await ok(world, 'alice', 'sendpayment', { invoice });
    const second = await readActivity(bob, 2);
    const { events } = diffActivity(diffActivity(undefined, first).state, second);
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'payments',
        type: 'payment_received',
        payment: expect.objectContaining({ amtMsat: '3000000', inbound: true }),
      }),
    ]);
  });

  it('reads a locked node as locked, and one that does not answer as unreachable', async () => {
    const world = await twoNodes();
    server = await startNodeWorldServer({ world, token: 'node-token' });
    await ok(world, 'alice', 'lock');
    expect(await readActivity(clientFor(server, 'alice'), 1)).toEqual({ takenAt: 1, lock: 'locked' });
    server.faults.push({ status: 503, times: 1 });
    expect(await readActivity(clientFor(server, 'bob'), 2)).toEqual({ takenAt: 2, lock: 'unreachable' });
  });
});
