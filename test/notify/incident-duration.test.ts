/**
 * An incident lasts from the FAILED event to the RUNNING event (their own times), whatever
 * the delay of the posts in between (coalescing, retries, an outage of the chat platform).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  actor,
  ingest,
  makeNotifier,
  postError,
  RecordingPoster,
  slackPlace,
  statusPayload,
  textOf,
  type Harness,
} from '../support/notify.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe('incident duration', () => {
  it('is the time between the FAILED and the RUNNING events, not between the posts', async () => {
    const slack = new RecordingPoster('slack');
    const h: Harness = makeNotifier({ posters: { slack } });
    cleanup.push(() => h.close());
    const n = h.notifier;
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'STARTING', '2026-04-16T11:59:00Z'), 'alice');
    await ingest(n, statusPayload('n1', 'FAILED', '2026-04-16T12:00:00Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    const [incidentPost] = slack.topLevel('C1');
    // The same time format as every other message, not an ISO stamp.
    expect(textOf(incidentPost.message)).toContain('Opened: 2026-04-16 12:00 UTC');
    // The recovery comes 7m30s later by the service's clock; the first try to post it fails.
    slack.failNext(postError('transient'), 1);
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:07:30Z'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    const [inc] = await n.store.incidents();
    expect(inc.state).toBe('resolved');
    expect(inc.resolved_at! - inc.opened_at).toBe(450_000);
    expect(slack.updates(incidentPost.messageId).at(-1)!.message.header).toMatch(/again after 7m 30s$/);
    expect(textOf(slack.threadPosts(incidentPost.messageId).at(-1)!.message)).toMatch(/resolved after 7m 30s/);
  });
});

describe('incident thread refusing a line', () => {
  it('still records the resolution its message shows, and does not post it again', async () => {
    const slack = new RecordingPoster('slack');
    const h: Harness = makeNotifier({ posters: { slack } });
    cleanup.push(() => h.close());
    const n = h.notifier;
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    const [incidentPost] = slack.topLevel('C1');
    // The thread no longer takes replies (archived): the line is refused, the update went through.
    const post = slack.post.bind(slack);
    slack.post = async (target, message) => {
      if (target.threadId) throw postError('permanent')();
      return post(target, message);
    };
    await ingest(n, statusPayload('n1', 'RUNNING'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect(slack.updates(incidentPost.messageId).at(-1)!.message.header).toMatch(/^Resolved/);
    expect((await n.store.incidents())[0].state).toBe('resolved');
    expect((await n.store.outboxRows()).every((r) => r.state === 'sent')).toBe(true);
    // A later FAILED opens a new incident instead of updating the resolved one.
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect((await n.store.incidents()).map((i) => i.state)).toEqual(['resolved', 'open']);
    expect(slack.topLevel('C1').filter((p) => /^Incident #/.test(p.message.header ?? ''))).toHaveLength(2);
  });
});
