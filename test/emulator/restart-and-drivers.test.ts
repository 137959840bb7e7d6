// What the emulator offers to drive the activity alerts in tests: a restart that comes back
// locked (with its status webhooks), a channel closed by the peer, and a failed payment.
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startReceiver } from '../support/emulator.js';
import { waitFor } from '../support/wait-for.js';

const open: Emulator[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function demo() {
  const e = await startEmulator({ seed: 'demo', demoPassword: 'demo-password', lifecycleDelayMs: 20 });
  open.push(e);
  const id = (name: string) => e.nodes().find((n) => n.name === name)!.nodeId;
  const call = (name: string, endpoint: string, body?: unknown) =>
    e.world.handle(id(name), body === undefined ? 'GET' : 'POST', endpoint, body);
  return { e, id, call };
}

describe('emulator drivers for node activity', () => {
  it('restarts a node through STARTING to RUNNING, sending both status webhooks, and it comes back locked', async () => {
    const { e, id, call } = await demo();
    const r = await startReceiver();
    await fetch(`${e.url}/api/nodes/${id('alice')}/settings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { webhookUrl: r.url } }),
    });
    expect((await call('alice', 'nodeinfo')).status).toBe(200);
    e.restartNode(id('alice'));
    await waitFor(() => r.received.length >= 2);
    expect(r.received.map((x) => (JSON.parse(x.body) as { details: { status: string } }).details.status)).toEqual(['STARTING', 'RUNNING']);
    const info = await call('alice', 'nodeinfo');
    expect((info.body as { name: string }).name).toBe('LockedNode');
    expect((await call('alice', 'unlock', { password: 'demo-password' })).status).toBe(200);
    await r.close();
  });

  it("lets the peer close a channel (it leaves both nodes' lists once mined), and records a failed payment when no channel can carry it", async () => {
    const { e, id, call } = await demo();
    const bobKey = e.world.pubkeyOf(id('bob'));
    await call('alice', 'connectpeer', { peer_pubkey_and_addr: `${bobKey}@127.0.0.1:9735` });
    await call('alice', 'openchannel', { peer_pubkey_and_opt_addr: bobKey, capacity_sat: 50_000 });
    e.world.mine(1);
    const [channel] = ((await call('alice', 'listchannels')).body as { channels: Array<{ channel_id: string }> }).channels;
    expect((await call('bob', 'closechannel', { channel_id: channel.channel_id, peer_pubkey: e.world.pubkeyOf(id('alice')) })).status).toBe(
      200,
    );
    e.world.mine(1);
    expect(((await call('alice', 'listchannels')).body as { channels: unknown[] }).channels).toEqual([]);

    // No channel is left: a keysend to bob is recorded as a Failed outbound payment.
    const sent = await call('alice', 'keysend', { dest_pubkey: bobKey, amt_msat: 1_000_000 });
    expect((sent.body as { status: string }).status).toBe('Failed');
    const payments = ((await call('alice', 'listpayments')).body as { payments: Array<{ status: string; inbound: boolean }> }).payments;
    expect(payments).toContainEqual(expect.objectContaining({ status: 'Failed', inbound: false }));
  });
});
