/**
 * One node API client per node (issue 29): every caller (reports, the dashboard, commands, the
 * poller) gets the same client for a node, so a report over 2,000 nodes does not build 2,000
 * transports; a node whose address or image changed gets a new one, and the kept client still
 * answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

describe('node API clients are kept per node', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { seed: 'demo', demoPassword: 'demo-password' } });
  });
  afterAll(() => h?.close());

  it('gives the same client for the same node, a new one when its address or image changes', async () => {
    const nodes = await h.app.services.hosting.listNodes();
    const alice = nodes.find((n) => n.name === 'alice')!;
    const bob = nodes.find((n) => n.name === 'bob')!;
    const nodeApi = (node: typeof alice) => h.app.services.nodeApi(node);
    const first = nodeApi(alice);
    // A fresh copy of the node, as the next listNodes gives it: the same client.
    expect(nodeApi({ ...alice })).toBe(first);
    expect(nodeApi(bob)).not.toBe(first);
    expect(nodeApi({ ...alice, invoke_url: `${alice.invoke_url}/` })).not.toBe(first);
    expect(nodeApi({ ...alice, rln_commit_id: 'f379330' })).not.toBe(first);
    // The kept client answers, call after call.
    const a = await first.nodeinfo();
    const b = await nodeApi({ ...alice }).nodeinfo();
    expect(b.pubkey).toBe(a.pubkey);
  });
});
