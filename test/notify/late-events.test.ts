/**
 * Deliveries can arrive out of order across rounds (the service retries): an older event that
 * arrives after a newer one was posted does not speak for the node's current status.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { statusBadge } from '../../src/vocabulary/format.js';
import { actor, ingest, makeNotifier, RecordingPoster, slackPlace, statusPayload, textOf, type Harness } from '../support/notify.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function harness() {
  const slack = new RecordingPoster('slack');
  const h: Harness = makeNotifier({ posters: { slack } });
  cleanup.push(() => h.close());
  return { slack, n: h.notifier };
}

describe('a late delivery of an older event', () => {
  it('does not open an incident for a node whose newer status is RUNNING, and shows the latest status', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:00:05Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    await ingest(n, statusPayload('n1', 'FAILED', '2026-04-16T12:00:01Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect(await n.store.incidents()).toHaveLength(0);
    const posts = slack.topLevel('C1');
    expect(posts).toHaveLength(2);
    const late = textOf(posts[1].message);
    expect(late).toContain(`alice | ${statusBadge('RUNNING')}`);
    expect(late).toMatch(/older events \(.*FAILED.*\), superseded by .*RUNNING.* at 2026-04-16T12:00:05Z/);
    expect((await n.store.outboxRows()).every((r) => r.state === 'sent')).toBe(true);
  });

  it('does not resolve an open incident with an older RUNNING', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED', '2026-04-16T12:00:10Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect(await n.store.incidents({ state: 'open' })).toHaveLength(1);
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:00:05Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    const [inc] = await n.store.incidents();
    expect(inc.state).toBe('open');
    expect(inc.last_status).toBe('FAILED');
    expect(slack.calls.some((c) => /^Resolved/.test(c.message.header ?? ''))).toBe(false);
    expect(textOf(slack.topLevel('C1').at(-1)!.message)).toContain(`alice | ${statusBadge('FAILED')}`);
    // A genuinely newer RUNNING still resolves it.
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:00:20Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect((await n.store.incidents())[0].state).toBe('resolved');
  });
});

describe('an older event that is not a status change', () => {
  it('is posted as itself, not as superseded by a newer status', async () => {
    const slack = new RecordingPoster('slack');
    const h: Harness = makeNotifier({ posters: { slack } });
    cleanup.push(() => h.close());
    const n = h.notifier;
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:00:05Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    await ingest(
      n,
      { eventType: 'NODE_BACKUP_DONE', eventTimestamp: '2026-04-16T12:00:01Z', details: { nodeId: 'n1', size: 42 }, nodeId: 'n1' },
      'alice',
    );
    expect(await n.drain(3000)).toBe(true);
    const last = slack.topLevel('C1').at(-1)!.message;
    expect(last.header).toBe('NODE_BACKUP_DONE on alice');
    expect(textOf(last)).not.toMatch(/superseded/);
  });
});
