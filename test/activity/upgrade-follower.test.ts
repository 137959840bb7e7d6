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
