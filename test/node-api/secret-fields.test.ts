import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { redactText } from '../../src/log.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

const TOKEN = 'secret-fields-token-1';
let server: NodeWorldServer;

beforeAll(async () => {
  const world = new NodeWorld();
  world.addNode('fresh', { network: 'regtest' });
  server = await startNodeWorldServer({ world, token: TOKEN });
});
afterAll(() => server.close());

describe('node API client and secrets', () => {
  it('masks the password it sends and the mnemonic /init answers in every log line and error text from then on', async () => {
    const client = createNodeApiClient({ baseUrl: server.urlOf('fresh'), credentials: { kind: 'token', token: TOKEN } });
    const password = 'fresh-node-password-42';
    const { mnemonic } = await client.init({ password });
    expect(mnemonic.split(' ').length).toBeGreaterThanOrEqual(12);
    expect(redactText(`a line with ${mnemonic} in it`)).toBe('a line with [redacted] in it');
    expect(redactText(`the node said ${password} is weak`)).toBe('the node said [redacted] is weak');
  });
});
