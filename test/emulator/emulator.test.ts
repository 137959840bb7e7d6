import { createPublicKey, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions, type KeyType } from '../../src/emulator/index.js';
import { recordingWorld, startReceiver } from '../support/emulator.js';
import { waitFor } from '../support/wait-for.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function emulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const e = await startEmulator({ lifecycleDelayMs: 30, webhookRetry: { attempts: 3, baseDelayMs: 5 }, world: recordingWorld(), ...opts });
  open.push(e);
  return e;
}
async function receiver(respond?: (n: number) => number) {
  const r = await startReceiver(respond);
  open.push(r);
  return r;
}

function api(e: Emulator, method: string, path: string, body?: unknown, token: string | null = e.token) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${e.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}
async function apiJson(e: Emulator, method: string, path: string, body?: unknown, token?: string | null) {
  const res = await api(e, method, path, body, token);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
async function create(e: Emulator, name: string, webhookUrl?: string) {
  const r = await apiJson(e, 'POST', '/api/nodes', { name, network: 'regtest', ...(webhookUrl ? { settings: { webhookUrl } } : {}) });
  expect(r.status).toBe(201);
  return r.body.data as { nodeId: string; status: string; invoke_url: string };
}
const statusOf = (e: Emulator, id: string) => e.nodes().find((n) => n.nodeId === id)?.status;
const events = (r: { received: Array<{ body: string }> }) =>
  r.received.map((x) => JSON.parse(x.body) as { details: { status: string }; nodeId: string });

describe('emulator management API', () => {
  it('refuses requests without a bearer token or with a wrong or revoked one', async () => {
    const e = await emulator();
    expect((await apiJson(e, 'GET', '/api/nodes', undefined, null)).status).toBe(401);
    expect((await apiJson(e, 'GET', '/api/nodes', undefined, 'wrong')).status).toBe(401);
    const old = e.token;
    e.revokeToken('new-token-123');
    expect((await apiJson(e, 'GET', '/api/nodes', undefined, old)).status).toBe(401);
    expect((await apiJson(e, 'GET', '/api/nodes', undefined, 'new-token-123')).status).toBe(200);
  });

  it('validates create: JSON body, required fields, network, unique name, HTTPS webhook', async () => {
    const e = await emulator();
    expect((await apiJson(e, 'POST', '/api/nodes', '{not json')).status).toBe(400);
    expect((await apiJson(e, 'POST', '/api/nodes', { network: 'regtest' })).status).toBe(400);
    expect((await apiJson(e, 'POST', '/api/nodes', { name: 'x' })).status).toBe(400);
    const bad = await apiJson(e, 'POST', '/api/nodes', { name: 'x', network: 'mainnet' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/regtest or testnet/);
    const http = await apiJson(e, 'POST', '/api/nodes', {
      name: 'x',
      network: 'regtest',
      settings: { webhookUrl: 'http://example.com/h' },
    });
    expect(http.status).toBe(400);
    expect(http.body.message).toMatch(/HTTPS/);
    await create(e, 'x', 'https://example.com/hook');
    const dup = await apiJson(e, 'POST', '/api/nodes', { name: 'x', network: 'testnet' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toMatch(/already exists/);
    expect(e.nodes()).toHaveLength(1);
  });

  it('answers 404 for unknown nodes and log tasks, 400 for a missing taskId', async () => {
    const e = await emulator();
    expect((await apiJson(e, 'GET', '/api/nodes/nope')).status).toBe(404);
    expect((await apiJson(e, 'POST', '/api/nodes/nope/start')).status).toBe(404);
    expect((await apiJson(e, 'DELETE', '/api/nodes', { destroyNodeId: 'nope' })).status).toBe(404);
    expect((await apiJson(e, 'DELETE', '/api/nodes', {})).status).toBe(400);
    const n = await create(e, 'a');
    expect((await apiJson(e, 'GET', `/api/nodes/${n.nodeId}/logs?taskId=nope`)).status).toBe(404);
    expect((await apiJson(e, 'GET', `/api/nodes/${n.nodeId}/logs`)).status).toBe(400);
  });

  it('lists nodes with initialized, invoke_url, settings and builds', async () => {
    const e = await emulator({ userId: 'u1' });
    const n = await create(e, 'a', 'https://example.com/hook');
    const list = await apiJson(e, 'GET', '/api/nodes');
    const node = list.body.nodes[0];
    expect(node).toMatchObject({
      nodeId: n.nodeId,
      name: 'a',
      network: 'regtest',
      initialized: false,
      settings: { webhookUrl: 'https://example.com/hook' },
    });
    expect(node.invoke_url).toBe(`${e.url}/nodes/u1/${n.nodeId}`);
    expect(node.builds[0]).toMatchObject({ buildNumber: 1 });
    // A bare node, as the service's description shows, with the RLN commit of its image.
    const one = await apiJson(e, 'GET', `/api/nodes/${n.nodeId}`);
    expect(one.body).toMatchObject({ nodeId: n.nodeId, rln_commit_id: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('moves through the lifecycle: create, stop, start, upgrade, destroy', async () => {
    const world = recordingWorld();
    const e = await emulator({ world, latestImage: 'v1.0.0' });
    const n = await create(e, 'a');
    expect(n.status).toBe('STARTING');
    expect(world.added.map((a) => a.nodeId)).toContain(n.nodeId);
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    expect((await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/start`)).status).toBe(409);
    expect((await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/stop`)).status).toBe(200);
    expect(statusOf(e, n.nodeId)).toBe('PAUSED');
    expect((await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/stop`)).status).toBe(409);
    const start = await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/start`);
    expect(start.body.data.status).toBe('STARTING');
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    e.setLatestImage('v1.1.0');
    const up = await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/upgrade`);
    expect(up.status).toBe(200);
    expect(up.body.data.status).toBe('IN_PROGRESS');
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    const after = e.nodes().find((x) => x.nodeId === n.nodeId)!;
    expect(after.imageVersion).toBe('v1.1.0');
    expect(after.builds).toHaveLength(2);
    expect(after.builds![1]).toMatchObject({ buildNumber: 2, buildStatus: 'SUCCESS', buildComplete: true });
    expect((await apiJson(e, 'DELETE', '/api/nodes', { destroyNodeId: n.nodeId })).status).toBe(200);
    // As the service's description shows: DESTROING at once (the node API is gone), then DESTROYED
    // (which may already have come, when the answer took longer than the emulator's delay).
    expect(['DESTROING', 'DESTROYED', undefined]).toContain(statusOf(e, n.nodeId));
    expect(world.removed).toEqual([n.nodeId]);
    await waitFor(() => e.nodes().length === 0);
  });

  it('ends an operation in FAILED when failNext says so', async () => {
    const e = await emulator();
    e.faults.failNext.add('create');
    const n = await create(e, 'a');
    await waitFor(() => statusOf(e, n.nodeId) === 'FAILED');
    e.faults.failNext.add('start');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/start`);
    await waitFor(() => statusOf(e, n.nodeId) === 'FAILED');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/start`);
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    e.faults.failNext.add('upgrade');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/upgrade`);
    await waitFor(() => statusOf(e, n.nodeId) === 'FAILED');
    expect(e.nodes()[0].builds!.at(-1)).toMatchObject({ buildStatus: 'FAILURE', buildComplete: true, currentPhase: 'COMPLETED' });
    e.faults.failNext.add('stop');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/stop`);
    expect(statusOf(e, n.nodeId)).toBe('FAILED');
    expect(e.faults.failNext.size).toBe(0);
  });

  it('exports logs: pending first, then download URLs it serves', async () => {
    const e = await emulator();
    const n = await create(e, 'a');
    const started = await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/logs`);
    const taskId = started.body.taskId as string;
    expect(typeof taskId).toBe('string');
    const first = await apiJson(e, 'GET', `/api/nodes/${n.nodeId}/logs?taskId=${taskId}`);
    expect(first.body.data.status).toBe('PENDING');
    const done = await waitFor(async () => {
      const r = await apiJson(e, 'GET', `/api/nodes/${n.nodeId}/logs?taskId=${taskId}`);
      return r.body.data.urls.length > 0 ? (r.body.data.urls as string[]) : undefined;
    });
    const text = await (await fetch(done[0])).text();
    expect(text).toContain(n.nodeId);
  });

  it('serves the latest image and the webhook public key', async () => {
    const e = await emulator({ latestImage: 'v9.9.9', keyType: 'p256' });
    expect((await apiJson(e, 'GET', '/api/nodes/latest-rln-image')).body).toEqual({ data: 'v9.9.9' });
    const key = (await apiJson(e, 'GET', '/api/webhook-public-key')).body;
    expect(key.data).toBe(e.publicKey.pem);
    expect(createPublicKey(key.data).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });

  it('seeds the demo: alice and bob running, carol paused, all in the node world', async () => {
    const world = recordingWorld();
    const e = await emulator({ seed: 'demo', world });
    const byName = Object.fromEntries(e.nodes().map((n) => [n.name, n]));
    expect(byName.alice?.status).toBe('RUNNING');
    expect(byName.bob?.status).toBe('RUNNING');
    expect(byName.carol?.status).toBe('PAUSED');
    expect(world.added.map((a) => a.alias).sort()).toEqual(['alice', 'bob', 'carol']);
  });
});

describe('emulator webhooks', () => {
  const keyTypes: KeyType[] = ['ed25519', 'p256', 'secp256k1', 'rsa'];
  for (const keyType of keyTypes) {
    it(`signs every status change with a ${keyType} key that verifies with the served key`, async () => {
      const r = await receiver();
      const e = await emulator({ keyType });
      const n = await create(e, 'a', r.url);
      await waitFor(() => r.received.length >= 2);
      expect(events(r).map((x) => x.details.status)).toEqual(['STARTING', 'RUNNING']);
      const served = (await apiJson(e, 'GET', '/api/webhook-public-key')).body;
      const key = createPublicKey(served.data);
      for (const got of r.received) {
        const payload = JSON.parse(got.body);
        expect(payload).toMatchObject({ eventType: 'NODE_STATUS_UPDATED', nodeId: n.nodeId, details: { nodeId: n.nodeId } });
        expect(typeof payload.eventTimestamp).toBe('string');
        const sig = Buffer.from(String(got.headers['x-service-signature']), 'base64');
        const algo = keyType === 'ed25519' ? null : 'sha256';
        expect(verify(algo, Buffer.from(got.body), key, sig)).toBe(true);
        expect(verify(algo, Buffer.from(got.body.replace('RUNNING', 'FAILED').replace('STARTING', 'PAUSED')), key, sig)).toBe(false);
      }
    });
  }

  it('sends a webhook for setStatus and arbitrary events for emitEvent', async () => {
    const r = await receiver();
    const e = await emulator();
    const n = await create(e, 'a', r.url);
    await waitFor(() => r.received.length >= 2);
    e.setStatus(n.nodeId, 'FAILED');
    e.emitEvent(n.nodeId, { eventType: 'BACKUP_COMPLETED', nodeId: n.nodeId });
    await waitFor(() => r.received.length >= 4);
    expect(events(r)[2].details.status).toBe('FAILED');
    expect(JSON.parse(r.received[3].body).eventType).toBe('BACKUP_COMPLETED');
    expect(e.sign(r.received[3].body)).toBe(String(r.received[3].headers['x-service-signature']));
  });

  it('retries a failed delivery with backoff until the receiver accepts it', async () => {
    const r = await receiver((n) => (n <= 2 ? 500 : 200));
    const e = await emulator({ webhookRetry: { attempts: 4, baseDelayMs: 5 } });
    const n = await create(e, 'a');
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/settings`, { settings: { webhookUrl: r.url } });
    e.setStatus(n.nodeId, 'PAUSED');
    await waitFor(() => r.received.length >= 3);
    await e.settled();
    expect(e.deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
  });

  it('gives up after the configured attempts when the receiver is unreachable', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    open.pop();
    const e = await emulator({ webhookRetry: { attempts: 2, baseDelayMs: 5 } });
    const n = await create(e, 'a');
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/settings`, { settings: { webhookUrl: url } });
    e.setStatus(n.nodeId, 'PAUSED');
    await waitFor(() => e.deliveries.length >= 2);
    await e.settled();
    expect(e.deliveries.map((d) => d.attempt)).toEqual([1, 2]);
    expect(e.deliveries.every((d) => d.status === undefined && d.error)).toBe(true);
  });

  it('drops or duplicates webhooks when the faults say so', async () => {
    const r = await receiver();
    const e = await emulator({ faults: { webhookDrop: 1 } });
    const n = await create(e, 'a', r.url);
    await waitFor(() => statusOf(e, n.nodeId) === 'RUNNING');
    await e.settled();
    expect(r.received).toHaveLength(0);
    e.faults.webhookDrop = 0;
    e.faults.webhookDuplicate = 1;
    e.setStatus(n.nodeId, 'PAUSED');
    await waitFor(() => r.received.length >= 2);
    await e.settled();
    expect(r.received).toHaveLength(2);
    expect(r.received[0].body).toBe(r.received[1].body);
  });

  it('refuses a plain-HTTP webhook URL that is not loopback in settings', async () => {
    const e = await emulator();
    const n = await create(e, 'a');
    const r = await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/settings`, { settings: { webhookUrl: 'http://10.0.0.1/h' } });
    expect(r.status).toBe(400);
    expect((await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/settings`, { settings: {} })).status).toBe(400);
    expect((await apiJson(e, 'POST', `/api/nodes/${n.nodeId}/settings`, { settings: { webhookUrl: 'http://localhost:9/h' } })).status).toBe(
      200,
    );
  });
});

describe('emulator node API routing', () => {
  it('checks the node API token, routes to the node world, and refuses nodes that are not running', async () => {
    const world = recordingWorld();
    const e = await emulator({ world });
    const n = await create(e, 'a');
    const noAuth = await fetch(`${n.invoke_url}/nodeinfo`);
    expect(noAuth.status).toBe(401);
    expect(await noAuth.json()).toMatchObject({ code: 401, name: expect.any(String), error: expect.any(String) });
    const auth = { authorization: `Bearer ${e.nodeApiToken}` };
    e.setStatus(n.nodeId, 'STARTING'); // holds it in STARTING (cancels the pending transition)
    const starting = await fetch(`${n.invoke_url}/nodeinfo`, { headers: auth });
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ error: 'The node is not running (status STARTING)', code: 503, name: 'NodeNotRunning' });
    e.setStatus(n.nodeId, 'RUNNING');
    const info = await fetch(`${n.invoke_url}/nodeinfo`, { headers: auth });
    expect(await info.json()).toEqual({ pubkey: `pk-${n.nodeId}` });
    const balance = await fetch(`${n.invoke_url}/btcbalance`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"skip_sync":false}',
    });
    expect(await balance.text()).toContain('18446744073709551615');
    expect(world.calls.at(-1)).toEqual({ nodeId: n.nodeId, method: 'POST', endpoint: 'btcbalance', body: { skip_sync: false } });
    const locked = await fetch(`${n.invoke_url}/lninvoice`, { method: 'POST', headers: auth });
    expect(locked.status).toBe(403);
    const other = await fetch(`${e.url}/nodes/someone-else/${n.nodeId}/nodeinfo`, { headers: auth });
    expect(other.status).toBe(404);
  });
});

describe('emulator faults', () => {
  it('answers 500 at errorRate 1, a truncated body with garbage, and closes connections when down', async () => {
    const e = await emulator();
    e.faults.errorRate = 1;
    expect((await api(e, 'GET', '/api/nodes')).status).toBe(500);
    e.faults.errorRate = 0;
    e.faults.garbage = true;
    const garbage = await api(e, 'GET', '/api/nodes');
    const text = await garbage.text();
    expect(() => JSON.parse(text)).toThrow();
    e.faults.garbage = false;
    e.faults.down = true;
    await expect(api(e, 'GET', '/api/nodes')).rejects.toThrow();
    e.faults.down = false;
    e.faults.rateLimitNext = 1;
    e.faults.retryAfterSec = 7;
    const limited = await api(e, 'GET', '/api/nodes');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await api(e, 'GET', '/api/nodes')).status).toBe(200);
    expect(e.requests.filter((r) => r.path === '/api/nodes')).toHaveLength(5);
  });
});
