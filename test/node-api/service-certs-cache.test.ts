/**
 * A node's kept certificate is read again from the database every `cacheMs` (so that one fetched
 * or forgotten on another replica is used there too), but the same row read again gives the same
 * credentials object: a node API client builds its transport (a TLS dispatcher and its connections)
 * again only when its credentials object changes, and the poller reads every node once an interval,
 * as long as the cache lasts. A real SQLite store and certificates of the emulator's CA; the clock
 * is the test's (a pure unit of the cache).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCertAuthority } from '../../src/emulator/index.js';
import { createServiceCerts } from '../../src/node-api/index.js';
import { createNodeCertStore, openDatabase, type Db } from '../../src/store/index.js';

let db: Db | undefined;
afterEach(async () => {
  await db?.close();
});

describe('the kept certificates, read again', () => {
  it('give the same credentials object while the row is the same, and new ones once another replica fetched or forgot it', async () => {
    db = openDatabase(':memory:');
    const ca = createCertAuthority();
    const key = randomBytes(32);
    let t = 1_000;
    const replica = () =>
      createServiceCerts({ store: createNodeCertStore(db!), generate: async () => ca.issueClient('alice'), key, now: () => t });
    const here = replica();
    const there = replica();
    const node = { nodeId: 'n1', name: 'alice' };
    await here.fetchAndKeep(node, 'slack:U1');

    const first = await here.credentialsOf('n1');
    expect(first?.kind).toBe('service-mtls');
    t += 31_000;
    expect(await here.credentialsOf('n1')).toBe(first);
    t += 31_000;
    expect(await here.credentialsOf('n1')).toBe(first);

    await there.fetchAndKeep(node, 'slack:U2');
    // Within cacheMs: still the one it had, answered at once (every node call asks: no promise then).
    const cached = here.credentialsOf('n1');
    expect(cached).not.toBeInstanceOf(Promise);
    expect(cached).toBe(first);
    t += 31_000;
    const second = await here.credentialsOf('n1');
    expect(second).not.toBe(first);
    expect(second?.certificate).not.toBe(first?.certificate);

    await there.forget('n1');
    t += 31_000;
    expect(await here.credentialsOf('n1')).toBeUndefined();
  });
});
