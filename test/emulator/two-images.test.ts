/**
 * The emulator's two images: the demo seeds nodes on an image speaking the f379330 node API, the latest
 * image speaks 6887cbf, and `upgrade` moves a node to it locked. Real emulator over loopback.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startReceiver } from '../support/emulator.js';
import { waitFor } from '../support/wait-for.js';

const PASSWORD = 'two-images-1';
let e: Emulator;

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  token = e.token,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const nodeApi = (nodeId: string, endpoint: string, body: unknown = {}) =>
  call('POST', `/nodes/${e.userId}/${nodeId}/${endpoint}`, body, e.nodeApiToken);
const idOf = (name: string) => e.nodes().find((n) => n.name === name)!.nodeId;

beforeAll(async () => {
  e = await startEmulator({ port: 0, lifecycleDelayMs: 20, seed: 'demo', demoPassword: PASSWORD });
});
afterAll(async () => {
  await e.close();
});

describe('emulator: two images', () => {
  it('seeds the demo on the f379330 image; the latest image speaks 6887cbf, with its commit on every node', async () => {
    const latest = (await call('GET', '/api/nodes/latest-rln-image')).body.data as string;
    const alice = (await call('GET', `/api/nodes/${idOf('alice')}`)).body;
    expect(alice.imageVersion).not.toBe(latest);
    expect(alice.rln_commit_id).toMatch(/^f379330/);
    expect(e.world.apiOf(idOf('alice'))).toBe('f379330');
    expect((await nodeApi(idOf('alice'), 'sendrgb')).status).toBe(404);
  });

  it('upgrade: IN_PROGRESS, then RUNNING on the latest image, LOCKED; /sendasset is gone and the old /unlock is refused as RLN refuses it', async () => {
    const id = idOf('alice');
    expect((await call('POST', `/api/nodes/${id}/upgrade`)).status).toBe(200);
    await waitFor(() => e.nodes().find((n) => n.nodeId === id)?.status === 'RUNNING' && e.world.apiOf(id) === '6887cbf', {
      timeout: 2_000,
      what: 'upgraded',
    });
    expect((await call('GET', `/api/nodes/${id}`)).body.rln_commit_id).toMatch(/^6887cbf/);
    expect((await call('GET', `/nodes/${e.userId}/${id}/nodeinfo`, undefined, e.nodeApiToken)).body).toMatchObject({
      code: 403,
      name: 'LockedNode',
    });
    expect((await nodeApi(id, 'sendasset', {})).status).toBe(404);
    const old = await nodeApi(id, 'unlock', {
      password: PASSWORD,
      bitcoind_rpc_username: 'u',
      bitcoind_rpc_password: 'p',
      bitcoind_rpc_host: 'h',
      bitcoind_rpc_port: 18443,
    });
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ name: 'InvalidRequest', error: expect.stringContaining('missing field `ldk_chain_sync`') });
    const ok = await nodeApi(id, 'unlock', {
      password: PASSWORD,
      ldk_chain_sync: { mode: 'TransactionSync', config: { indexer_url: '127.0.0.1:50001' } },
      indexer_url: '127.0.0.1:50001',
      announce_addresses: [],
    });
    expect(ok.status).toBe(200);
    // And f379330 refuses a 6887cbf body the way it refused missing fields (axum's 422).
    const onOld = await nodeApi(idOf('bob'), 'listtransfers', { asset_filter: { type: 'AnyOrNone' } });
    expect(onOld).toMatchObject({
      status: 422,
      body: { name: 'JsonExtractorRejection', error: expect.stringContaining('missing field `asset_id`') },
    });
  });

  it('a backup taken on f379330 cannot be restored on 6887cbf: its mnemonic file is unreadable there', async () => {
    const bob = idOf('bob');
    expect((await nodeApi(bob, 'lock')).status).toBe(200);
    expect((await nodeApi(bob, 'backup', { backup_path: '/backups/bob-old.backup', password: PASSWORD })).status).toBe(200);
    const alice = idOf('alice');
    expect((await nodeApi(alice, 'lock')).status).toBe(200);
    const r = await nodeApi(alice, 'restore', { backup_path: '/backups/bob-old.backup', password: PASSWORD });
    expect(r).toMatchObject({
      status: 500,
      body: { name: 'CorruptedMnemonic', error: expect.stringContaining('The stored mnemonic is corrupted') },
    });
  });

  it('answers the management API as the service publishes it: generate-cert, FAILURE builds, DESTROING then DESTROYED', async () => {
    const id = idOf('carol');
    const cert = (await call('POST', `/api/nodes/${id}/generate-cert`)).body;
    const x = new X509Certificate(cert.certificate);
    expect(x.verify(new X509Certificate(cert.certificateChain).publicKey)).toBe(true);
    expect(x.checkPrivateKey(createPrivateKey(cert.privateKey))).toBe(true);
    expect(cert.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    e.faults.failNext.add('upgrade');
    await call('POST', `/api/nodes/${id}/upgrade`);
    await waitFor(() => e.nodes().find((n) => n.nodeId === id)?.status === 'FAILED', { timeout: 2_000, what: 'FAILED' });
    expect(
      e
        .nodes()
        .find((n) => n.nodeId === id)!
        .builds!.at(-1),
    ).toMatchObject({ buildStatus: 'FAILURE', currentPhase: 'COMPLETED', action: 'UPGRADE' });
    // DESTROING lasts the emulator's lifecycle delay (20 ms here): on a busy machine it may be
    // over before the DELETE's answer is read, so the statuses are read from the node's webhooks.
    const hooks = await startReceiver();
    try {
      expect((await call('POST', `/api/nodes/${id}/settings`, { settings: { webhookUrl: hooks.url } })).status).toBe(200);
      expect((await call('DELETE', '/api/nodes', { destroyNodeId: id })).status).toBe(200);
      await waitFor(() => !e.nodes().some((n) => n.nodeId === id), { timeout: 10_000, what: 'carol gone' });
      await waitFor(() => hooks.received.length >= 2, { timeout: 10_000, what: 'two status webhooks' });
      const statuses = hooks.received.map((x) => (JSON.parse(x.body) as { details: { status: string } }).details.status);
      expect(statuses).toEqual(['DESTROING', 'DESTROYED']);
    } finally {
      await hooks.close();
    }
  });
});
