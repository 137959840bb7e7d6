import { describe, expect, it } from 'vitest';
import {
  diffActivity,
  DEFAULT_LIQUIDITY,
  type ActivitySnapshot,
  type ActivityState,
  type ChannelState,
  type PaymentState,
} from '../../src/activity/index.js';

const channel = (id: string, over: Partial<ChannelState> = {}): ChannelState => ({
  id,
  peerPubkey: `02${id.padEnd(64, '0')}`,
  status: 'Opened',
  usable: true,
  capacitySat: '100000',
  localMsat: '50000000',
  remoteMsat: '50000000',
  ...over,
});
const payment = (hash: string, over: Partial<PaymentState> = {}): PaymentState => ({
  hash,
  inbound: true,
  status: 'Succeeded',
  amtMsat: '3000000',
  payeePubkey: '03ab',
  ...over,
});
const snap = (over: Partial<ActivitySnapshot> = {}): ActivitySnapshot => ({
  takenAt: 0,
  lock: 'unlocked',
  channels: [],
  payments: [],
  transfers: [],
  deposits: [],
  ...over,
});
/** Share as local msat of a 100,000,000 msat channel. */
const share = (id: string, localShare: number) =>
  channel(id, { localMsat: String(localShare * 100_000_000), remoteMsat: String((1 - localShare) * 100_000_000) });

/** Runs polls in order and returns the event types of each step. */
function run(polls: ActivitySnapshot[], thresholds = DEFAULT_LIQUIDITY): string[][] {
  let state: ActivityState | undefined;
  return polls.map((p) => {
    const r = diffActivity(state, p, thresholds);
    state = r.state;
    return r.events.map((e) => ('band' in e ? `${e.type}:${e.band}` : e.type));
  });
}

describe('diffActivity', () => {
  it.each<[string, ActivitySnapshot[], string[][]]>([
    ['records the first poll without announcing what already was', [snap({ channels: [channel('c1')], payments: [payment('p1')] })], [[]]],
    // P49: a node locked when its watch begins cannot pay: that is told, whenever it began.
    ['tells a node found locked at its first poll', [snap({ lock: 'locked' }), snap({ lock: 'locked' })], [['node_found_locked'], []]],
    [
      'tells a channel that appeared, then when it became usable',
      [snap(), snap({ channels: [channel('c1', { status: 'Opening', usable: false })] }), snap({ channels: [channel('c1')] })],
      [[], ['channel_opened'], ['channel_usable']],
    ],
    [
      'tells a channel that opened usable in one poll as opened and usable',
      [snap(), snap({ channels: [channel('c1')] })],
      [[], ['channel_opened', 'channel_usable']],
    ],
    [
      'tells a channel that is gone as closed',
      [snap({ channels: [channel('c1'), channel('c2')] }), snap({ channels: [channel('c2')] })],
      [[], ['channel_closed']],
    ],
    [
      'tells a payment received once, not again on the next poll',
      [snap(), snap({ payments: [payment('p1')] }), snap({ payments: [payment('p1')] })],
      [[], ['payment_received'], []],
    ],
    [
      'tells a pending payment when it succeeds',
      [
        snap(),
        snap({ payments: [payment('p1', { inbound: false, status: 'Pending' })] }),
        snap({ payments: [payment('p1', { inbound: false })] }),
      ],
      [[], [], ['payment_sent']],
    ],
    [
      'tells an outgoing payment that failed',
      [snap(), snap({ payments: [payment('p1', { inbound: false, status: 'Failed' })] })],
      [[], ['payment_failed']],
    ],
    [
      'tells a transfer settled and one failed, never an issuance',
      [
        snap({ transfers: [{ key: 'a#1', assetId: 'a', idx: 1, kind: 'ReceiveBlind', status: 'WaitingConfirmations' }] }),
        snap({
          transfers: [
            { key: 'a#1', assetId: 'a', idx: 1, kind: 'ReceiveBlind', status: 'Settled', amount: '10' },
            { key: 'a#2', assetId: 'a', idx: 2, kind: 'Send', status: 'Failed' },
            { key: 'a#3', assetId: 'a', idx: 3, kind: 'Issuance', status: 'Settled' },
          ],
        }),
      ],
      [[], ['transfer_settled', 'transfer_failed']],
    ],
    [
      'tells an on-chain deposit once it confirms',
      [
        snap(),
        snap({ deposits: [{ txid: 't1', receivedSat: '5000', confirmed: false }] }),
        snap({ deposits: [{ txid: 't1', receivedSat: '5000', confirmed: true }] }),
      ],
      [[], [], ['deposit_confirmed']],
    ],
    [
      'tells a node that came back locked after a restart, through an unreachable gap',
      [snap(), { takenAt: 1, lock: 'unreachable' }, { takenAt: 2, lock: 'locked' }, snap()],
      [[], [], ['node_locked'], ['node_unlocked']],
    ],
    [
      'does not re-announce payments after a locked gap',
      [snap({ payments: [payment('p1')] }), { takenAt: 1, lock: 'locked' }, snap({ payments: [payment('p1')] })],
      [[], ['node_locked'], ['node_unlocked']],
    ],
    [
      'says nothing of a node that was never unlocked and is locked',
      [
        { takenAt: 0, lock: 'uninitialised' },
        { takenAt: 1, lock: 'locked' },
      ],
      [[], []],
    ],
    [
      "tells a channel's local share crossing low once, and back only past the hysteresis",
      [0.5, 0.19, 0.1, 0.21, 0.24, 0.26, 0.5].map((s) => snap({ channels: [share('c1', s)] })),
      [[], ['channel_share:low'], [], [], [], ['channel_share:ok'], []],
    ],
    [
      'tells a share that jumps from low to high at once',
      [0.5, 0.1, 0.9].map((s) => snap({ channels: [share('c1', s)] })),
      [[], ['channel_share:low'], ['channel_share:high']],
    ],
    [
      'never tells a share for a channel that is new (its opening is the news)',
      [snap(), snap({ channels: [share('c1', 0.05)] })],
      [[], ['channel_opened', 'channel_usable']],
    ],
  ])('%s', (_name, polls, expected) => {
    expect(run(polls)).toEqual(expected);
  });

  it('tells the total inbound falling below its floor once, and recovering past the hysteresis', () => {
    const t = { ...DEFAULT_LIQUIDITY, inboundFloorSat: 40_000 };
    // remote sats: 50,000 → 30,000 → 20,000 → 41,000 (within 5 % of the floor) → 43,000
    const polls = [0.5, 0.7, 0.8, 0.59, 0.57].map((s) => snap({ channels: [share('c1', s)] }));
    const out = run(polls, t);
    expect(out.map((e) => e.filter((x) => x.startsWith('inbound')))).toEqual([[], ['inbound_low'], [], [], ['inbound_recovered']]);
  });

  it('keeps in its state the lists a locked node could not give', () => {
    const first = diffActivity(undefined, snap({ payments: [payment('p1')] }));
    const locked = diffActivity(first.state, { takenAt: 1, lock: 'locked' });
    expect(locked.state.snapshot.payments).toEqual([payment('p1')]);
    expect(locked.state.snapshot.lock).toBe('locked');
  });
});
