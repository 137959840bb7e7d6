/**
 * The node activity side of the composition root: the upgrade follower (a node back from an upgrade
 * is told once, locked) and the poller of watched nodes' APIs, both publishing through the notifier.
 */
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createActivityStateRepo, type Db, type Leases } from '../store/index.js';
import type { HostingClient } from '../hosting/index.js';
import type { CallScheduler } from '../node-api/index.js';
import type { AuditLog } from '../access/index.js';
import type { Notifier } from '../notify/index.js';
import {
  createActivityPoller,
  activityItems,
  createUpgradeFollower,
  type ActivityPoller,
  type UpgradeFollower,
} from '../activity/index.js';
import { accountThresholds, backupFacts, watchProfiles } from './watch-profiles.js';
import type { ServiceWiring } from './service-wiring.js';

export function wireActivity(opts: {
  /** The process's scheduler of node work (the upgrade follower's reads go through it). */
  calls: CallScheduler;
  config: Config;
  db: Db;
  leases: Leases;
  replicaId: string;
  hosting: HostingClient;
  nodeApi: ServiceWiring['nodeApi'];
  notifier: Notifier;
  audit: AuditLog;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
}): { activity: ActivityPoller; upgradeFollower: UpgradeFollower } {
  const { config, db, leases, replicaId, hosting, nodeApi, notifier, metrics } = opts;
  const clock = opts.now;
  const upgradeFollower = createUpgradeFollower({
    getNode: (id) => hosting.getNode(id),
    listNodes: () => hosting.listNodes(),
    calls: opts.calls,
    nodeinfo: (node) => nodeApi(node).nodeinfo(),
    publish: async (entries) => {
      await notifier.ingestActivityBatch(entries.map((e) => ({ node: { nodeId: e.node.nodeId, nodeName: e.node.name }, items: e.items })));
    },
    now: clock,
    logger: opts.logger.child({ room: 'activity' }),
    batchMs: config.UPGRADE_BATCH_MS,
  });
  // Node activity: watched nodes' APIs polled every POLL_INTERVAL_S; what changed is queued through
  // the notifier's outbox (stored before the new state: see create-activity-poller.ts).
  const activity = createActivityPoller({
    listNodes: () => hosting.listNodes(),
    isWatched: (node) => notifier.watches.hearsActivity(node.nodeId),
    profile: watchProfiles(notifier.watches, accountThresholds(config)),
    facts: backupFacts(opts.audit),
    // One client per node, reused across polls (the service wiring keeps them).
    api: (node) => nodeApi(node),
    // Written together once a second: one commit instead of one per poll (activity-states.ts).
    states: createActivityStateRepo(db, {
      writeEveryMs: 1_000,
      onWriteError: (err, states) =>
        opts.logger.warn({ err, states }, 'activity: storing the polled states failed; trying again in a second'),
    }),
    // Replicas on one database split the nodes (a lease per node and interval); one process takes them all.
    claim: db.engine === 'postgres' ? (nodeId, until, now) => leases.claim(`activity:${nodeId}`, replicaId, until, now) : undefined,
    publish: async (node, events, context) => {
      // A node locked by its upgrade is told by the follower ("upgraded … and is LOCKED"), not twice.
      if (upgradeFollower.explainsLock(node)) events = events.filter((e) => !(e.kind === 'lock' && e.type !== 'node_unlocked'));
      if (!events.length) return;
      await notifier.ingestActivity(
        { nodeId: node.nodeId, nodeName: node.name },
        activityItems({ nodeId: node.nodeId, name: node.name }, events, context),
      );
    },
    now: clock,
    logger: opts.logger.child({ room: 'activity' }),
    metrics,
    intervalMs: config.POLL_INTERVAL_S * 1000,
    nodeTimeoutMs: Math.min(10_000, Math.max(1_000, config.POLL_INTERVAL_S * 1000)),
    maxConcurrency: config.POLL_MAX_CONCURRENCY,
    thresholds: {
      lowShare: config.REPORT_LOW_SHARE,
      highShare: config.REPORT_HIGH_SHARE,
      hysteresis: 0.05,
      inboundFloorSat: config.INBOUND_FLOOR_SAT,
      outboundFloorSat: config.OUTBOUND_FLOOR_SAT,
    },
  });
  return { activity, upgradeFollower };
}
