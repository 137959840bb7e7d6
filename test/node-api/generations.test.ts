/**
 * The node API client learns each node's generation per capability: from a known image, else from the
 * node's own answers (a 404 on a path, a refusal that names a missing field), and forgets it when the
 * node answers locked or its image changes. Real NodeWorld nodes behind the loopback test server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApiClient, NodeShapes, shapeOfCommit, type NodeApiClient } from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

const PASSWORD = 'gen-password-1';
const INDEXER = '127.0.0.1:50001';
let server: NodeWorldServer;
let world: NodeWorld;

/** The endpoints the server was asked, in order, from now on. */
function asked(): () => string[] {
  const before = new Map(server.hits);
  return () => [...server.hits].filter(([e, n]) => n > (before.get(e) ?? 0)).map(([e]) => e);
}

const client = (nodeId: string, o: { shapes?: NodeShapes; image?: string } = {}): NodeApiClient =>
  createNodeApiClient({ baseUrl: server.urlOf(nodeId), credentials: { kind: 'token', token: 't' }, retries: 0, ...o });

beforeAll(async () => {
  world = new NodeWorld({ fundingSat: 2_000_000 });
  world.addNode('old', { network: 'regtest', api: 'f379330' });
  world.addNode('new', { network: 'regtest', api: '6887cbf' });
  await world.seedReadyNode('old', PASSWORD);
  await world.seedReadyNode('new', PASSWORD);
  server = await startNodeWorldServer({ world, token: 't' });
  for (const id of ['old', 'new']) await client(id).createutxos({ num: 3, size: 32_500, fee_rate: 2, up_to: false, skip_sync: false });
  world.mine(1);
});
afterAll(async () => {
  world.close();
  await server.close();
});

describe('node API generations', () => {
  it('knows the two reference commits, by any prefix of 7 hex digits or more', () => {
    expect(shapeOfCommit('f379330')).toBe('f379330');
    expect(shapeOfCommit('75f9ac50b0ec')).toBe('f379330');
    expect(shapeOfCommit('6887cbf95eaa0208a42ff73b41bd4b3959655bf4')).toBe('6887cbf');
    expect(shapeOfCommit('0a93462')).toBeUndefined();
    expect(shapeOfCommit('v0.2.1')).toBeUndefined();
  });

  it('learns a node’s generation from its answers, once per capability, when no image says it', async () => {
    for (const [nodeId, gen] of [
      ['old', 'f379330'],
      ['new', '6887cbf'],
    ] as const) {
      const shapes = new NodeShapes();
      const api = client(nodeId, { shapes });
      const seen = asked();
      expect(await api.generation('send')).toBe(gen);
      expect(await api.generation('unlock')).toBe(gen);
      expect(await api.generation('listtransfers')).toBe(gen);
      expect(seen()).toEqual(['sendrgb', 'unlock', 'listtransfers']);
      // Remembered: asked again, the node is not.
      const again = asked();
      expect(await api.generation('send')).toBe(gen);
      expect(again()).toEqual([]);
      expect(shapes.snapshot()).toEqual({ send: gen, unlock: gen, listtransfers: gen });
    }
  });

  it('takes it from the image where the service gives one, asking the node nothing', async () => {
    const seen = asked();
    expect(await client('new', { image: '6887cbf95eaa0208a42ff73b41bd4b3959655bf4' }).generation('rgbinvoice')).toBe('6887cbf');
    expect(seen()).toEqual([]);
  });

  it('sends one neutral request in the node’s shape (asset_id or asset_filter), and says what a shape cannot say', async () => {
    const transfersOf = async (nodeId: 'old' | 'new') => {
      const api = client(nodeId);
      const { asset } = await api.issueassetnia({ amounts: [100], ticker: 'GEN', name: 'Gen', precision: 0 });
      return (await api.listtransfers({ asset_id: asset.asset_id })).transfers;
    };
    expect((await transfersOf('old'))[0]).toMatchObject({ kind: 'Issuance', status: 'Settled' });
    expect((await transfersOf('new'))[0]).toMatchObject({ kind: 'Issuance', status: 'Settled' });
    const seen = asked();
    await expect(client('old').listtransfers({})).rejects.toMatchObject({
      kind: 'invalid-request',
      message: expect.stringContaining('one asset at a time'),
    });
    expect(seen()).toEqual(['listtransfers']); // the probe only: the body was never sent
    expect((await client('new').listtransfers({})).transfers.length).toBeGreaterThan(0);
  });

  it('a wrong guess refused for the other shape’s field is sent again, once, in the other shape', async () => {
    const shapes = new NodeShapes();
    shapes.set('unlock', 'f379330'); // stale: as if the node had been upgraded unseen
    const api = client('new', { shapes });
    world.lockNode('new');
    await api.unlock({ password: PASSWORD, indexer_url: INDEXER });
    expect(shapes.get('unlock')).toBe('6887cbf');
    expect((await api.nodeinfo()).pubkey).toBe(world.pubkeyOf('new'));
  });

  it('forgets what it learnt when the node answers locked (a restart or an upgrade) and when its image changes', async () => {
    const shapes = new NodeShapes();
    shapes.seenImage('f379330');
    shapes.set('send', 'f379330');
    shapes.seenImage('6887cbf95eaa');
    expect(shapes.get('send')).toBe('6887cbf');
    shapes.set('sync', '6887cbf');
    world.moveToImage('old', 'f379330'); // restarted: locked
    const api = client('old', { shapes });
    await expect(api.btcbalance({ skip_sync: true })).rejects.toMatchObject({ rlnName: 'LockedNode' });
    expect(shapes.snapshot()).toEqual({
      send: '6887cbf',
      unlock: '6887cbf',
      rgbinvoice: '6887cbf',
      listtransfers: '6887cbf',
      sync: '6887cbf',
      refreshtransfers: '6887cbf',
      listunspents: '6887cbf',
      ifa: '6887cbf',
      swapstring: '6887cbf',
      outofband: '6887cbf',
    });
    expect(shapes.get('sync')).toBe('6887cbf'); // the image's word stays; what was learnt on top of it is gone
    await world.seedReadyNode('old', PASSWORD);
  });
});
