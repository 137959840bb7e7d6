import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApiClient, endpointNames, type NodeApiClient } from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

// The bot keeps a client per node (2,000 for a large account): a client holds the methods it was
// asked for, not one closure per endpoint (issue 29), and each method still calls its own node.
describe('node API client methods', () => {
  const token = 'test-node-token';
  const world = new NodeWorld();
  let server: NodeWorldServer;
  const client = (id: string) => createNodeApiClient({ baseUrl: server.urlOf(id), credentials: { kind: 'token', token }, timeoutMs: 5000 });

  beforeAll(async () => {
    for (const id of ['alice', 'bob']) {
      world.addNode(id, { network: 'regtest', alias: id });
      await world.seedReadyNode(id, 'test-password');
    }
    server = await startNodeWorldServer({ world, token });
  });
  afterAll(() => server.close());

  it('has a method for every endpoint, and holds none of them until it is asked for one', () => {
    const c = client('alice');
    expect(endpointNames.filter((name) => Object.hasOwn(c, name))).toEqual([]);
    for (const name of endpointNames) expect(typeof c[name], name).toBe('function');
    expect(endpointNames.filter((name) => Object.hasOwn(c, name))).toEqual(endpointNames);
  });

  it('keeps the method it made: taken apart from the client, it calls that client’s node', async () => {
    const alice = client('alice');
    const bob = client('bob');
    const { nodeinfo } = alice;
    expect(alice.nodeinfo).toBe(nodeinfo);
    expect(Object.hasOwn(bob, 'nodeinfo')).toBe(false);
    await expect(nodeinfo()).resolves.toMatchObject({ pubkey: world.pubkeyOf('alice') });
    await expect(bob.nodeinfo()).resolves.toMatchObject({ pubkey: world.pubkeyOf('bob') });
  });

  it('lets one client’s method be replaced without touching the others', async () => {
    const alice = client('alice') as NodeApiClient & Record<string, unknown>;
    const replaced = (() => Promise.resolve({ pubkey: 'replaced' })) as unknown as NodeApiClient['nodeinfo'];
    alice.nodeinfo = replaced;
    expect(alice.nodeinfo).toBe(replaced);
    await expect(client('alice').nodeinfo()).resolves.toMatchObject({ pubkey: world.pubkeyOf('alice') });
  });
});
