/**
 * The watch kinds that alert on a condition while it lasts (`transfers` stuck, `utxos` low, `infra`
 * unreachable, `liveness`, `peers` gone, `backup` missing): `conditionsOf` says which hold now,
 * `diffConditions` turns them into one alert when a condition begins and one recovery when it ends
 * (once per episode), against the conditions kept open in the node's state. Pure: the poller gives
 * the clock, the snapshot, what it remembers and the facts it was told.
 */
import { formatDuration, shortId } from '../vocabulary/index.js';
import type { ActivityEvent, ActivitySnapshot, Condition, TransferState, WatchMemory } from './types.js';
import type { WatchProfile } from './watch-thresholds.js';

/** What the bot knows of a node besides its API: its backups (the audit trail) and its images (the service). */
export interface NodeFacts {
  /** When the service says it was created, and last upgraded (the latest build after the first). */
  createdAt?: number;
  lastUpgradeAt?: number;
  /** The last backup the bot made of it (`node backup`, successful). */
  lastBackupAt?: number;
}

const MIN = 60_000;
const WAITING = new Set(['Initiated', 'WaitingCounterparty', 'WaitingSafeHeight', 'WaitingConfirmations', 'WaitingBroadcast']);

export const emptyMemory = (): WatchMemory => ({ open: {}, misses: 0, peerGoneSince: {} });

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function transferCondition(nodeId: string, t: TransferState, p: WatchProfile, now: number): Condition | undefined {
  if (!WAITING.has(t.status) || t.kind === 'Issuance' || t.createdAt === undefined) return undefined;
  const age = now - t.createdAt;
  const left = t.expiresAt !== undefined ? t.expiresAt - now : undefined;
  const stuck = age >= p.thresholds.stuckAfterMin * MIN;
  const expiring = left !== undefined && left <= p.thresholds.expiryWithinMin * MIN;
  if (!stuck && !expiring) return undefined;
  const ack = t.outOfBand && t.kind === 'Send' && t.status === 'WaitingCounterparty';
  const what = ack ? 'its out-of-band consignment waits for the acknowledgement' : `${t.status} for ${formatDuration(age)}`;
  const expiry = left === undefined ? undefined : left > 0 ? `expires in ${formatDuration(left)}` : 'expired';
  return {
    kind: 'transfers',
    key: `transfer_stuck:${t.key}`,
    since: t.createdAt,
    title: `RGB transfer #${t.idx} stuck: ${what}${expiry ? `, ${expiry}` : ''}`,
    facts: [
      { label: 'Transfer', value: `#${t.idx} (${t.kind})` },
      { label: 'Asset', value: shortId(t.assetId, 18) },
      { label: 'Status', value: t.status },
      { label: 'Waiting since', value: hhmm(t.createdAt) },
      ...(expiry ? [{ label: 'Expiry', value: expiry }] : []),
    ],
    actions: [
      { label: 'Refresh', command: 'asset refresh', style: 'primary' },
      { label: 'Fail it', command: 'asset fail', args: { batch_transfer_idx: String(t.idx) }, style: 'danger' },
    ],
    recovered: `RGB transfer #${t.idx} is no longer stuck (now ${t.status === 'Settled' ? 'settled' : 'moved on'})`,
  };
}

/** Which conditions hold on the node now, for the kinds its watches hear. */
export function conditionsOf(
  node: { nodeId: string; name: string },
  snap: ActivitySnapshot,
  memory: WatchMemory,
  profile: WatchProfile,
  facts: NodeFacts,
  now: number,
): Condition[] {
  const t = profile.thresholds;
  const hears = (k: Condition['kind']) => profile.kinds.has(k);
  const out: Condition[] = [];
  if (hears('liveness') && memory.misses >= t.livenessAfter && memory.missedSince !== undefined) {
    out.push({
      kind: 'liveness',
      key: 'api_down',
      since: memory.missedSince,
      title: `the service says RUNNING, but its API has failed ${memory.misses} times since ${hhmm(memory.missedSince)}`,
      facts: [
        { label: 'Service status', value: 'RUNNING' },
        { label: 'Failed polls in a row', value: String(memory.misses) },
        { label: 'Since', value: hhmm(memory.missedSince) },
      ],
      actions: [
        { label: 'Logs', command: 'node logs', style: 'secondary' },
        { label: 'Restart', command: 'node start', style: 'primary' },
      ],
      recovered: `its API answers again (it had failed since ${hhmm(memory.missedSince)})`,
    });
  }
  if (hears('transfers')) {
    for (const tr of snap.transfers ?? []) {
      const c = transferCondition(node.nodeId, tr, profile, now);
      if (c) out.push(c);
    }
  }
  if (hears('utxos') && snap.utxos && snap.utxos.free < t.utxosBelow) {
    out.push({
      kind: 'utxos',
      key: 'utxos_low',
      since: now,
      title: `${snap.utxos.free} free colourable UTXO${snap.utxos.free === 1 ? '' : 's'} (below ${t.utxosBelow}): it cannot receive RGB assets on new UTXOs`,
      facts: [
        { label: 'Free colourable', value: String(snap.utxos.free) },
        { label: 'All colourable', value: String(snap.utxos.colourable) },
        { label: 'Threshold', value: `below ${t.utxosBelow}` },
      ],
      actions: [{ label: 'Create UTXOs', command: 'wallet utxos', args: { num: String(Math.max(t.utxosBelow, 5)) }, style: 'primary' }],
      recovered: `free colourable UTXOs back to ${t.utxosBelow} or more`,
    });
  }
  if (hears('infra') && snap.infra) {
    for (const [which, check] of [
      ['indexer', snap.infra.indexer],
      ['proxy', snap.infra.proxy],
    ] as const) {
      if (!check?.error) continue;
      out.push({
        kind: 'infra',
        key: `${which}_down:${check.url}`,
        since: snap.infra.at,
        title: `its ${which === 'indexer' ? 'indexer' : 'RGB proxy'} does not answer`,
        facts: [
          { label: which === 'indexer' ? 'Indexer' : 'Proxy', value: check.url },
          { label: 'The node says', value: check.error.slice(0, 200) },
          { label: 'Checked at', value: hhmm(snap.infra.at) },
        ],
        actions: [
          which === 'indexer'
            ? { label: 'Check again', command: 'net check-indexer', args: { indexer_url: check.url }, style: 'primary' }
            : { label: 'Check again', command: 'net check-proxy', args: { proxy_endpoint: check.url }, style: 'primary' },
        ],
        recovered: `its ${which === 'indexer' ? 'indexer' : 'RGB proxy'} answers again (${check.url})`,
      });
    }
  }
  if (hears('peers') && snap.peers && snap.channels) {
    for (const [pubkey, since] of Object.entries(memory.peerGoneSince)) {
      if (now - since < t.peerGoneMin * MIN) continue;
      const channels = snap.channels.filter((c) => c.peerPubkey === pubkey).length;
      out.push({
        kind: 'peers',
        key: `peer_gone:${pubkey}`,
        since,
        title: `peer ${shortId(pubkey, 16)} disconnected for ${formatDuration(Math.max(now - since, MIN))}, with ${channels} channel${channels === 1 ? '' : 's'}`,
        facts: [
          { label: 'Peer', value: shortId(pubkey, 24) },
          { label: 'Channels with it', value: String(channels) },
          { label: 'Disconnected since', value: hhmm(since) },
        ],
        actions: [{ label: 'Peers', command: 'peer list', style: 'secondary' }],
        recovered: `peer ${shortId(pubkey, 16)} is connected again`,
      });
    }
  }
  if (hears('backup') && facts.createdAt !== undefined) {
    const last = facts.lastBackupAt;
    const reference = last ?? facts.createdAt;
    if (facts.lastUpgradeAt !== undefined && (last === undefined || last < facts.lastUpgradeAt)) {
      out.push({
        kind: 'backup',
        key: 'backup_before_upgrade',
        since: facts.lastUpgradeAt,
        title: `no backup since its upgrade of ${day(facts.lastUpgradeAt)}: older backups cannot be restored on the newer image`,
        facts: [
          { label: 'Upgraded', value: day(facts.lastUpgradeAt) },
          { label: 'Last backup', value: last ? day(last) : 'none made by this bot' },
        ],
        actions: [{ label: 'Back up', command: 'node backup', style: 'primary', args: { lock: 'yes' } }],
        recovered: 'backed up since its upgrade',
      });
    } else if (now - reference >= t.backupDays * 24 * 60 * MIN) {
      out.push({
        kind: 'backup',
        key: 'backup_old',
        since: reference + t.backupDays * 24 * 60 * MIN,
        title: `no backup in ${t.backupDays} days`,
        facts: [
          { label: 'Last backup', value: last ? day(last) : 'none made by this bot' },
          { label: 'Threshold', value: `${t.backupDays} days` },
        ],
        actions: [{ label: 'Back up', command: 'node backup', style: 'primary', args: { lock: 'yes' } }],
        recovered: 'backed up again',
      });
    }
  }
  return out;
}

/** Peers with a channel that are not connected now, and since when (kept across polls). */
export function peersGone(snap: ActivitySnapshot, before: Record<string, number>, now: number): Record<string, number> {
  if (!snap.peers || !snap.channels) return before;
  const connected = new Set(snap.peers);
  const gone: Record<string, number> = {};
  for (const c of snap.channels) {
    if (!connected.has(c.peerPubkey)) gone[c.peerPubkey] = before[c.peerPubkey] ?? now;
  }
  return gone;
}

/**
 * One alert for each condition that began, one recovery for each that ended; the ones still open
 * keep their first alert (and its `since`). Conditions of kinds no watch hears any more end
 * silently: nobody would hear their recovery.
 */
export function diffConditions(
  before: Record<string, Condition>,
  now: Condition[],
  kinds: WatchProfile['kinds'],
): { events: ActivityEvent[]; open: Record<string, Condition> } {
  const events: ActivityEvent[] = [];
  const open: Record<string, Condition> = {};
  for (const c of now) {
    const was = before[c.key];
    open[c.key] = was ? { ...c, since: was.since } : c;
    if (!was) events.push({ kind: c.kind, type: 'condition', condition: c, recovered: false });
  }
  for (const [key, c] of Object.entries(before)) {
    if (key in open || !kinds.has(c.kind)) continue;
    events.push({ kind: c.kind, type: 'condition', condition: c, recovered: true });
  }
  return { events, open };
}
