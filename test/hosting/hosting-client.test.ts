import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { createHostingClient, ServiceError, type HostingClientOptions, type RetryInfo } from '../../src/hosting/index.js';
import { json, recordingWorld, startReceiver, startStub } from '../support/emulator.js';
import { waitFor } from '../support/wait-for.js';

const TOKEN = 'tok_SuperSecret_0123456789abcdef';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function emulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const e = await startEmulator({
    token: TOKEN,
    lifecycleDelayMs: 30,
    webhookRetry: { attempts: 2, baseDelayMs: 5 },
    world: recordingWorld(),
    ...opts,
  });
  open.push(e);
  return e;
}
function client(base: { url: string }, opts: Partial<HostingClientOptions> = {}) {
  return createHostingClient({
    baseUrl: base.url,
    token: TOKEN,
    timeoutMs: 2000,
    retry: { limit: 2, baseDelayMs: 5, maxDelayMs: 2000 },
    ...opts,
  });
}
async function stub(handler: Parameters<typeof startStub>[0]) {
  const s = await startStub(handler);
  open.push(s);
  return s;
}

/** Runs `fn`, expects a ServiceError, and checks that the token is nowhere in it. */
async function failure(fn: () => Promise<unknown>, token = TOKEN): Promise<ServiceError> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ServiceError);
  const err = caught as ServiceError;
  for (const text of [String(err), err.message, JSON.stringify(err), err.hint, err.serviceMessage ?? '', err.stack ?? '']) {
    expect(text).not.toContain(token);
  }
  return err;
}

const count = (e: Emulator, method: string, path: string) => e.requests.filter((r) => r.method === method && r.path === path).length;

describe('hosting client against the emulator', () => {
  it('lists, creates, reads, starts, stops, upgrades and destroys nodes', async () => {
    const e = await emulator({ seed: 'demo', lifecycleDelayMs: 200 });
    const c = client(e);
    const listed = await c.listNodes();
    expect(listed.map((n) => n.name).sort()).toEqual(['alice', 'bob', 'carol']);
    const alice = listed.find((n) => n.name === 'alice')!;
    expect(alice.invoke_url).toBe(`${e.url}/nodes/${e.userId}/${alice.nodeId}`);
    expect(alice.peerDNS).toEqual(expect.any(String)); // unknown fields are kept
    expect(alice.builds?.[0]?.buildStatus).toBe('SUCCESS');

    const created = await c.createNode({ name: 'dave', network: 'testnet' });
    expect(created.node).toMatchObject({ name: 'dave', network: 'testnet', status: 'STARTING' });
    expect(created.message).toEqual(expect.any(String));
    const id = created.node.nodeId;
    await waitFor(async () => (await c.getNode(id)).status === 'RUNNING');

    expect((await c.stopNode(id)).message).toEqual(expect.any(String));
    expect((await c.getNode(id)).status).toBe('PAUSED');
    await c.startNode(id);
    expect(e.nodes().find((n) => n.nodeId === id)?.status).toBe('STARTING');
    await waitFor(async () => (await c.getNode(id)).status === 'RUNNING');
    e.setLatestImage('v0.3.0');
    await c.upgradeNode(id);
    await waitFor(async () => (await c.getNode(id)).status === 'RUNNING');
    const upgraded = await c.getNode(id);
    expect(upgraded.imageVersion).toBe((await c.latestImage()).version);
    expect(upgraded.builds).toHaveLength(2);

    expect((await c.destroyNode(id)).message).toEqual(expect.any(String));
    // DESTROING, then DESTROYED and gone.
    expect(['DESTROING', 'DESTROYED']).toContain(e.nodes().find((n) => n.nodeId === id)?.status);
    await waitFor(() => !e.nodes().some((n) => n.nodeId === id));
    const gone = await failure(() => c.getNode(id));
    expect(gone).toMatchObject({ kind: 'not_found', status: 404, endpoint: 'GET /api/nodes/{id}' });
    expect(gone.hint).toContain('node list');
  });

  it('updates settings and receives the webhooks at the new URL', async () => {
    const r = await startReceiver();
    open.push(r);
    const e = await emulator();
    const c = client(e);
    const { node } = await c.createNode({ name: 'a', network: 'regtest' });
    await c.updateSettings(node.nodeId, { webhookUrl: r.url });
    expect((await c.getNode(node.nodeId)).settings?.webhookUrl).toBe(r.url);
    await waitFor(async () => (await c.getNode(node.nodeId)).status === 'RUNNING');
    await c.stopNode(node.nodeId);
    await waitFor(() => r.received.some((x) => JSON.parse(x.body).details.status === 'PAUSED'));
  });

  it('reads the latest image, the public key, and exports logs', async () => {
    const e = await emulator({ latestImage: 'v7.0.1', keyType: 'secp256k1' });
    const c = client(e);
    expect(await c.latestImage()).toMatchObject({ version: 'v7.0.1' });
    // `{ data: "<PEM>" }`, as the service publishes it.
    expect(await c.webhookPublicKey()).toMatchObject({ data: e.publicKey.pem });
    const { node } = await c.createNode({ name: 'a', network: 'regtest' });
    const { taskId } = await c.exportLogs(node.nodeId);
    expect(await c.getLogs(node.nodeId, taskId)).toEqual({ ready: false, urls: [] });
    const logs = await waitFor(async () => {
      const l = await c.getLogs(node.nodeId, taskId);
      return l.ready ? l : undefined;
    });
    expect(logs.urls.length).toBeGreaterThan(0);
    expect(await (await fetch(logs.urls[0])).text()).toContain(node.nodeId);
    const unknown = await failure(() => c.getLogs(node.nodeId, 'no-such-task'));
    expect(unknown.status).toBe(404);
  });

  it('sends the bearer token on every call', async () => {
    const node = { nodeId: 'n1', name: 'a', network: 'regtest', status: 'STARTING' };
    const s = await stub((req, res) => {
      if (req.method === 'GET' && req.url === '/api/nodes') return json(res, 200, { nodes: [] });
      if (req.method === 'POST' && req.url === '/api/nodes') return json(res, 201, { data: node, message: 'created' });
      if (req.method === 'GET' && req.url === '/api/nodes/n1') return json(res, 200, { data: node });
      return json(res, 200, { message: 'ok', taskId: 't', version: 'v1', urls: [] });
    });
    const c = client(s);
    await c.listNodes();
    expect(await c.getNode('n1')).toMatchObject({ nodeId: 'n1' });
    expect((await c.createNode({ name: 'a', network: 'regtest' })).node).toMatchObject({ nodeId: 'n1' });
    await c.startNode('n1');
    await c.stopNode('n1');
    await c.upgradeNode('n1');
    await c.destroyNode('n1');
    await c.updateSettings('n1', { webhookUrl: 'https://example.com/h' });
    await c.latestImage();
    await c.webhookPublicKey();
    await c.exportLogs('n1');
    await c.getLogs('n1', 't');
    // The client's twelve endpoints, each called once.
    expect(s.seen).toHaveLength(12);
    expect(new Set(s.seen.map((r) => `${r.method} ${r.url.split('?')[0]}`)).size).toBe(12);
    for (const r of s.seen) expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const destroy = s.seen.find((r) => r.method === 'DELETE')!;
    expect(destroy.url).toBe('/api/nodes');
    expect(JSON.parse(destroy.body)).toEqual({ destroyNodeId: 'n1' });
    const settings = s.seen.find((r) => r.url === '/api/nodes/n1/settings')!;
    expect(JSON.parse(settings.body)).toEqual({ settings: { webhookUrl: 'https://example.com/h' } });
  });
});

describe('hosting client errors', () => {
  it('reports 401 with a hint about SERVICE_API_TOKEN and never shows the token', async () => {
    const e = await emulator();
    const wrong = 'tok_Wrong_abcdefghijklmnop';
    const err = await failure(() => createHostingClient({ baseUrl: e.url, token: wrong }).listNodes(), wrong);
    expect(err).toMatchObject({ kind: 'auth', status: 401, endpoint: 'GET /api/nodes' });
    expect(err.hint).toContain('SERVICE_API_TOKEN');
    e.revokeToken();
    const revoked = await failure(() => client(e).stopNode('x'));
    expect(revoked.kind).toBe('auth');
    expect(count(e, 'GET', '/api/nodes')).toBe(1); // a 401 is not retried
  });

  it('masks the token even when the service echoes it back', async () => {
    const s = await stub((req, res) => json(res, 400, { error: `bad header ${req.headers.authorization}` }));
    const err = await failure(() => client(s).startNode('n1'));
    expect(err.kind).toBe('invalid');
    expect(err.serviceMessage).toContain('[redacted]');
  });

  it('reports 409 on a duplicate name with the service message', async () => {
    const e = await emulator();
    const c = client(e);
    await c.createNode({ name: 'a', network: 'regtest' });
    const err = await failure(() => c.createNode({ name: 'a', network: 'regtest' }));
    expect(err).toMatchObject({ kind: 'conflict', status: 409, endpoint: 'POST /api/nodes' });
    expect(err.serviceMessage).toMatch(/already exists/);
    expect(err.message).toContain(err.serviceMessage!);
    expect(err.hint).toMatch(/name is already taken/);
    const { node } = await c.createNode({ name: 'b', network: 'regtest' });
    await waitFor(async () => (await c.getNode(node.nodeId)).status === 'RUNNING');
    const again = await failure(() => c.startNode(node.nodeId));
    expect(again).toMatchObject({ kind: 'conflict', status: 409, endpoint: 'POST /api/nodes/{id}/start' });
    expect(again.hint).toMatch(/start was refused because of the node's current state/);
  });

  it('reports 400 from the service with the message from `error`', async () => {
    const s = await stub((_req, res) => json(res, 400, { error: 'settings.webhookUrl is not allowed' }));
    const err = await failure(() => client(s).updateSettings('n1', { webhookUrl: 'https://example.com' }));
    expect(err).toMatchObject({
      kind: 'invalid',
      status: 400,
      serviceMessage: 'settings.webhookUrl is not allowed',
      endpoint: 'POST /api/nodes/{id}/settings',
    });
  });

  it('refuses a non-HTTPS webhook URL and a bad network before sending anything', async () => {
    const e = await emulator();
    const c = client(e);
    const http = await failure(() => c.createNode({ name: 'a', network: 'regtest', webhookUrl: 'http://example.com/h' }));
    expect(http.kind).toBe('invalid');
    expect(http.message).toMatch(/HTTPS/);
    await failure(() => c.updateSettings('n', { webhookUrl: 'ftp://example.com' }));
    await failure(() => c.createNode({ name: 'a', network: 'mainnet' as 'regtest' }));
    expect(e.requests).toHaveLength(0);
    const ok = await c.createNode({ name: 'a', network: 'regtest', webhookUrl: 'http://127.0.0.1:9/h' });
    expect(ok.node.settings?.webhookUrl).toBe('http://127.0.0.1:9/h');
  });

  it('retries GET on 5xx but never a POST', async () => {
    const e = await emulator({ faults: { errorRate: 1 } });
    const retries: RetryInfo[] = [];
    const c = client(e, { retry: { limit: 2, baseDelayMs: 5, onRetry: (i) => retries.push(i) } });
    const listErr = await failure(() => c.listNodes());
    expect(listErr).toMatchObject({ kind: 'unavailable', status: 500 });
    expect(count(e, 'GET', '/api/nodes')).toBe(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(retries.map((r) => r.reason)).toEqual(['HTTP 500', 'HTTP 500']);
    expect(retries.map((r) => r.delayMs)).toEqual([5, 10]);
    expect(listErr.message).toContain('after 3 attempts');
    for (const op of ['start', 'stop', 'upgrade', 'logs'] as const) {
      const fn = {
        start: (id: string) => c.startNode(id),
        stop: (id: string) => c.stopNode(id),
        upgrade: (id: string) => c.upgradeNode(id),
        logs: (id: string) => c.exportLogs(id),
      }[op];
      await failure(() => fn('n1'));
      expect(count(e, 'POST', `/api/nodes/n1/${op}`)).toBe(1);
    }
    await failure(() => c.createNode({ name: 'a', network: 'regtest' }));
    expect(count(e, 'POST', '/api/nodes')).toBe(1);
    await failure(() => c.destroyNode('n1'));
    expect(count(e, 'DELETE', '/api/nodes')).toBe(1);
    await failure(() => c.updateSettings('n1', { webhookUrl: 'https://example.com' }));
    expect(count(e, 'POST', '/api/nodes/n1/settings')).toBe(1);
  });

  it('reports the outcome of every call to onCall', async () => {
    const e = await emulator();
    const calls: Array<{ endpoint: string; outcome: string; status?: number }> = [];
    const c = client(e, { onCall: (i) => calls.push(i) });
    await c.listNodes();
    await failure(() => c.stopNode('nope'));
    expect(calls).toEqual([
      { endpoint: 'GET /api/nodes', outcome: 'ok', status: 200 },
      { endpoint: 'POST /api/nodes/{id}/stop', outcome: 'not_found', status: 404 },
    ]);
  });

  it('recovers from a transient 503 on a GET', async () => {
    const e = await emulator({ seed: 'demo', faults: { errorNext: 1 } });
    const nodes = await client(e).listNodes();
    expect(nodes).toHaveLength(3);
    expect(count(e, 'GET', '/api/nodes')).toBe(2);
  });

  it('honours Retry-After on 429, and gives up when it is longer than maxDelayMs', async () => {
    const e = await emulator({ seed: 'demo', faults: { rateLimitNext: 1, retryAfterSec: 1 } });
    const retries: RetryInfo[] = [];
    const c = client(e, { retry: { limit: 2, baseDelayMs: 5, maxDelayMs: 2000, onRetry: (i) => retries.push(i) } });
    expect(await c.latestImage()).toHaveProperty('version');
    expect(retries).toHaveLength(1);
    expect(retries[0].delayMs).toBe(e.faults.retryAfterSec * 1000);
    expect(retries[0].reason).toContain('429');

    e.faults.rateLimitNext = 1;
    e.faults.retryAfterSec = 60;
    const err = await failure(() => c.latestImage());
    expect(err).toMatchObject({ status: 429, kind: 'unavailable' });
    expect(err.message).toMatch(/wait 60 s/);
  });

  it('times out when the service is slower than the client allows', async () => {
    const e = await emulator({ faults: { latencyMs: 400 } });
    const c = client(e, { timeoutMs: 50, retry: { limit: 1, baseDelayMs: 5 } });
    const err = await failure(() => c.listNodes());
    expect(err).toMatchObject({ kind: 'timeout', endpoint: 'GET /api/nodes' });
    expect(err.message).toContain('50 ms');
    expect(count(e, 'GET', '/api/nodes')).toBe(2);
    const post = await failure(() => c.stopNode('n1'));
    expect(post.kind).toBe('timeout');
    expect(count(e, 'POST', '/api/nodes/n1/stop')).toBe(1);
  });

  it('reports a network error when the service closes the connection', async () => {
    const e = await emulator({ faults: { down: true } });
    const err = await failure(() => client(e, { retry: { limit: 1, baseDelayMs: 5 } }).listNodes());
    expect(err.kind).toBe('network');
    expect(err.hint).toContain('SERVICE_URL');
    expect(count(e, 'GET', '/api/nodes')).toBe(2);
  });

  it('reports an invalid base URL without trying to send', async () => {
    const err = await failure(() => createHostingClient({ baseUrl: 'not a url', token: TOKEN, retry: { limit: 0 } }).listNodes());
    expect(err.kind).toBe('network');
    expect(err.hint).toContain('SERVICE_URL');
  });

  it('says that a truncated body is truncated, naming the endpoint', async () => {
    const e = await emulator({ seed: 'demo', faults: { garbage: true } });
    const err = await failure(() => client(e).listNodes());
    expect(err).toMatchObject({ kind: 'bad_response', status: 200, endpoint: 'GET /api/nodes' });
    expect(err.message).toMatch(/truncated or malformed JSON/);
  });

  it('names the field and endpoint of a malformed response', async () => {
    const s = await stub((req, res) => {
      if (req.url === '/api/nodes')
        return json(res, 200, {
          nodes: [
            { nodeId: 'n1', name: 'a', network: 'regtest', status: 'RUNNING' },
            { nodeId: 'n2', name: 7, network: 'regtest', status: 'RUNNING' },
          ],
        });
      if (req.url === '/api/nodes/n1') return json(res, 200, { data: { nodeId: 'n1', name: 'a', network: 'regtest' } });
      if (req.url === '/api/nodes/latest-rln-image') return json(res, 200, { data: { nope: true } });
      if (req.url?.startsWith('/api/nodes/n1/logs')) return json(res, 200, 'not json at all', {});
      return json(res, 200, '');
    });
    const c = client(s);
    const list = await failure(() => c.listNodes());
    expect(list.kind).toBe('bad_response');
    expect(list.message).toContain('GET /api/nodes');
    expect(list.message).toContain('nodes[1].name');
    const get = await failure(() => c.getNode('n1'));
    expect(get.message).toContain('data.status');
    const image = await failure(() => c.latestImage());
    expect(image.message).toContain('data.version');
    const logs = await failure(() => c.exportLogs('n1'));
    expect(logs.message).toMatch(/not JSON/);
    const empty = await failure(() => c.getNode('n2'));
    expect(empty.message).toMatch(/empty/);
  });
});

describe('hosting client envelope tolerance', () => {
  it('accepts bare and {data} bodies where the envelope is not documented', async () => {
    const node = { nodeId: 'n1', name: 'a', network: 'regtest', status: 'RUNNING', extra: { x: 1 } };
    let wrapped = false;
    const s = await stub((req, res) => {
      const wrap = (b: unknown) => (wrapped ? { data: b } : b);
      if (req.url === '/api/nodes/n1') return json(res, 200, wrap(node));
      if (req.url === '/api/nodes/latest-rln-image') return json(res, 200, wrap(wrapped ? { version: 'v2' } : 'v1'));
      if (req.url === '/api/nodes/n1/logs') return json(res, 200, wrap({ taskId: 42 }));
      if (req.url?.startsWith('/api/nodes/n1/logs?')) return json(res, 200, wrap({ status: 'COMPLETED', downloadUrls: ['https://x/1'] }));
      if (req.url === '/api/webhook-public-key') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n');
      }
      if (req.url === '/api/nodes' && req.method === 'POST') return json(res, 201, { ...node, status: 'STARTING', message: 'made' });
      return json(res, 200, wrap({ message: 'done' }));
    });
    const c = client(s);
    for (const w of [false, true]) {
      wrapped = w;
      const got = await c.getNode('n1');
      expect(got).toMatchObject(node);
      expect((await c.latestImage()).version).toBe(w ? 'v2' : 'v1');
      expect(await c.exportLogs('n1')).toEqual({ taskId: '42' });
      expect(await c.getLogs('n1', 't')).toEqual({ ready: true, urls: ['https://x/1'] });
      expect(await c.startNode('n1')).toEqual({ message: 'done' });
    }
    expect(await c.webhookPublicKey()).toContain('BEGIN PUBLIC KEY');
    const created = await c.createNode({ name: 'a', network: 'regtest' });
    expect(created).toMatchObject({ node: { nodeId: 'n1', status: 'STARTING' }, message: 'made' });
  });

  it('accepts an empty body from operations whose response is not documented', async () => {
    const s = await stub((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    expect(await client(s).stopNode('n1')).toEqual({});
  });
});
