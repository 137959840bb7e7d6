/** The arguments of `watch …` and how a watch is told back: its target, kinds, thresholds and statuses. */
import { z } from 'zod';
import { UserError } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import { findNode, type HostedNode } from '../../src/hosting/index.js';
import { ALL_NODES, type Watch } from '../../src/notify/index.js';
import { ACTIVITY_KINDS } from '../../src/activity/index.js';

export const target = () => z.string().trim().min(1).describe('Node name or id, or all');
export const KNOWN_STATUSES = ['RUNNING', 'STARTING', 'PAUSED', 'FAILED', 'IN_PROGRESS'];
/** What a watch may hear: the service's status changes, and what the activity poller sees. */
export const WATCH_KINDS: string[] = ['status', ...ACTIVITY_KINDS];

/** A watch's own thresholds (docs/watches.md); unset ones are the account's settings. */
export const thresholdArgs = {
  liquidity_low: z.coerce
    .number()
    .gt(0)
    .lt(1)
    .optional()
    .describe('liquidity: a channel below this local share is low, 0–1 (default REPORT_LOW_SHARE)'),
  stuck_after: z.coerce
    .number()
    .min(0)
    .max(43_200)
    .optional()
    .describe('transfers: minutes a transfer may wait before it is stuck (default WATCH_STUCK_AFTER_MIN)'),
  expiry_within: z.coerce
    .number()
    .min(0)
    .max(43_200)
    .optional()
    .describe('transfers: minutes before its expiry a waiting transfer is told (default WATCH_EXPIRY_WITHIN_MIN)'),
  utxos_below: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('utxos: fewer free colourable UTXOs than this is low (default WATCH_UTXOS_BELOW)'),
  peer_gone_after: z.coerce
    .number()
    .min(0)
    .max(43_200)
    .optional()
    .describe('peers: minutes a channel peer may stay disconnected (default WATCH_PEER_GONE_MIN)'),
  liveness_after: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('liveness: failed polls in a row before the API counts as down (default WATCH_LIVENESS_AFTER)'),
  backup_days: z.coerce
    .number()
    .min(1)
    .max(3650)
    .optional()
    .describe('backup: days without a backup before it is told (default WATCH_BACKUP_DAYS)'),
  indexer_url: z.string().trim().min(3).max(300).optional().describe('infra: the indexer to check (default WATCH_INDEXER_URL)'),
  proxy_endpoint: z.string().trim().min(3).max(300).optional().describe('infra: the RGB proxy to check (default WATCH_PROXY_ENDPOINT)'),
};
export type ThresholdArgs = { [K in keyof typeof thresholdArgs]?: number | string };

export function ownThresholds(args: ThresholdArgs): Record<string, number | string> {
  return Object.fromEntries(
    Object.keys(thresholdArgs).flatMap((k) => (args[k as keyof ThresholdArgs] === undefined ? [] : [[k, args[k as keyof ThresholdArgs]!]])),
  );
}

export const describeThresholds = (t: Record<string, number | string> | undefined): string =>
  t && Object.keys(t).length
    ? ` [${Object.entries(t)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}]`
    : '';

/** A list as typed, split at commas and spaces, in the case its names are known in. */
function namesIn(s: string, upper: boolean): string[] {
  return s
    .split(/[,\s]+/)
    .map((x) => (upper ? x.trim().toUpperCase() : x.trim().toLowerCase()))
    .filter(Boolean);
}

/** Refuses the names that are none of `known`, saying which and what may be given instead. */
function refuseUnknown(list: string[], known: string[], what: string, next: string): void {
  const unknown = list.filter((x) => !known.includes(x));
  if (unknown.length) throw new UserError('invalid_arguments', `Unknown ${what} ${unknown.join(', ')}.`, next);
}

export function parseKinds(s: string | undefined): string[] | undefined {
  if (!s) return undefined;
  const list = namesIn(s, false);
  if (list.includes('all')) return WATCH_KINDS;
  refuseUnknown(list, WATCH_KINDS, 'kind', `Use one or more of ${WATCH_KINDS.join(', ')} (or all), e.g. kinds=status,payments,channels.`);
  return list.length ? list : undefined;
}

export const formatMsat = (msat: number): string =>
  msat % 1000 === 0 ? `${(msat / 1000).toLocaleString('en-US')} sats` : `${msat.toLocaleString('en-US')} msat`;

export async function resolveTarget(ctx: CommandContext<unknown>, value: string): Promise<{ target: string; node?: HostedNode }> {
  if (value.toLowerCase() === ALL_NODES) return { target: ALL_NODES };
  const node = findNode(await ctx.services.hosting.listNodes(), value);
  if (!node) {
    throw new UserError(
      'unknown_node',
      `There is no node named ${JSON.stringify(value)}.`,
      'Run `/rln node list` to see the names, or use `all`.',
    );
  }
  return { target: node.nodeId, node };
}

/** The watch's escalation: its delay and its own PagerDuty key (only its last 4 characters shown). */
export function escalationOf(w: Watch): string {
  const after = w.escalateAfterMin !== undefined ? `after ${w.escalateAfterMin} min` : 'after the default delay';
  return w.pagerdutyKey ? `${after}, PagerDuty key …${w.pagerdutyKey.slice(-4)}` : after;
}

export function describeWatch(w: Watch): string {
  return w.target === ALL_NODES ? 'all nodes' : (w.targetName ?? w.target);
}

export function parseStatuses(s: string | undefined): string[] | undefined {
  if (!s) return undefined;
  const list = namesIn(s, true);
  refuseUnknown(list, KNOWN_STATUSES, 'status', `Use one or more of ${KNOWN_STATUSES.join(', ')}, e.g. status=FAILED,PAUSED.`);
  return list.length ? list : undefined;
}
