/** The watch kinds' conditions, pure: once per episode, a recovery when it ends, the thresholds merged, the backup kind. */
import { describe, expect, it } from 'vitest';
import { conditionsOf, diffConditions, emptyMemory } from '../../src/activity/watch-conditions.js';
import { watchStep } from '../../src/activity/watch-step.js';
import { DEFAULT_WATCH_THRESHOLDS, mergeThresholds, type WatchProfile } from '../../src/activity/watch-thresholds.js';
import type { ActivitySnapshot } from '../../src/activity/types.js';

const DAY = 24 * 3600_000;
const node = { nodeId: 'n1', name: 'alice' };
const profile = (kinds: string[], over: Partial<WatchProfile['thresholds']> = {}): WatchProfile => ({
  kinds: new Set(kinds) as WatchProfile['kinds'],
  thresholds: { ...DEFAULT_WATCH_THRESHOLDS, ...over },
});
const snap = (over: Partial<ActivitySnapshot> = {}): ActivitySnapshot => ({ takenAt: 0, lock: 'unlocked', ...over });

describe('watch conditions', () => {
  it('alerts once per episode and recovers once; a kind no longer heard ends silently', () => {
    const p = profile(['utxos']);
    let memory = emptyMemory();
    const step = (free: number, pr = p) => {
      const r = watchStep(node, memory, snap({ utxos: { free, colourable: free } }), 'unlocked', pr, 0);
      memory = r.memory;
      return r.events.map((e) => (e.type === 'condition' ? `${e.condition.key}:${e.recovered ? 'end' : 'begin'}` : e.type));
    };
    expect(step(0)).toEqual(['utxos_low:begin']);
    expect(step(1)).toEqual([]);
    expect(step(5)).toEqual(['utxos_low:end']);
    expect(step(5)).toEqual([]);
    expect(step(0)).toEqual(['utxos_low:begin']);
    expect(step(0, profile(['payments']))).toEqual([]);
  });

  it('liveness: alerts on the livenessAfter-th failed poll in a row, with when the failures began', () => {
    const p = profile(['liveness'], { livenessAfter: 3 });
    let memory = emptyMemory();
    const out: string[] = [];
    for (const [t, lock] of [
      [1000, 'unreachable'],
      [2000, 'unreachable'],
      [3000, 'unreachable'],
      [4000, 'unreachable'],
      [5000, 'unlocked'],
    ] as const) {
      const r = watchStep(node, memory, snap(), lock, p, t);
      memory = r.memory;
      for (const e of r.events) if (e.type === 'condition') out.push(`${t}:${e.recovered ? 'end' : e.condition.title}`);
    }
    expect(out).toEqual(['3000:the service says RUNNING, but its API has failed 3 times since 00:00 UTC', '5000:end']);
  });

  it('backup: none since the last upgrade, or none in backup_days', () => {
    const p = profile(['backup'], { backupDays: 7 });
    const at = (facts: ActivitySnapshot['backup'], now: number) =>
      conditionsOf(node, snap(), emptyMemory(), p, facts ?? {}, now).map((c) => c.key);
    expect(at({ createdAt: 0 }, 6 * DAY)).toEqual([]);
    expect(at({ createdAt: 0 }, 8 * DAY)).toEqual(['backup_old']);
    expect(at({ createdAt: 0, lastBackupAt: 5 * DAY }, 8 * DAY)).toEqual([]);
    expect(at({ createdAt: 0, lastBackupAt: 1 * DAY, lastUpgradeAt: 2 * DAY }, 3 * DAY)).toEqual(['backup_before_upgrade']);
    expect(at({ createdAt: 0, lastBackupAt: 3 * DAY, lastUpgradeAt: 2 * DAY }, 4 * DAY)).toEqual([]);
    // Not heard: nothing.
    expect(conditionsOf(node, snap(), emptyMemory(), profile(['utxos']), { createdAt: 0 }, 30 * DAY)).toEqual([]);
  });

  it('transfers: stuck after stuck_after minutes, or within expiry_within of its expiry; an issuance or a settled one never', () => {
    const p = profile(['transfers'], { stuckAfterMin: 60, expiryWithinMin: 30 });
    const t = (over: object) => ({
      key: 'a#1',
      assetId: 'rgb:abc',
      idx: 1,
      kind: 'ReceiveBlind',
      status: 'WaitingCounterparty',
      createdAt: 0,
      ...over,
    });
    const keys = (transfers: object[], now: number) =>
      conditionsOf(node, snap({ transfers: transfers as never }), emptyMemory(), p, {}, now).map((c) => c.title);
    expect(keys([t({})], 59 * 60_000)).toEqual([]);
    expect(keys([t({})], 61 * 60_000)[0]).toMatch(/^RGB transfer #1 stuck: WaitingCounterparty for 1h/);
    expect(keys([t({ expiresAt: 40 * 60_000 })], 20 * 60_000)[0]).toMatch(/expires in 20m/);
    expect(keys([t({ kind: 'Send', outOfBand: true })], 2 * 3600_000)[0]).toMatch(/out-of-band consignment waits for the acknowledgement/);
    expect(keys([t({ status: 'Settled' }), t({ kind: 'Issuance' })], 10 * 3600_000)).toEqual([]);
  });

  it('diffConditions keeps an open condition’s first `since`', () => {
    const c = { kind: 'utxos' as const, key: 'k', since: 1, title: '', facts: [], actions: [], recovered: '' };
    const { events, open } = diffConditions({ k: c }, [{ ...c, since: 9 }], new Set(['utxos']));
    expect(events).toEqual([]);
    expect(open.k.since).toBe(1);
  });

  it('several watches of one node: the most sensitive threshold of each, the first URL given', () => {
    const t = mergeThresholds(DEFAULT_WATCH_THRESHOLDS, [
      { utxosBelow: 5, stuckAfterMin: 90 },
      { utxosBelow: 3, stuckAfterMin: 30, indexerUrl: 'tcp://i:1' },
    ]);
    expect(t).toMatchObject({
      utxosBelow: 5,
      stuckAfterMin: 30,
      indexerUrl: 'tcp://i:1',
      peerGoneMin: DEFAULT_WATCH_THRESHOLDS.peerGoneMin,
    });
  });
});
