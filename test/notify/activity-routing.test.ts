// What the activity poller saw, routed by the notifier to the watches that hear its kind:
// stored with the outbox rows in one transaction, once per dedupe key, below min_amount skipped,
// held while muted; status changes no longer reach a watch that chose other kinds.
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivityItem } from '../../src/notify/index.js';
import { actor, ingest, makeNotifier, RecordingPoster, slackPlace, statusPayload, textOf, type Harness } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Harness[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!.close();
});

const payment = (key: string, sats: number): ActivityItem => ({
  dedupeKey: key,
  kind: 'payments',
  type: 'payment_received',
  amountMsat: sats * 1000,
  message: { header: `bob: payment received, ${sats} sats`, tone: 'success', blocks: [] },
});

async function setup() {
  const poster = new RecordingPoster('slack');
  const h = makeNotifier({ posters: { slack: poster } });
  cleanup.push(h);
  const w = h.notifier.watches;
  await w.add({ place: slackPlace('CPAY'), target: 'nbob', kinds: ['payments'], minAmountMsat: 10_000_000, actor: actor() });
  await w.add({ place: slackPlace('CSTATUS'), target: 'nbob', actor: actor() });
  await w.add({ place: slackPlace('CBOTH'), target: 'all', kinds: ['status', 'payments', 'channels'], actor: actor() });
  return { h, poster };
}

describe('routing node activity', () => {
  it('queues an item for the watches whose kinds include it, and a status change only for watches that hear status', async () => {
    const { h } = await setup();
    expect(await h.notifier.ingestActivity({ nodeId: 'nbob', nodeName: 'bob' }, [payment('k1', 20_000)])).toBe(2);
    const channels = (await h.notifier.store.outboxRows()).map((r) => r.channel_id);
    expect(channels.sort()).toEqual(['CBOTH', 'CPAY']);
    await ingest(h.notifier, statusPayload('nbob', 'PAUSED'), 'bob');
    const statusRows = (await h.notifier.store.outboxRows()).slice(2).map((r) => r.channel_id);
    expect(statusRows.sort()).toEqual(['CBOTH', 'CSTATUS']);
  });

  it('routes an item seen again (the same dedupe key) nothing, and skips a payment below the watch min_amount', async () => {
    const { h } = await setup();
    await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k1', 20_000)]);
    expect(await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k1', 20_000)])).toBe(0);
    expect(await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k2', 5_000)])).toBe(1);
    expect((await h.notifier.store.outboxRows()).filter((r) => r.channel_id === 'CPAY')).toHaveLength(1);
  });

  it('holds an item while the channel is muted', async () => {
    const { h } = await setup();
    await h.notifier.watches.mute({ place: slackPlace('CPAY'), target: 'nbob', minutes: 10, actor: actor() });
    await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k1', 20_000)]);
    expect((await h.notifier.store.outboxRows()).find((r) => r.channel_id === 'CPAY')?.state).toBe('held');
  });

  it('posts the item as its own message, and several of one round as one message with a line each', async () => {
    const { h, poster } = await setup();
    h.notifier.start();
    await h.notifier.ingestActivity({ nodeId: 'nbob', nodeName: 'bob' }, [payment('k1', 20_000), payment('k2', 30_000)]);
    await waitFor(() => poster.calls.filter((c) => c.target.channelId === 'CPAY').length > 0);
    const text = textOf(poster.calls.find((c) => c.target.channelId === 'CPAY')!.message);
    expect(text).toContain('bob: payment received, 20000 sats');
    expect(text).toContain('bob: payment received, 30000 sats');
    expect(await h.notifier.drain(5000)).toBe(true);
  });
});

describe('telling a dashboard that a node changed', () => {
  it('tells it when activity was routed (a payment moves the numbers App Home shows), not when nothing was', async () => {
    const changed: string[] = [];
    const h = makeNotifier({
      posters: { slack: new RecordingPoster('slack') },
      extra: { onNodeEvent: (e: { nodeId: string }) => void changed.push(e.nodeId) },
    });
    cleanup.push(h);
    await h.notifier.watches.add({ place: slackPlace('CPAY'), target: 'nbob', kinds: ['payments'], actor: actor() });
    await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k1', 20_000)]);
    expect(changed).toEqual(['nbob']);
    await h.notifier.ingestActivity({ nodeId: 'nbob' }, [payment('k1', 20_000)]); // seen before: nothing routed
    await h.notifier.ingestActivity({ nodeId: 'nalice' }, [payment('k2', 20_000)]); // not watched
    expect(changed).toEqual(['nbob']);
  });
});
