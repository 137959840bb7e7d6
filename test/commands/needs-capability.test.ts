/**
 * The gate of commands that only later RLN images run: on a node whose image lacks the capability, the
 * refusal names the image it needs and offers `node upgrade`; on a node that has it, nothing is refused.
 * The real emulator (demo seed: alice on the older image, speaking f379330) and the real clients.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../commands/services.js';
import { needsCapability, requireCapability } from '../../commands/support/needs-capability.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createNodeApiClient, imageOfNode } from '../../src/node-api/index.js';
import { PASSWORD } from '../support/commands.js';
import { waitFor } from '../support/wait-for.js';

let emulator: Emulator;
let services: Services;
/** Whether the clients are told the node's image (else they ask the node itself). */
let withImage = true;
const endpointsAsked: string[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 20, seed: 'demo', demoPassword: PASSWORD, latestImage: 'v0.2.1' });
  const handle = emulator.world.handle.bind(emulator.world);
  emulator.world.handle = async (nodeId, method, endpoint, body) => {
    endpointsAsked.push(endpoint.replace(/^\/+/, ''));
    return handle(nodeId, method, endpoint, body);
  };
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token, retry: { limit: 0 } });
  const nodeApi = (n: HostedNode) =>
    createNodeApiClient({
      baseUrl: n.invoke_url!,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
      ...(withImage ? { image: imageOfNode(n) } : {}),
    });
  services = { hosting, nodeApi, now: Date.now } as Partial<Services> as Services;
}, 30_000);

afterAll(async () => {
  await emulator?.close();
});

async function nodeNamed(name: string): Promise<HostedNode> {
  const n = (await services.hosting.listNodes()).find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name}`);
  return n;
}

const ctxOf = (node: HostedNode) => ({
  args: {},
  actor: { platform: 'shell' as const, userId: 'local' },
  place: { platform: 'shell' as const, channelId: 'test' },
  node,
  services,
  secrets: {},
});

describe('needs-capability: commands only later images run', () => {
  it('refuses on a node of the older image, naming the image it needs and offering the upgrade', async () => {
    const alice = await nodeNamed('alice');
    const refusal = await needsCapability(ctxOf(alice), 'ifa', { command: 'asset issue-ifa' });
    expect(refusal?.reason).toContain('`asset issue-ifa` needs an RLN image with inflatable (IFA) assets (RLN bfeb557 or later)');
    expect(refusal?.reason).toContain(`alice runs ${String(alice.imageVersion)} without it`);
    expect(refusal?.reason).toContain('The latest image, v0.2.1, has it.');
    expect(refusal?.next).toBe(
      'Upgrade it with `/rln node upgrade alice` (it comes back locked: unlock it after), then run `asset issue-ifa` again.',
    );
    // The same, thrown inside a handler.
    await expect(requireCapability(ctxOf(alice), 'swapstring', { command: 'swap decode' })).rejects.toMatchObject({
      code: 'wrong_state',
      message: expect.stringContaining('decoding a swap string (RLN 8694898 or later)'),
    });
  });

  it('asks the node itself when no image says it: a 404 on the endpoint means the older image', async () => {
    withImage = false;
    try {
      const from = endpointsAsked.length;
      const refusal = await needsCapability(ctxOf(await nodeNamed('bob')), 'outofband', { command: 'asset consignment' });
      expect(refusal?.next).toContain('`/rln node upgrade bob`');
      expect(endpointsAsked.slice(from)).toEqual(['getconsignment']);
    } finally {
      withImage = true;
    }
  });

  it('lets the command run on a node of the latest image', async () => {
    await services.hosting.createNode({ name: 'dave', network: 'regtest' });
    const dave = await waitFor(async () => ((await nodeNamed('dave')).status === 'RUNNING' ? nodeNamed('dave') : undefined), {
      timeout: 2_000,
      what: 'dave RUNNING',
    });
    expect(dave.imageVersion).toBe('v0.2.1');
    for (const cap of ['ifa', 'swapstring', 'outofband', 'send'] as const) {
      expect(await needsCapability(ctxOf(dave), cap, { command: 'x' })).toBeUndefined();
    }
  });
});
