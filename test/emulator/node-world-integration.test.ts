import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { waitFor } from '../support/wait-for.js';

const open: Emulator[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}) {
  const e = await startEmulator({ lifecycleDelayMs: 20, ...opts });
  open.push(e);
  return e;
}

function nodeCall(e: Emulator, invokeUrl: string, endpoint: string, body?: unknown, method = 'POST') {
  return fetch(`${invokeUrl}/${endpoint}`, {
    method,
    headers: { authorization: `Bearer ${e.nodeApiToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('emulator with the real NodeWorld', () => {
  it('serves a created node API, and marks it initialized once /init succeeds', async () => {
    const e = await emulator();
    const created = await fetch(`${e.url}/api/nodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'n1', network: 'regtest' }),
    });
    const { data } = (await created.json()) as { data: { nodeId: string; invoke_url: string } };
    await waitFor(() => e.nodes()[0]?.status === 'RUNNING');
    expect(e.nodes()[0].initialized).toBe(false);
    const init = await nodeCall(e, data.invoke_url, 'init', { password: 'correct horse' });
    expect(init.status).toBe(200);
    expect(((await init.json()) as { mnemonic: string }).mnemonic.split(' ').length).toBeGreaterThanOrEqual(12);
    expect(e.nodes()[0].initialized).toBe(true);
    const locked = await nodeCall(e, data.invoke_url, 'btcbalance', { skip_sync: false });
    expect(locked.status).toBe(403);
    expect(((await locked.json()) as { name: string }).name).toBe('LockedNode');
  });

  it('seeds demo nodes ready to use with demoPassword, and passes u64 amounts through exactly', async () => {
    const e = await emulator({ seed: 'demo', demoPassword: 'demo-password-1' });
    const alice = e.nodes().find((n) => n.name === 'alice')!;
    expect(alice.initialized).toBe(true);
    expect(e.nodes().find((n) => n.name === 'carol')!.initialized).toBe(false);
    const info = await nodeCall(e, alice.invoke_url!, 'nodeinfo', undefined, 'GET');
    expect(info.status).toBe(200);
    expect(((await info.json()) as { pubkey: string }).pubkey).toBe(e.world.pubkeyOf(alice.nodeId));
    e.world.setLargeAmounts(alice.nodeId, true);
    const balance = await nodeCall(e, alice.invoke_url!, 'btcbalance', { skip_sync: false });
    const text = await balance.text();
    const big = /\d{16,}/.exec(text)?.[0];
    expect(big).toBeDefined();
    expect(BigInt(big!)).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('refuses a paused node with 503 NodeNotRunning', async () => {
    const e = await emulator({ seed: 'demo' });
    const carol = e.nodes().find((n) => n.name === 'carol')!;
    const r = await nodeCall(e, carol.invoke_url!, 'nodeinfo', undefined, 'GET');
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: 'The node is not running (status PAUSED)', code: 503, name: 'NodeNotRunning' });
  });

  it('routes a multipart media upload to the node', async () => {
    const e = await emulator({ seed: 'demo', demoPassword: 'demo-password-1' });
    const bob = e.nodes().find((n) => n.name === 'bob')!;
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('hello media')], { type: 'text/plain' }), 'hello.txt');
    const r = await fetch(`${bob.invoke_url}/postassetmedia`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.nodeApiToken}` },
      body: form,
    });
    expect(r.status).toBe(200);
    const { digest } = (await r.json()) as { digest: string };
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const back = await nodeCall(e, bob.invoke_url!, 'getassetmedia', { digest });
    expect(Buffer.from(((await back.json()) as { bytes_hex: string }).bytes_hex, 'hex').toString()).toBe('hello media');
  });
});
