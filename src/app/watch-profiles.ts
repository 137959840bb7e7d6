/**
 * What the activity poller needs of the watches and the audit trail for the watch kinds: a node's
 * profile (the kinds its watches hear, the thresholds: the watch's own, else the account's
 * settings) and the facts of the `backup` kind (the last backup this bot made, the node's upgrades).
 */
import type { Config } from '../config.js';
import type { AuditLog } from '../access/index.js';
import type { HostedNode } from '../hosting/index.js';
import type { WatchService } from '../notify/index.js';
import {
  ACTIVITY_KINDS,
  DEFAULT_WATCH_THRESHOLDS,
  WATCH_THRESHOLD_ARGS,
  mergeThresholds,
  type NodeFacts,
  type OwnThresholds,
  type WatchProfile,
  type WatchThresholds,
} from '../activity/index.js';

export function accountThresholds(config: Config): WatchThresholds {
  return {
    ...DEFAULT_WATCH_THRESHOLDS,
    liquidityLow: config.REPORT_LOW_SHARE,
    stuckAfterMin: config.WATCH_STUCK_AFTER_MIN,
    expiryWithinMin: config.WATCH_EXPIRY_WITHIN_MIN,
    utxosBelow: config.WATCH_UTXOS_BELOW,
    peerGoneMin: config.WATCH_PEER_GONE_MIN,
    livenessAfter: config.WATCH_LIVENESS_AFTER,
    backupDays: config.WATCH_BACKUP_DAYS,
    indexerUrl: config.WATCH_INDEXER_URL,
    proxyEndpoint: config.WATCH_PROXY_ENDPOINT,
    slowEvery: config.WATCH_SLOW_EVERY,
  };
}

/** A watch's stored `key=value`s as thresholds (unknown keys and wrong types are left out). */
function ownOf(stored: Record<string, number | string>): OwnThresholds {
  const own: Record<string, number | string> = {};
  for (const [arg, key] of Object.entries(WATCH_THRESHOLD_ARGS)) {
    const v = stored[arg];
    if (typeof v === 'number' || (typeof v === 'string' && (key === 'indexerUrl' || key === 'proxyEndpoint'))) own[key] = v;
  }
  return own;
}

export function watchProfiles(watches: WatchService, defaults: WatchThresholds): (node: HostedNode) => Promise<WatchProfile> {
  return async (node) => {
    const list = await watches.activityWatches(node.nodeId);
    const kinds = new Set(list.flatMap((w) => w.kinds).filter((k) => (ACTIVITY_KINDS as readonly string[]).includes(k)));
    return {
      kinds: kinds as WatchProfile['kinds'],
      thresholds: mergeThresholds(
        defaults,
        list.map((w) => ownOf(w.thresholds)),
      ),
    };
  };
}

const time = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : undefined;
};

/** The backup kind's facts: when the node was created and last upgraded (the service's builds), its last backup (the audit trail). */
export function backupFacts(audit: AuditLog): (node: HostedNode) => Promise<NodeFacts> {
  return async (node) => {
    const builds = (node.builds ?? []) as Array<{ timestamp?: string; action?: unknown; buildStatus?: string }>;
    const upgrades = builds
      // A failed upgrade (the service says FAILURE) left the node on its image: its backups still restore.
      .filter((b) => b.action === 'UPGRADE' && b.buildStatus !== 'FAILURE' && b.buildStatus !== 'FAILED')
      .map((b) => time(b.timestamp))
      .filter((t): t is number => t !== undefined);
    const createdAt = time((node as { createdAt?: unknown }).createdAt) ?? time(builds[0]?.timestamp);
    const [last] = await audit.query({ node: node.nodeId, action: 'node backup', outcome: 'ok', limit: 1 });
    return {
      ...(createdAt !== undefined ? { createdAt } : {}),
      ...(upgrades.length ? { lastUpgradeAt: Math.max(...upgrades) } : {}),
      ...(last ? { lastBackupAt: last.at.getTime() } : {}),
    };
  };
}
