import { describe, expect, it } from 'vitest';
import { NodeWorld, ROUTES } from '../../../src/emulator/node-api/index.js';
import { documentedEndpoints } from '../../support/openapi.js';
import { err, ok } from '../../support/node-world.js';

describe('NodeWorld routing', () => {
  it('serves every endpoint of the RLN OpenAPI document with its documented method', () => {
    const documented = documentedEndpoints();
    expect(documented.length).toBeGreaterThan(50);
    for (const [endpoint, method] of documented) expect(ROUTES[endpoint]?.method, endpoint).toBe(method);
    expect(Object.keys(ROUTES).sort()).toEqual(documented.map(([e]) => e).sort());
  });

  it('answers a wrong method with an RLN-shaped 405 and an unknown endpoint or node with 404', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'regtest' });
    await world.seedReadyNode('n1', 'password1');
    expect(await world.handle('n1', 'POST', 'listchannels', {})).toMatchObject({
      status: 405,
      body: { code: 405, name: 'MethodNotAllowed' },
    });
    expect(await world.handle('n1', 'GET', 'btcbalance', undefined)).toMatchObject({ status: 405 });
    expect(await world.handle('n1', 'POST', 'nosuchendpoint', {})).toMatchObject({ status: 404, body: { code: 404 } });
    expect(await world.handle('ghost', 'GET', 'nodeinfo', undefined)).toMatchObject({ status: 404 });
  });

  it('refuses a body that is not an object, and missing or mistyped fields, with 400', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'regtest' });
    await world.seedReadyNode('n1', 'password1');
    expect(await world.handle('n1', 'POST', 'btcbalance', [1, 2])).toMatchObject({ status: 400 });
    await err(world, 'n1', 'issueassetnia', { ticker: 'USDT', amounts: [1] }, 400, 'InvalidRequest');
    await err(world, 'n1', 'sendbtc', { amount: -5, address: 'bcrt1qxyz' }, 400, 'InvalidRequest');
    await err(world, 'n1', 'estimatefee', { blocks: 'soon' }, 400, 'InvalidRequest');
  });
});

describe('NodeWorld node lifecycle', () => {
  it('answers NotInitialized before init, returns a mnemonic once, then AlreadyInitialized', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'regtest' });
    await err(world, 'n1', 'btcbalance', {}, 403, 'NotInitialized');
    await err(world, 'n1', 'unlock', { password: 'password1' }, 403, 'NotInitialized');
    await err(world, 'n1', 'init', { password: 'short' }, 400, 'InvalidPassword');
    const { mnemonic } = await ok(world, 'n1', 'init', { password: 'password1' });
    expect(mnemonic.split(' ')).toHaveLength(12);
    await err(world, 'n1', 'init', { password: 'password1' }, 403, 'AlreadyInitialized');
  });

  it('stays locked until unlocked with the right password, and locks again', async () => {
    const world = new NodeWorld({ fundingSat: 123_456 });
    world.addNode('n1', { network: 'regtest' });
    await ok(world, 'n1', 'init', { password: 'password1' });
    for (const e of ['btcbalance', 'listchannels', 'nodeinfo', 'issueassetnia', 'sendpayment']) {
      await err(world, 'n1', e, {}, 403, 'LockedNode');
    }
    await err(world, 'n1', 'unlock', { password: 'wrong-password' }, 401, 'WrongPassword');
    await ok(world, 'n1', 'unlock', { password: 'password1' });
    await err(world, 'n1', 'unlock', { password: 'password1' }, 403, 'UnlockedNode');
    const balance = await ok(world, 'n1', 'btcbalance', { skip_sync: false });
    expect(balance.vanilla).toEqual({ settled: 123_456, future: 123_456, spendable: 123_456 });
    await ok(world, 'n1', 'sync', {});
    await ok(world, 'n1', 'lock', {});
    await err(world, 'n1', 'btcbalance', {}, 403, 'LockedNode');
    await err(world, 'n1', 'lock', {}, 403, 'LockedNode');
  });

  it('changes the password only while locked and with the old one', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'regtest' });
    await world.seedReadyNode('n1', 'password1');
    await err(world, 'n1', 'changepassword', { old_password: 'password1', new_password: 'password2' }, 403, 'UnlockedNode');
    await ok(world, 'n1', 'lock', {});
    await err(world, 'n1', 'changepassword', { old_password: 'nope-nope', new_password: 'password2' }, 401, 'WrongPassword');
    await ok(world, 'n1', 'changepassword', { old_password: 'password1', new_password: 'password2' });
    await err(world, 'n1', 'unlock', { password: 'password1' }, 401, 'WrongPassword');
    await ok(world, 'n1', 'unlock', { password: 'password2' });
  });

  it('backs up a locked node and restores the wallet from it', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'regtest' });
    await world.seedReadyNode('n1', 'password1');
    await ok(world, 'n1', 'createutxos', { num: 2 });
    const before = await ok(world, 'n1', 'listunspents', { skip_sync: false });
    await err(world, 'n1', 'backup', { backup_path: '/tmp/b1', password: 'password1' }, 403, 'UnlockedNode');
    await ok(world, 'n1', 'lock', {});
    await err(world, 'n1', 'backup', { backup_path: '/tmp/b1', password: 'bad-password' }, 401, 'WrongPassword');
    await ok(world, 'n1', 'backup', { backup_path: '/tmp/b1', password: 'password1' });
    await err(world, 'n1', 'restore', { backup_path: '/tmp/none', password: 'password1' }, 400, 'InvalidBackupPath');
    await err(world, 'n1', 'restore', { backup_path: '/tmp/b1', password: 'bad-password' }, 401, 'WrongPassword');
    await ok(world, 'n1', 'unlock', { password: 'password1' });
    await ok(world, 'n1', 'createutxos', { num: 1 });
    await err(world, 'n1', 'restore', { backup_path: '/tmp/b1', password: 'password1' }, 403, 'UnlockedNode');
    await ok(world, 'n1', 'lock', {});
    await ok(world, 'n1', 'restore', { backup_path: '/tmp/b1', password: 'password1' });
    await ok(world, 'n1', 'unlock', { password: 'password1' });
    expect(await ok(world, 'n1', 'listunspents', { skip_sync: false })).toEqual(before);
  });

  it('comes back locked after shutdown, and accepts revoketoken', async () => {
    const world = new NodeWorld();
    world.addNode('n1', { network: 'testnet' });
    await world.seedReadyNode('n1', 'password1');
    expect(await ok(world, 'n1', 'networkinfo')).toMatchObject({ network: 'Testnet' });
    await ok(world, 'n1', 'revoketoken', { token: 'some-biscuit' });
    await ok(world, 'n1', 'shutdown', {});
    await err(world, 'n1', 'nodeinfo', undefined, 403, 'LockedNode');
  });
});
