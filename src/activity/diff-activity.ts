/**
 * diffActivity(previous, snapshot) → what changed on a node since the last poll, and the
 * state to keep for the next one. Pure: no clock, no I/O, so it is tested as a table.
 *
 * - The first poll of a node (no previous state) only records: restarts of the bot and new
 *   watches never re-announce history. A node found locked then is told, though: it cannot pay
 *   until someone unlocks it, whenever that began.
 * - A list the node could not give this time (locked, unreachable) is carried over from the
 *   previous state, so a payment is not "new" again when the node answers after a gap.
 * - Liquidity alerts are told once per crossing: a band changes only when the share passes the
 *   threshold, and changes back only once it is `hysteresis` past it the other way.
 */
import {
  DEFAULT_LIQUIDITY,
  type ActivityBands,
  type ActivityEvent,
  type ActivitySnapshot,
  type ActivityState,
  type ChannelState,
  type FloorBand,
  type LiquidityThresholds,
  type ShareBand,
} from './types.js';

const byKey = <T>(items: T[] | undefined, key: (t: T) => string): Map<string, T> => new Map((items ?? []).map((t) => [key(t), t]));

/** A channel's local share of its balance (0–1), or undefined for an empty channel. */
export function localShare(c: ChannelState): number | undefined {
  const local = Number(c.localMsat);
  const total = local + Number(c.remoteMsat);
  return total > 0 ? local / total : undefined;
}

function shareBand(previous: ShareBand, share: number, t: LiquidityThresholds): ShareBand {
  switch (previous) {
    case 'low':
      if (share > t.highShare) return 'high';
      return share >= t.lowShare + t.hysteresis ? 'ok' : 'low';
    case 'high':
      if (share < t.lowShare) return 'low';
      return share <= t.highShare - t.hysteresis ? 'ok' : 'high';
    default:
      if (share < t.lowShare) return 'low';
      if (share > t.highShare) return 'high';
      return 'ok';
  }
}

function floorBand(previous: FloorBand, totalSat: number, floorSat: number, t: LiquidityThresholds): FloorBand {
  if (previous === 'low') return totalSat >= floorSat * (1 + t.hysteresis) ? 'ok' : 'low';
  return totalSat < floorSat ? 'low' : 'ok';
}

const sumSat = (channels: ChannelState[], side: 'localMsat' | 'remoteMsat') =>
  Math.floor(channels.filter((c) => c.status === 'Opened').reduce((s, c) => s + Number(c[side]), 0) / 1000);

/** Where each band stands for this snapshot, starting from `previous` (all `ok` for a first poll). */
function nextBands(previous: ActivityBands | undefined, channels: ChannelState[], t: LiquidityThresholds): ActivityBands {
  const bands: ActivityBands = { channels: {}, inbound: previous?.inbound ?? 'ok', outbound: previous?.outbound ?? 'ok' };
  for (const c of channels) {
    const share = c.usable ? localShare(c) : undefined;
    const before = previous?.channels[c.id] ?? 'ok';
    bands.channels[c.id] = share === undefined ? before : shareBand(before, share, t);
  }
  if (t.inboundFloorSat !== undefined) bands.inbound = floorBand(bands.inbound, sumSat(channels, 'remoteMsat'), t.inboundFloorSat, t);
  if (t.outboundFloorSat !== undefined) bands.outbound = floorBand(bands.outbound, sumSat(channels, 'localMsat'), t.outboundFloorSat, t);
  return bands;
}

/**
 * Fills what the node could not tell this time with what it told before: its lists, and its
 * lock state while it is unreachable (so that "locked" after a gap is still news).
 */
function carryOver(previous: ActivitySnapshot | undefined, next: ActivitySnapshot): ActivitySnapshot {
  if (!previous) return next;
  return {
    ...next,
    lock: next.lock === 'unreachable' ? previous.lock : next.lock,
    channels: next.channels ?? previous.channels,
    payments: next.payments ?? previous.payments,
    transfers: next.transfers ?? previous.transfers,
    deposits: next.deposits ?? previous.deposits,
    utxos: next.utxos ?? previous.utxos,
    peers: next.peers ?? previous.peers,
    infra: next.infra ?? previous.infra,
    backup: next.backup ?? previous.backup,
  };
}

function channelEvents(before: ChannelState[] | undefined, after: ChannelState[] | undefined): ActivityEvent[] {
  if (!before || !after) return [];
  const events: ActivityEvent[] = [];
  const was = byKey(before, (c) => c.id);
  const now = byKey(after, (c) => c.id);
  for (const c of after) {
    const old = was.get(c.id);
    if (!old) events.push({ kind: 'channels', type: 'channel_opened', channel: c });
    if (c.usable && !old?.usable) events.push({ kind: 'channels', type: 'channel_usable', channel: c });
  }
  for (const c of before) if (!now.has(c.id)) events.push({ kind: 'channels', type: 'channel_closed', channel: c });
  return events;
}

function paymentEvents(before: ActivitySnapshot['payments'], after: ActivitySnapshot['payments']): ActivityEvent[] {
  if (!before || !after) return [];
  const was = byKey(before, (p) => `${p.hash}:${p.inbound}`);
  const events: ActivityEvent[] = [];
  for (const p of after) {
    const old = was.get(`${p.hash}:${p.inbound}`);
    if (old?.status === p.status) continue;
    if (p.status === 'Succeeded') events.push({ kind: 'payments', type: p.inbound ? 'payment_received' : 'payment_sent', payment: p });
    else if (p.status === 'Failed' && !p.inbound) events.push({ kind: 'payments', type: 'payment_failed', payment: p });
  }
  return events;
}

function transferEvents(before: ActivitySnapshot['transfers'], after: ActivitySnapshot['transfers']): ActivityEvent[] {
  if (!before || !after) return [];
  const was = byKey(before, (t) => t.key);
  const events: ActivityEvent[] = [];
  for (const t of after) {
    const old = was.get(t.key);
    if (old?.status === t.status || t.kind === 'Issuance') continue;
    if (t.status === 'Settled') events.push({ kind: 'transfers', type: 'transfer_settled', transfer: t });
    else if (t.status === 'Failed') events.push({ kind: 'transfers', type: 'transfer_failed', transfer: t });
  }
  return events;
}

function depositEvents(before: ActivitySnapshot['deposits'], after: ActivitySnapshot['deposits']): ActivityEvent[] {
  if (!before || !after) return [];
  const was = byKey(before, (d) => d.txid);
  return after
    .filter((d) => d.confirmed && !was.get(d.txid)?.confirmed && Number(d.receivedSat) > 0)
    .map((deposit) => ({ kind: 'deposits', type: 'deposit_confirmed', deposit }) as const);
}

function liquidityEvents(before: ActivityBands, after: ActivityBands, channels: ChannelState[], t: LiquidityThresholds): ActivityEvent[] {
  const events: ActivityEvent[] = [];
  for (const c of channels) {
    const band = after.channels[c.id];
    const share = localShare(c);
    // A new channel starts at `ok`: telling that it opened lopsided is the channel alert's job.
    if (c.id in before.channels && band !== before.channels[c.id] && share !== undefined) {
      events.push({ kind: 'liquidity', type: 'channel_share', channel: c, band, share });
    }
  }
  const floors = [
    ['inbound', t.inboundFloorSat, 'remoteMsat'],
    ['outbound', t.outboundFloorSat, 'localMsat'],
  ] as const;
  for (const [side, floorSat, field] of floors) {
    if (floorSat === undefined || after[side] === before[side]) continue;
    events.push({
      kind: 'liquidity',
      type: `${side}_${after[side] === 'low' ? 'low' : 'recovered'}`,
      totalSat: sumSat(channels, field),
      floorSat,
    });
  }
  return events;
}

/** `before` is the last lock state the node reported (carried over while it was unreachable). */
function lockEvents(before: ActivitySnapshot, after: ActivitySnapshot): ActivityEvent[] {
  if (after.lock === 'locked' && before.lock === 'unlocked') return [{ kind: 'lock', type: 'node_locked' }];
  if (after.lock === 'unlocked' && before.lock === 'locked') return [{ kind: 'lock', type: 'node_unlocked' }];
  return [];
}

export function diffActivity(
  previous: ActivityState | undefined,
  polled: ActivitySnapshot,
  thresholds: LiquidityThresholds = DEFAULT_LIQUIDITY,
): { events: ActivityEvent[]; state: ActivityState } {
  const snapshot = carryOver(previous?.snapshot, polled);
  const channels = snapshot.channels ?? [];
  const bands = nextBands(previous?.bands, channels, thresholds);
  const state = { snapshot, bands };
  // A first poll records what already was, except a lock: a node found locked when its watch starts is told (P49).
  if (!previous) return { events: polled.lock === 'locked' ? [{ kind: 'lock', type: 'node_found_locked' }] : [], state };
  const before = previous.snapshot;
  const events = [
    ...lockEvents(before, polled),
    ...channelEvents(before.channels, polled.channels),
    ...paymentEvents(before.payments, polled.payments),
    ...transferEvents(before.transfers, polled.transfers),
    ...depositEvents(before.deposits, polled.deposits),
    ...(polled.channels ? liquidityEvents(previous.bands, bands, channels, thresholds) : []),
  ];
  return { events, state };
}
