/**
 * The demo's faults that live in the hosting service's record of a node rather than in its node
 * API (node-api/faults.ts): the same on both node API generations, since the node is not asked.
 * `backup-old` makes the node's record 30 days old (created, and every build, 30 days earlier), so
 * a node this bot has not backed up in `backup_days` is told by a watch with `kinds=backup`; a
 * `node backup` made through the bot ends it.
 */
/** What of the service's record of a node these faults change (hosted-nodes.ts's NodeRecord). */
interface ServiceRecord {
  createdAt: string;
  builds: Array<{ timestamp?: unknown }>;
}

export const SERVICE_FAULTS = {
  'backup-old': 'the service says it was created 30 days ago: no backup by this bot in backup_days (7 by default)',
} as const;
export type ServiceFault = keyof typeof SERVICE_FAULTS;

const DAY = 24 * 3600_000;

export const isServiceFault = (f: string): f is ServiceFault => f in SERVICE_FAULTS;

/** Injects `fault` into the node's service record; returns what happened, in words. */
export function injectServiceFault(n: ServiceRecord, _fault: ServiceFault, now = Date.now()): string {
  // backup-old (the only one): the record ages, so the newest of its dates is 30 days ago.
  const newest = Math.max(Date.parse(n.createdAt), ...n.builds.map((b) => Date.parse(String(b.timestamp))).filter(Number.isFinite));
  const shift = Math.max(0, newest - (now - 30 * DAY));
  const older = (iso: string) => new Date(Date.parse(iso) - shift).toISOString();
  n.createdAt = older(n.createdAt);
  for (const b of n.builds) if (typeof b.timestamp === 'string') b.timestamp = older(b.timestamp);
  return `the service now says it was created on ${n.createdAt.slice(0, 10)}, 30 days ago, and not upgraded since`;
}
