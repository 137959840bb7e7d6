import type { NodeStatus } from '../hosting/index.js';
import type { HostedNodes } from './hosted-nodes.js';
import type { NodeWorld } from './node-api/index.js';

/**
 * The demo's account: alice and bob RUNNING, carol PAUSED, all on an image older than the
 * latest, which speaks the node API of f379330 (the latest speaks 6887cbf), so that `node upgrade`
 * has something to do. With a password and the emulator's own NodeWorld, alice and bob are
 * initialised, unlocked and funded.
 */
export async function seedDemoNodes(hosted: HostedNodes, ownWorld: NodeWorld | undefined, demoPassword: string | undefined): Promise<void> {
  const seedNode = async (
    name: string,
    network: 'regtest' | 'testnet',
    status: NodeStatus,
    image: string,
    ready: boolean,
  ): Promise<void> => {
    const n = hosted.add(name, network, undefined, image);
    hosted.finishBuild(hosted.newBuild(n, 'CREATE', { imageVersion: image }), true);
    n.status = status;
    if (ready && demoPassword && ownWorld) {
      await ownWorld.seedReadyNode(n.nodeId, demoPassword);
      n.initialized = true;
    }
  };
  await seedNode('alice', 'regtest', 'RUNNING', previousVersion(hosted.latestImage), true);
  await seedNode('bob', 'regtest', 'RUNNING', previousVersion(hosted.latestImage), true);
  await seedNode('carol', 'testnet', 'PAUSED', previousVersion(hosted.latestImage), false);
}

/** v0.2.1 -> v0.2.0, v0.3.0 -> v0.2.9: an older image for a seeded node, so upgrade has work to do. */
function previousVersion(v: string): string {
  const m = /^(v?)(\d+)\.(\d+)\.(\d+)(.*)$/.exec(v);
  if (!m) return `${v}-old`;
  const [, pre, a, b, c] = m;
  if (Number(c) > 0) return `${pre}${a}.${b}.${Number(c) - 1}`;
  if (Number(b) > 0) return `${pre}${a}.${Number(b) - 1}.9`;
  return `${v}-old`;
}

/**
 * `count` nodes for an account at scale (`--seed-nodes N`): `node-0001`, ..., RUNNING on the latest
 * image, each initialised and unlocked in the emulator's own NodeWorld, as a user would leave them.
 */
export async function seedManyNodes(hosted: HostedNodes, ownWorld: NodeWorld | undefined, count: number, password: string): Promise<void> {
  const width = Math.max(4, String(count).length);
  for (let i = 1; i <= count; i++) {
    const n = hosted.add(`node-${String(i).padStart(width, '0')}`, 'regtest');
    hosted.finishBuild(hosted.newBuild(n, 'CREATE', { imageVersion: n.imageVersion }), true);
    n.status = 'RUNNING';
    if (ownWorld) {
      await ownWorld.seedReadyNode(n.nodeId, password);
      n.initialized = true;
    }
  }
}
