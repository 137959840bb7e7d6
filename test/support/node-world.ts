import { expect } from 'vitest';
import { NodeWorld, ROUTES } from '../../src/emulator/node-api/index.js';
import { validateResponse } from './openapi.js';

export type Any = any;

/** Calls an endpoint, expects 200 and a body valid against the OpenAPI response schema. */
export async function ok(world: NodeWorld, nodeId: string, endpoint: string, body: unknown = {}): Promise<Any> {
  const method = ROUTES[endpoint].method;
  const r = await world.handle(nodeId, method, endpoint, method === 'GET' ? undefined : body);
  expect(r.status, `${endpoint} on ${nodeId}: ${JSON.stringify(r.body)}`).toBe(200);
  const v = validateResponse(endpoint, method, r.body);
  expect(v.errors).toBe('');
  return r.body;
}

/** Calls an endpoint, expects an RLN-shaped error with this status and name. */
export async function err(world: NodeWorld, nodeId: string, endpoint: string, body: unknown, status: number, name: string): Promise<Any> {
  const method = ROUTES[endpoint]?.method ?? 'POST';
  const r = await world.handle(nodeId, method, endpoint, method === 'GET' ? undefined : body);
  expect(r.body, `${endpoint} on ${nodeId}`).toMatchObject({ code: status, name });
  expect(r.status).toBe(status);
  expect(typeof (r.body as Any).error).toBe('string');
  return r.body;
}

/** Two ready (initialized, unlocked, funded) regtest nodes with colored UTXOs. */
export async function twoNodes(opts: { fundingSat?: number } = {}) {
  const world = new NodeWorld(opts);
  world.addNode('alice', { network: 'regtest', alias: 'alice' });
  world.addNode('bob', { network: 'regtest', alias: 'bob' });
  await world.seedReadyNode('alice', 'alice-password');
  await world.seedReadyNode('bob', 'bob-password');
  await ok(world, 'alice', 'createutxos', { num: 5, size: 32_500 });
  await ok(world, 'bob', 'createutxos', { num: 5, size: 32_500 });
  world.mine(1);
  return world;
}

export async function issueNia(world: NodeWorld, nodeId: string, amounts = [1000, 600], precision = 2): Promise<string> {
  const r = await ok(world, nodeId, 'issueassetnia', { ticker: 'USDT', name: 'Tether', amounts, precision });
  return r.asset.asset_id;
}

/** Connects alice to bob and opens a channel alice -> bob, mined to Opened. */
export async function openChannel(world: NodeWorld, body: Record<string, unknown> = {}): Promise<Any> {
  await ok(world, 'alice', 'connectpeer', { peer_pubkey_and_addr: `${world.pubkeyOf('bob')}@127.0.0.1:9735` });
  const open = await ok(world, 'alice', 'openchannel', {
    peer_pubkey_and_opt_addr: world.pubkeyOf('bob'),
    capacity_sat: 100_000,
    push_msat: 10_000_000,
    ...body,
  });
  world.mine(1);
  const { channels } = await ok(world, 'alice', 'listchannels');
  return { temporary_channel_id: open.temporary_channel_id, channel: channels.at(-1) };
}
