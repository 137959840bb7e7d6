/**
 * A failure in the middle of a round only touches the rows of the message that failed: the
 * other rows of the round, and a report waiting behind them, are still posted.
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

function harness(extra: Parameters<typeof makeNotifier>[0]['extra'] = {}) {
  const slack = new RecordingPoster('slack');
  const h: Harness = makeNotifier({ posters: { slack }, extra });
  cleanup.push(() => h.close());
  return { slack, n: h.notifier };
}

describe('a refusal in the middle of a round', () => {
  it('fails only the refused message; the other nodes of the round and a waiting report are still posted', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    await ingest(n, statusPayload('n2', 'PAUSED'), 'bob');
    await ingest(n, statusPayload('n3', 'STOPPED'), 'carol');
    await n.outbox.enqueue({
      platform: 'slack',
      channelId: 'C1',
      kind: 'report',
      message: { header: 'Balance report', blocks: [] },
      dedupeKey: 'r1',
    });
    // The incident message of alice is refused (e.g. invalid_blocks): that is about this one message.
    slack.failNext(postError('permanent'), 1);
    expect(await n.drain(3000)).toBe(true);

    const text = slack
      .posts('C1')
      .map((p) => `${p.message.header ?? ''}\n${textOf(p.message)}`)
      .join('\n---\n');
    expect(text).toContain('bob');
    expect(text).toContain('carol');
    expect(text).toContain('Balance report');
    const rows = await n.store.outboxRows();
    const failed = rows.filter((r) => r.state === 'failed');
    expect(failed).toHaveLength(1);
    expect(rows.filter((r) => r.state === 'sent')).toHaveLength(3);
  });

  it('does not count attempts against a report that was not part of the failing round', async () => {
    const { n, slack } = harness({ retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 } });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n2', 'PAUSED'), 'bob');
    await n.outbox.enqueue({
      platform: 'slack',
      channelId: 'C1',
      kind: 'report',
      message: { header: 'Balance report', blocks: [] },
      dedupeKey: 'r1',
    });
    // bob's message fails until it is given up; the report behind it was never tried meanwhile.
    slack.failNext(postError('transient'), 2);
    expect(await n.drain(3000)).toBe(true);
    const rows = await n.store.outboxRows();
    expect(rows.map((r) => [r.kind, r.state])).toEqual([
      ['event', 'failed'],
      ['report', 'sent'],
    ]);
    expect(slack.posts('C1').map((p) => p.message.header)).toEqual(['Balance report']);
  });

  it('tells the admins in another watched channel when alerts are given up, and does not loop on a failed notice', async () => {
    let offset = 0;
    const { n, slack } = harness({
      admins: ['slack:UADMIN'],
      retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 },
      now: () => Date.now() + offset,
    });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await n.watches.add({ place: slackPlace('OPS'), target: 'n9', actor: actor() });
    slack.failNext(postError('transient'), 2, 'C1');
    await ingest(n, statusPayload('n1', 'PAUSED'), 'alice');
    expect(await n.drain(3000)).toBe(true);
    expect((await n.store.outboxRows()).find((r) => r.kind === 'event')!.state).toBe('failed');
    const notices = (await n.store.notices()).filter((x) => x.kind === 'delivery_failed');
    expect(notices).toHaveLength(1);
    const ops = slack.posts('OPS');
    expect(ops).toHaveLength(1);
    const said = textOf(ops[0].message);
    expect(said).toContain('C1');
    expect(said).toContain('alice');
    expect(said).toContain('slack:UADMIN');

    // Within ten minutes a second failure is stored but not posted again (no flood of notices).
    slack.failNext(postError('permanent'), 1, 'C1');
    await ingest(n, statusPayload('n3', 'PAUSED'), 'carol');
    expect(await n.drain(3000)).toBe(true);
    expect((await n.store.notices()).filter((x) => x.kind === 'delivery_failed')).toHaveLength(2);
    expect(slack.posts('OPS')).toHaveLength(1);

    // Later, a refused alert is reported the same way; a notice that fails itself is not reported again.
    offset += 11 * 60_000;
    slack.failNext(postError('permanent'), 1, 'C1');
    slack.failNext(postError('permanent'), 1, 'OPS');
    await ingest(n, statusPayload('n2', 'PAUSED'), 'bob');
    expect(await n.drain(3000)).toBe(true);
    expect((await n.store.notices()).filter((x) => x.kind === 'delivery_failed')).toHaveLength(3);
    expect((await n.store.outboxRows()).filter((r) => r.kind === 'notice').map((r) => r.state)).toEqual(['sent', 'failed']);
    expect((await n.store.outboxRows()).filter((r) => r.state === 'pending')).toHaveLength(0);
  });
});
