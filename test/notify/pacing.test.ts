/**
 * Pacing: every chat call in a channel (posts, edits, thread lines) waits for the channel's
 * next slot, so a round with several messages (a digest in parts, incidents) is spread out
 * and never sent as a burst. The gaps are a lower bound set by the notifier's own timer.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { RecordingPoster, makeNotifier, ingest, statusPayload, slackPlace, actor, type Harness } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

describe('pacing', () => {
  let h: Harness | undefined;
  afterEach(async () => h?.close());

  it('spaces every call of a round one interval apart in one channel, while other channels go on', async () => {
    const slack = new RecordingPoster('slack');
    const interval = 120;
    h = makeNotifier({
      posters: { slack },
      extra: { pacing: { perChannelIntervalMs: interval, coalesceWindowMs: 10 }, digestMaxNodes: 2, maxIncidentsPerRound: 2 },
    });
    await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await h.notifier.watches.add({ place: slackPlace('C2'), target: 'all', actor: actor() });
    // Six nodes change at once: a digest in three parts; two fail: two incidents.
    for (let i = 0; i < 6; i++) await ingest(h.notifier, statusPayload(`n${i}`, 'PAUSED'), `node-${i}`);
    await ingest(h.notifier, statusPayload('f1', 'FAILED'), 'fail-1');
    await ingest(h.notifier, statusPayload('f2', 'FAILED'), 'fail-2');
    h.notifier.start();

    const inC1 = () => slack.calls.filter((c) => c.target.channelId === 'C1');
    await waitFor(() => inC1().length >= 5, { timeout: 10_000, what: 'five calls in C1' });
    const c1 = inC1();
    for (let i = 1; i < c1.length; i++) expect(c1[i].at - c1[i - 1].at).toBeGreaterThanOrEqual(interval - 5);
    // Channels are paced independently: C2 did not wait for C1's round to end, so its first
    // call came before C1's last (paced one after the other, it would come after all of C1's).
    // By order of calls rather than by time: C1's round spans four intervals at least, so a
    // loaded machine that starts C2's round a little late does not make this flaky.
    const order = slack.calls.map((c) => c.target.channelId);
    expect(order.indexOf('C2')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('C2')).toBeLessThan(order.lastIndexOf('C1'));
  });
});

describe('drain', () => {
  it('does not wait for rows of a platform that has no connection: they stay for a later start', async () => {
    const slack = new RecordingPoster('slack');
    const h = makeNotifier({ posters: { slack } });
    try {
      await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
      await h.notifier.watches.add({ place: { platform: 'discord', channelId: 'D1' }, target: 'all', actor: actor('U2', 'discord') });
      await ingest(h.notifier, statusPayload('n1', 'PAUSED'), 'node-1');
      const drained = await h.notifier.drain(5_000);
      expect(drained).toBe(true);
      expect(slack.calls.filter((c) => c.target.channelId === 'C1').length).toBe(1);
      // The Discord row is still waiting, not lost.
      expect((await h.notifier.store.outboxRows({ state: 'pending' })).map((r) => r.platform)).toEqual(['discord']);
    } finally {
      await h.close();
    }
  });
});
