/**
 * The upgrade follower: when a node finishes an upgrade (the service's status events: IN_PROGRESS, then
 * RUNNING), it reads the node's new image from the service and its lock state from its node API, and
 * tells the channels watching it "alice upgraded to v0.2.1 and is LOCKED", with an Unlock button (the
 * service leaves every node locked after an upgrade). Nodes that finish within `batchMs` of each other
 * (the service upgrading every node of an account when an image is released) are told in one go, so
 * that a channel gets one message listing every locked node, each with its own Unlock button.
 *
 * An upgrade is told once: its dedupe key names the node and the upgrade's build (or the image), so a
 * redelivered event or another replica's follower adds nothing. What the follower saw is kept in memory:
 * a node whose IN_PROGRESS this process did not see counts as upgraded only when its last build is a
 * recent, successful upgrade.
 */
import type { HostedNode } from '../hosting/index.js';
import { createCallScheduler, walletStateOf, type CallScheduler } from '../node-api/index.js';
import { msg, shortId, type Message } from '../vocabulary/index.js';
import type { Logger } from '../log.js';

/** What the follower queues for a node (an ActivityItem of the notifier, routed to status and lock watches). */
export interface UpgradeItem {
  dedupeKey: string;
  kind: 'status';
  kinds: string[];
  type: 'node_upgraded';
  message: Message;
}

export interface UpgradeFollowerOptions {
  getNode(nodeId: string): Promise<HostedNode>;
  /**
   * The account's nodes, with their builds (the service's list): read once for a batch of more
   * than 8 nodes instead of each one (an upgrade wave of 2,000 nodes is one call, not 2,000).
   */
  listNodes?(): Promise<HostedNode[]>;
  /**
   * The process's scheduler of node work (call-scheduler.ts): each node of a batch is a piece of
   * it, bounded with the rest and given a deadline. Default: one of its own, 8 at once.
   */
  calls?: Pick<CallScheduler, 'map'>;
  /** Whether the node's wallet answers locked (its node API's nodeinfo). */
  nodeinfo(node: HostedNode): Promise<unknown>;
  /** Queues every node's item of one batch together (one transaction: one message per channel). */
  publish(entries: Array<{ node: HostedNode; items: UpgradeItem[] }>): Promise<void>;
  now(): number;
  logger: Logger;
  /** How long to wait for more nodes to finish, from the first one (UPGRADE_BATCH_MS). Default 3000. */
  batchMs?: number;
}

export interface UpgradeFollower {
  /** A status event of a node (routed to some watch). */
  statusSeen(nodeId: string, status: string | undefined): void;
  /**
   * Whether an upgrade of this node explains a lock seen now (the lock alert would tell it twice): one seen
   * IN_PROGRESS, told lately, or back RUNNING and not yet read whose last build is a recent upgrade. A node
   * merely back RUNNING (a restart, a start) explains nothing: its lock alert is the only one it gets.
   */
  explainsLock(node: HostedNode): boolean;
  /** Tells what is waiting now (tests, shutdown). */
  flush(): Promise<void>;
  stop(): void;
}

/** How recent a successful upgrade build must be to count without its IN_PROGRESS seen. */
const RECENT_BUILD_MS = 3_600_000;
/** How long after an upgrade a lock is its doing. */
const EXPLAINS_MS = 600_000;
/** A batch of more nodes than this reads the account's list (and a scheduler of its own runs this many at once). */
const AT_ONCE = 8;

/** The image version the service gives (imageVersion, else the last build's), else the RLN commit. */
export function versionOf(node: HostedNode): string | undefined {
  const n = node as HostedNode & Record<string, unknown>;
  if (typeof n.imageVersion === 'string' && n.imageVersion) return n.imageVersion;
  for (const b of [...(node.builds ?? [])].reverse()) {
    const v = (b as Record<string, unknown>).imageVersion;
    if (typeof v === 'string' && v) return v;
  }
  return typeof n.rln_commit_id === 'string' && n.rln_commit_id ? `RLN ${n.rln_commit_id.slice(0, 7)}` : undefined;
}

type Build = NonNullable<HostedNode['builds']>[number] & Record<string, unknown>;

function lastBuild(node: HostedNode): Build | undefined {
  return node.builds?.at(-1);
}

const isUpgradeBuild = (b: Build | undefined) => typeof b?.action === 'string' && /upgrade/i.test(b.action);

/** Whether the node's last build is a successful upgrade of the last hour (one whose IN_PROGRESS may have been missed). */
function recentUpgrade(node: HostedNode, now: number): boolean {
  const build = lastBuild(node);
  const ts = typeof build?.timestamp === 'string' ? Date.parse(build.timestamp) : NaN;
  return isUpgradeBuild(build) && build?.buildStatus !== 'FAILURE' && now - ts < RECENT_BUILD_MS;
}

/** The message for one upgraded node: locked (with its Unlock button), or how it answered. */
export function upgradedMessage(node: HostedNode, state: 'locked' | 'unlocked' | 'uninitialised' | 'unreachable'): Message {
  const n = node.name;
  const version = versionOf(node) ?? 'the latest image';
  const backups = 'Backups taken before this upgrade cannot be restored on it: take a new backup after unlocking.';
  if (state === 'locked') {
    return {
      header: `${n} upgraded to ${version} and is LOCKED`,
      tone: 'danger',
      summary: `${n} upgraded to ${version} and is LOCKED: it cannot pay or be paid until it is unlocked`,
      blocks: [
        msg.text([
          `${n} cannot pay or be paid until someone unlocks it. `,
          { bold: `Unlock ${n}` },
          ' opens a private dialog in its new node API: its password, and what that image needs to follow the chain.',
        ]),
        msg.context([backups, ' ', { code: node.nodeId }]),
      ],
      buttons: [{ label: `Unlock ${n}`, style: 'primary', command: 'node unlock', args: { node: node.nodeId } }],
    };
  }
  const how =
    state === 'unlocked'
      ? 'It answers unlocked.'
      : state === 'uninitialised'
        ? `It has no wallet yet: \`node init ${n}\`.`
        : `Its node API does not answer yet: see \`node info ${n}\`.`;
  return {
    header: `${n} upgraded to ${version}`,
    tone: state === 'unlocked' ? 'success' : 'warning',
    summary: `${n} upgraded to ${version}. ${how}`,
    blocks: [msg.text(how), msg.context([backups, ' ', { code: node.nodeId }])],
  };
}

export function createUpgradeFollower(o: UpgradeFollowerOptions): UpgradeFollower {
  const batchMs = Math.max(0, o.batchMs ?? 3_000);
  const calls = o.calls ?? createCallScheduler({ maxConcurrency: AT_ONCE });
  /** Nodes seen IN_PROGRESS (upgrading), and when. */
  const upgrading = new Map<string, number>();
  /** Nodes whose upgrade was told, and when. */
  const told = new Map<string, number>();
  const pending = new Set<string>();
  /** The upgrades told by this process (their dedupe keys): a later restart of the node is not one. */
  const announced = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function one(nodeId: string, listed?: HostedNode): Promise<{ node: HostedNode; items: UpgradeItem[] } | undefined> {
    const sawProgress = upgrading.delete(nodeId);
    const node = listed ?? (await o.getNode(nodeId));
    const build = lastBuild(node);
    const recent = recentUpgrade(node, o.now());
    // A build of another kind after the IN_PROGRESS (the service says what it did) is not an upgrade.
    if (!(sawProgress && (!build?.action || isUpgradeBuild(build))) && !recent) return undefined;
    if (node.status !== 'RUNNING') return undefined;
    let state: 'locked' | 'unlocked' | 'uninitialised' | 'unreachable';
    try {
      await o.nodeinfo(node);
      state = 'unlocked';
    } catch (e) {
      state = walletStateOf(e) ?? 'unreachable';
    }
    const which = [build?.id, build?.buildNumber, versionOf(node)].find((v) => typeof v === 'string' || typeof v === 'number') ?? 'latest';
    const dedupeKey = `upgrade:${nodeId}:${String(which)}`;
    if (announced.has(dedupeKey)) return undefined;
    if (announced.size > 10_000) announced.clear();
    announced.add(dedupeKey);
    told.set(nodeId, o.now());
    return {
      node,
      items: [
        {
          dedupeKey,
          kind: 'status',
          kinds: ['status', 'lock'],
          type: 'node_upgraded',
          message: upgradedMessage(node, state),
        },
      ],
    };
  }

  async function flushNow(): Promise<void> {
    const ids = [...pending];
    pending.clear();
    if (!ids.length) return;
    // More nodes than are read at once: the account's list once (it carries their builds), instead
    // of a call per node. A node not in it is read alone.
    let listed: Map<string, HostedNode> | undefined;
    if (ids.length > AT_ONCE && o.listNodes) {
      try {
        listed = new Map((await o.listNodes()).map((n) => [n.nodeId, n]));
      } catch (err) {
        o.logger.warn({ err }, 'upgrades: could not list the account nodes; reading each node instead');
      }
    }
    // Each node's reads (the service's, its node API's lock state) as a piece of node work.
    const read = await calls.map(
      ids,
      (id) => id,
      (id) => one(id, listed?.get(id)),
      {
        onError: (err, id) => {
          o.logger.warn({ err, nodeId: shortId(id, 12) }, 'upgrades: could not read an upgraded node; its lock alert still tells a lock');
          return undefined;
        },
      },
    );
    const entries = read.filter((e) => e !== undefined);
    entries.sort((a, b) => a.node.name.localeCompare(b.node.name));
    if (entries.length) await o.publish(entries);
  }

  const flush = () => (running = running.then(flushNow, flushNow).catch((err) => o.logger.warn({ err }, 'upgrades: telling failed')));

  return {
    statusSeen(nodeId, status) {
      if (status === 'IN_PROGRESS') upgrading.set(nodeId, o.now());
      if (status !== 'RUNNING') {
        // Anything else (a stop, a failure) ends what the upgrade explains: a later lock is its own.
        if (status !== 'IN_PROGRESS' && status !== undefined) {
          told.delete(nodeId);
          upgrading.delete(nodeId);
        }
        return;
      }
      pending.add(nodeId);
      timer ??= setTimeout(() => {
        timer = undefined;
        void flush();
      }, batchMs);
      timer.unref?.();
    },
    explainsLock(node) {
      const t = told.get(node.nodeId);
      if (upgrading.has(node.nodeId) || (t !== undefined && o.now() - t < EXPLAINS_MS)) return true;
      // Back RUNNING, not read yet: only a recent upgrade build explains it. Were any RUNNING enough, a
      // restart's lock seen after its RUNNING was routed would be dropped, and the follower (no upgrade)
      // would not tell it either: the lock would never be told.
      return pending.has(node.nodeId) && recentUpgrade(node, o.now());
    },
    async flush() {
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
