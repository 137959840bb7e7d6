/**
 * Which locks the upgrade follower takes as its own (the activity poller's lock alert is then left out,
 * create-app.ts): an upgrade's, never a plain restart's, whatever order the poll and the routed RUNNING come in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createUpgradeFollower, type UpgradeFollower } from '../../src/activity/upgrade-follower.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { silentLogger } from '../../src/log.js';

const NOW = Date.parse('2026-11-27T08:00:00Z');
const node = (builds: HostedNode['builds'] = []): HostedNode => ({
  nodeId: 'n1',
  name: 'alice',
  network: 'regtest',
  status: 'RUNNING',
  builds,
});
const upgradeBuild = (minutesAgo: number, buildStatus = 'SUCCESS') => ({
  buildNumber: 7,
  buildStatus,
  action: 'UPGRADE',
  timestamp: new Date(NOW - minutesAgo * 60_000).toISOString(),
});

let follower: UpgradeFollower | undefined;
afterEach(() => follower?.stop());

function make(): UpgradeFollower {
  follower = createUpgradeFollower({
    getNode: () => Promise.resolve(node()),
    nodeinfo: () => Promise.resolve({}),
    publish: () => Promise.resolve(),
    now: () => NOW,
    logger: silentLogger,
    // Long: the tests ask while the RUNNING is still waiting to be read.
    batchMs: 600_000,
  });
  return follower;
}

describe('upgrade follower: the locks it explains', () => {
  it('a restart (STARTING, then RUNNING) explains no lock, even before the follower has read the node', () => {
    const f = make();
    f.statusSeen('n1', 'STARTING');
    f.statusSeen('n1', 'RUNNING');
    expect(f.explainsLock(node())).toBe(false);
    // A node whose last build is an old upgrade, or a failed one, is not freshly upgraded either.
    expect(f.explainsLock(node([upgradeBuild(120)]))).toBe(false);
    expect(f.explainsLock(node([upgradeBuild(5, 'FAILURE')]))).toBe(false);
  });

  it('an upgrade seen IN_PROGRESS explains the lock, as does a recent upgrade build back RUNNING', () => {
    const f = make();
    expect(f.explainsLock(node())).toBe(false);
    f.statusSeen('n1', 'IN_PROGRESS');
    expect(f.explainsLock(node())).toBe(true);
    f.statusSeen('n1', 'RUNNING');
    expect(f.explainsLock(node())).toBe(true);
    f.stop();

    const g = make();
    g.statusSeen('n1', 'RUNNING');
    expect(g.explainsLock(node([upgradeBuild(5)]))).toBe(true);
  });
});

describe('upgrade follower: a wave of nodes', () => {
  it("reads the account's list once for a batch, and at most 8 nodes' lock states at once", async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `n${i}`);
    const hosted = (id: string): HostedNode => ({
      nodeId: id,
      name: `node-${id}`,
      network: 'regtest',
      status: 'RUNNING',
      builds: [upgradeBuild(2)],
    });
    let lists = 0;
    let gets = 0;
    let inflight = 0;
    let most = 0;
    const published: string[] = [];
    follower = createUpgradeFollower({
      getNode: async (id) => {
        gets++;
        return hosted(id);
      },
      listNodes: async () => {
        lists++;
        // One node of the batch is missing from the list: it is read alone.
        return ids.slice(1).map(hosted);
      },
      nodeinfo: async () => {
        most = Math.max(most, ++inflight);
        // Answered in a later turn of the event loop, as a node API is.
        await new Promise((r) => setImmediate(r));
        inflight--;
        throw Object.assign(new Error('wallet is locked'), { status: 403, body: { error: 'Wallet is locked' } });
      },
      publish: async (entries) => void published.push(...entries.map((e) => e.node.nodeId)),
      now: () => NOW,
      logger: silentLogger,
      batchMs: 600_000,
    });
    for (const id of ids) {
      follower.statusSeen(id, 'IN_PROGRESS');
      follower.statusSeen(id, 'RUNNING');
    }
    await follower.flush();
    expect(lists).toBe(1);
    expect(gets).toBe(1);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
    expect(published.sort()).toEqual([...ids].sort());
  });
});
