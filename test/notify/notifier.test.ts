import { afterEach, describe, expect, it } from 'vitest';
import { statusBadge } from '../../src/vocabulary/format.js';
import {
  actor,
  discordPlace,
  ingest,
  makeNotifier,
  postError,
  RecordingPoster,
  slackPlace,
  statusPayload,
  tempDbPath,
  textOf,
  type Harness,
} from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function harness(extra: Parameters<typeof makeNotifier>[0]['extra'] = {}, dbPath?: string) {
  const slack = new RecordingPoster('slack');
  const discord = new RecordingPoster('discord');
  const h: Harness = makeNotifier({ posters: { slack, discord }, extra, dbPath });
  cleanup.push(() => h.close());
  return { h, slack, discord, n: h.notifier };
}

describe('routing', () => {
  it('posts an event to every channel watching the node or all, once per channel, and not to others', async () => {
    const { n, slack, discord } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'n1', targetName: 'alice', actor: actor() });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await n.watches.add({ place: discordPlace('D1'), target: 'all', actor: actor() });
    await n.watches.add({ place: slackPlace('C2'), target: 'n2', actor: actor() });
    expect((await ingest(n, statusPayload('n1', 'PAUSED'), 'alice')).routed).toBe(2);
    await n.drain(3000);
    expect(slack.posts('C1')).toHaveLength(1);
    expect(slack.posts('C2')).toHaveLength(0);
    expect(discord.posts('D1')).toHaveLength(1);
    expect(textOf(discord.posts('D1')[0].message)).toContain('PAUSED');
  });

  it('applies a status filter, but still routes the recovery of an open incident', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', statuses: ['FAILED'], actor: actor() });
    expect((await ingest(n, statusPayload('n1', 'PAUSED'))).routed).toBe(0);
    expect((await ingest(n, statusPayload('n1', 'FAILED'))).routed).toBe(1);
    await n.drain(3000);
    expect((await ingest(n, statusPayload('n1', 'RUNNING'))).routed).toBe(1);
    await n.drain(3000);
    expect(slack.topLevel('C1')).toHaveLength(1);
    expect(slack.updates().at(-1)!.message.header).toMatch(/Resolved/);
  });

  it('keeps watches, events and incidents across a restart', async () => {
    const db = tempDbPath();
    cleanup.push(db.cleanup);
    const a = harness({}, db.path);
    await a.n.watches.add({ place: slackPlace('C1'), target: 'all', statuses: ['FAILED', 'PAUSED'], actor: actor() });
    await ingest(a.n, statusPayload('n1', 'FAILED'), 'alice');
    expect(await a.n.drain(3000)).toBe(true);
    const [incidentPost] = a.slack.topLevel('C1');
    expect(incidentPost.message.header).toMatch(/Incident #\d+: alice is FAILED/);
    const [opened] = await a.n.watches.incidents({ state: 'open' });
    expect(opened).toMatchObject({ nodeId: 'n1', messageId: incidentPost.messageId });
    await a.h.close();

    const b = harness({}, db.path);
    expect(await b.n.watches.list(slackPlace('C1'))).toMatchObject([
      { target: 'all', statuses: ['FAILED', 'PAUSED'], createdBy: 'Ann (slack:U1)' },
    ]);
    expect(await b.n.store.countEvents()).toBe(1);
    const open = await b.n.watches.incidents({ state: 'open' });
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ id: opened.id, messageId: incidentPost.messageId });
    // The recovery passes the FAILED/PAUSED filter because the incident is still open, and resolves
    // the message posted in the first life, in place.
    expect((await ingest(b.n, statusPayload('n1', 'RUNNING'), 'alice')).routed).toBe(1);
    expect(await b.n.drain(3000)).toBe(true);
    expect(await b.n.store.countEvents()).toBe(2);
    expect(b.slack.topLevel()).toHaveLength(0);
    const updates = b.slack.updates(incidentPost.messageId);
    expect(updates).toHaveLength(1);
    expect(updates[0].message.header).toMatch(new RegExp(`Resolved #${opened.id}: alice is RUNNING again`));
    expect(b.slack.calls.every((c) => c.kind === 'update' || c.target.threadId === incidentPost.messageId)).toBe(true);
    expect(textOf(b.slack.threadPosts(incidentPost.messageId).at(-1)!.message)).toMatch(/resolved after/);
    expect(await b.n.watches.incidents({ state: 'open' })).toHaveLength(0);
  });
});

describe('durability and retries', () => {
  it('posts after a restart an event accepted before a kill', async () => {
    const db = tempDbPath();
    cleanup.push(db.cleanup);
    const a = harness({}, db.path);
    await a.n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    // Accepted (stored with its outbox row) but never posted: the worker was not running.
    expect((await ingest(a.n, statusPayload('n1', 'PAUSED'), 'alice')).duplicate).toBe(false);
    void a.h.db.close(); // the "kill": nothing drained, nothing stopped gracefully
    const b = harness({}, db.path);
    b.n.start();
    const [post] = await waitFor(() => b.slack.posts().length > 0 && b.slack.posts(), { timeout: 3000, what: 'post after restart' });
    expect(textOf(post.message)).toContain('alice');
    expect(a.slack.calls).toHaveLength(0);
  });

  it('retries a 429 after Retry-After and a 5xx with backoff, posting once', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    slack.failNext(postError('rate_limited', 60), 1);
    slack.failNext(postError('transient'), 2);
    await ingest(n, statusPayload('n1', 'PAUSED'));
    n.start();
    await waitFor(() => slack.posts().length === 1, { timeout: 5000, what: 'post' });
    await n.drain(3000);
    expect(slack.posts()).toHaveLength(1);
    expect(slack.attempts).toHaveLength(4);
    // The second attempt came no earlier than Retry-After.
    expect(slack.attempts[1].at - slack.attempts[0].at).toBeGreaterThanOrEqual(55);
    const deliveries = (await n.store.outboxRows()).map((r) => r.state);
    expect(deliveries).toEqual(['sent']);
  });

  it('gives up after maxAttempts on persistent 5xx and says so in the row', async () => {
    const { n, slack } = harness({ retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 } });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    slack.failNext(postError('transient'), 10);
    await ingest(n, statusPayload('n1', 'PAUSED'));
    await n.drain(3000);
    const [row] = await n.store.outboxRows();
    expect(row.state).toBe('failed');
    expect(row.last_error).toMatch(/gave up after 3 attempts/);
    expect(slack.attempts).toHaveLength(3);
  });

  it('pauses the watches of a channel that is gone, stores a notice and tells the admins in another watched channel', async () => {
    const { n, slack } = harness({ admins: ['slack:UADMIN'] });
    await n.watches.add({ place: slackPlace('GONE'), target: 'all', actor: actor() });
    await n.watches.add({ place: slackPlace('OPS'), target: 'n9', actor: actor() });
    slack.failNext(postError('channel_gone'), 1, 'GONE');
    await ingest(n, statusPayload('n1', 'PAUSED'));
    await n.drain(3000);
    const gone = (await n.watches.list(slackPlace('GONE')))[0];
    expect(gone.paused?.reason).toMatch(/channel_gone/);
    const notices = await n.store.notices();
    expect(notices).toHaveLength(1);
    expect(notices[0].text).toContain('slack:UADMIN');
    const ops = slack.posts('OPS');
    expect(ops).toHaveLength(1);
    expect(textOf(ops[0].message)).toContain('GONE');
    // Later events are no longer routed to the paused watch; `watch add` resumes it.
    expect((await ingest(n, statusPayload('n1', 'RUNNING'))).routed).toBe(0);
    await n.watches.add({ place: slackPlace('GONE'), target: 'all', actor: actor() });
    expect((await ingest(n, statusPayload('n1', 'STARTING'))).routed).toBe(1);
  });

  it('posts an outbox item (a report) once per dedupe key', async () => {
    const { n, discord } = harness();
    const item = {
      platform: 'discord' as const,
      channelId: 'D1',
      kind: 'report' as const,
      message: { header: 'Balance report', blocks: [] },
      dedupeKey: 'r1',
    };
    await n.outbox.enqueue(item);
    await n.outbox.enqueue(item);
    await n.drain(3000);
    expect(discord.posts('D1').map((p) => p.message.header)).toEqual(['Balance report']);
  });
});

describe('retention', () => {
  it('forgets sent notifications and old events after the retention period, keeping what still waits', async () => {
    let offset = 0;
    const { n, slack } = harness({ now: () => Date.now() + offset, retentionMs: 24 * 3600_000 });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'PAUSED'));
    expect(await n.drain(3000)).toBe(true);
    expect(slack.posts()).toHaveLength(1);
    offset = 2 * 24 * 3600_000;
    await n.watches.mute({ place: slackPlace('C1'), target: 'all', minutes: 60, actor: actor() });
    await ingest(n, statusPayload('n2', 'PAUSED'));
    await n.tick();
    expect((await n.store.outboxRows()).map((r) => r.state)).toEqual(['held']);
    expect(await n.store.countEvents()).toBe(1);
  });
});

describe('bursts', () => {
  it('coalesces a storm of hundreds of events over many nodes into a few digests naming every node with its last status and flaps', async () => {
    const { n, slack } = harness({ pacing: { perChannelIntervalMs: 50, coalesceWindowMs: 30 } });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    const statuses = ['STARTING', 'RUNNING', 'IN_PROGRESS', 'PAUSED'];
    const last = new Map<string, string>();
    const count = new Map<string, number>();
    // Status changes per node, as the digest counts them: the first event of a node is a change.
    const changes = new Map<string, number>();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    n.start();
    for (let i = 0; i < 400; i++) {
      const id = `node${String(Math.floor(rnd() * 25)).padStart(2, '0')}`;
      const s = statuses[Math.floor(rnd() * statuses.length)];
      await ingest(n, statusPayload(id, s), `name-${id}`);
      changes.set(id, (changes.get(id) ?? 0) + (last.get(id) === s ? 0 : 1));
      last.set(id, s);
      count.set(id, (count.get(id) ?? 0) + 1);
    }
    await n.drain(10_000);
    const posts = slack.posts('C1');
    expect(posts.length).toBeLessThanOrEqual(6);
    expect(posts.some((p) => /events on \d+ nodes/.test(p.message.header ?? ''))).toBe(true);
    // The latest digest row per node carries its last status; the events add up.
    const rows = new Map<string, string[]>();
    const digestChanges = new Map<string, number>();
    let events = 0;
    for (const p of posts) {
      for (const b of p.message.blocks) {
        if (b.type !== 'table') continue;
        for (const r of b.table.rows) {
          rows.set(r[0], r);
          digestChanges.set(r[0], (digestChanges.get(r[0]) ?? 0) + Number(r[2]));
          events += Number(r[3]);
        }
      }
    }
    const singles = posts.filter((p) => !p.message.blocks.some((b) => b.type === 'table'));
    events += singles.length;
    expect(events).toBe(400);
    for (const [id, s] of last) {
      const row = rows.get(`name-${id}`);
      if (row) expect(row[1]).toContain(s);
      else expect(singles.some((p) => textOf(p.message).includes(`name-${id}`) && textOf(p.message).includes(s))).toBe(true);
    }
    // The Changes column, summed over the digests, is the node's status changes; an event posted
    // on its own (no Changes column) can account for at most one change of its node.
    for (const [id, expected] of changes) {
      const inDigests = digestChanges.get(`name-${id}`) ?? 0;
      const alone = singles.filter((p) => textOf(p.message).includes(`name-${id}`)).length;
      expect(expected - inDigests, id).toBeGreaterThanOrEqual(0);
      expect(expected - inDigests, id).toBeLessThanOrEqual(alone);
    }
    const flaps = [...digestChanges.values()].reduce((a, c) => a + c, 0);
    expect(flaps).toBeGreaterThan(0);
  });
});

describe('wake-ups', () => {
  it('looks for work once for a burst of events, when its coalescing window ends, not once per event or per commit', async () => {
    const { n, slack } = harness({ pollMs: 60_000 });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    let passes = 0;
    const pendingChannels = n.store.pendingChannels.bind(n.store);
    n.store.pendingChannels = () => (passes++, pendingChannels());
    n.start();
    // The start's own pass: it pauses after routing, so it may end after a turn or two.
    await waitFor(() => passes > 0, { what: "start()'s pass" });
    expect(passes).toBe(1);
    for (let i = 0; i < 50; i++) await ingest(n, statusPayload(`n${i}`, 'PAUSED'));
    await new Promise((r) => setImmediate(r));
    // Nothing could be posted before the window ends: no pass yet (it would read every waiting row).
    expect(passes).toBe(1);
    await waitFor(() => passes > 1, { what: 'the pass at the end of the coalescing window' });
    for (let i = 0; i < 5; i++) await ingest(n, statusPayload(`m${i}`, 'PAUSED'));
    await new Promise((r) => setImmediate(r));
    expect(passes).toBe(2);
    expect(await n.drain(5000)).toBe(true);
    expect(slack.posts('C1').length).toBeGreaterThan(0);
  });
});

describe('ordering and failure storms', () => {
  it('takes a node’s latest status from the event time, not the arrival order', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'RUNNING', '2026-04-16T12:00:05Z'), 'alice');
    await ingest(n, statusPayload('n1', 'PAUSED', '2026-04-16T12:00:01Z'), 'alice'); // a late redelivery of an older event
    await ingest(n, statusPayload('n2', 'PAUSED', '2026-04-16T12:00:02Z'), 'bob');
    await n.drain(3000);
    const [digest] = slack.posts('C1');
    expect(textOf(digest.message)).toContain(`alice | ${statusBadge('RUNNING')} | 2 | 2`);
  });

  it('opens at most a few incidents at once and lists the other failed nodes in the digest', async () => {
    const { n, slack } = harness({ maxIncidentsPerRound: 3 });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    for (let i = 0; i < 8; i++) await ingest(n, statusPayload(`n${i}`, 'FAILED'), `node-${i}`);
    await n.drain(3000);
    const top = slack.topLevel('C1');
    const incidents = top.filter((p) => /^Incident #/.test(p.message.header ?? ''));
    const digests = top.filter((p) => /events on \d+ nodes/.test(p.message.header ?? ''));
    expect(incidents).toHaveLength(3);
    expect(digests).toHaveLength(1);
    const all = top.map((p) => textOf(p.message)).join('\n');
    for (let i = 0; i < 8; i++) expect(all).toContain(`node-${i}`);
    expect(textOf(digests[0].message)).toMatch(/too many failures at once/);
  });
});

describe('incidents', () => {
  it('opens an incident on FAILED, is acknowledged, is updated in place with thread lines, and resolves with a duration', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    await n.drain(3000);
    const [incidentPost] = slack.topLevel('C1');
    expect(incidentPost.message.header).toMatch(/Incident #\d+: alice is FAILED/);
    expect(incidentPost.message.buttons?.map((b) => [b.label, b.command, b.args])).toEqual([
      ['Restart', 'node start', { node: 'n1' }],
      ['Logs', 'node logs', { node: 'n1' }],
      ['Acknowledge', 'watch ack', { incident: expect.any(String), node: 'n1' }],
    ]);
    const incidentId = Number(incidentPost.message.buttons![2].args!.incident);
    const msgId = incidentPost.messageId;

    // From another channel the incident is unknown: its number alone acknowledges nothing.
    await expect(n.watches.ack({ incidentId, actor: actor('U7'), place: { platform: 'slack', channelId: 'C-other' } })).rejects.toThrow(
      /no incident #\d+ in this channel/,
    );
    expect((await n.watches.incidents({ state: 'open' })).find((i) => i.id === incidentId)?.ackedBy).toBeUndefined();
    const ack = await n.watches.ack({
      incidentId,
      actor: actor('U7'),
      place: { platform: 'slack', channelId: incidentPost.target.channelId },
    });
    expect(ack.incident.ackedBy).toBe('Ann (slack:U7)');
    await n.drain(3000);
    expect(textOf(slack.updates(msgId).at(-1)!.message)).toContain('by Ann (slack:U7)');
    expect(
      slack
        .updates(msgId)
        .at(-1)!
        .message.buttons?.map((b) => b.label),
    ).toEqual(['Restart', 'Logs']);
    expect(textOf(slack.threadPosts(msgId)[0].message)).toContain('Acknowledged by Ann');

    await ingest(n, statusPayload('n1', 'STARTING'), 'alice');
    await n.drain(3000);
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice'); // fails again: acknowledged, so no new top-level post
    await n.drain(3000);
    await ingest(n, statusPayload('n1', 'RUNNING'), 'alice');
    await n.drain(3000);

    expect(slack.topLevel('C1')).toHaveLength(1);
    const updates = slack.updates(msgId);
    expect(updates.length).toBeGreaterThanOrEqual(4);
    const final = updates.at(-1)!.message;
    expect(final.header).toMatch(/Resolved #\d+: alice is RUNNING again after \d+s/);
    expect(textOf(final)).toContain('Duration');
    expect(final.buttons).toBeUndefined();
    const thread = slack.threadPosts(msgId).map((p) => textOf(p.message));
    expect(thread.some((t) => t.includes('STARTING'))).toBe(true);
    expect(thread.at(-1)).toMatch(/resolved after/);
    expect(await n.watches.incidents({ state: 'resolved' })).toHaveLength(1);
  });

  it('repeats a top-level notice when an unacknowledged incident fails again', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    await n.drain(3000);
    await ingest(n, statusPayload('n1', 'STARTING'), 'alice');
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    await n.drain(3000);
    const top = slack.topLevel('C1');
    expect(top).toHaveLength(2);
    expect(textOf(top[1].message)).toMatch(/failed again; incident #\d+ is not acknowledged/);
  });
});

describe('incident message lost', () => {
  it('posts the incident again when its message can no longer be edited', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await ingest(n, statusPayload('n1', 'FAILED'), 'alice');
    await n.drain(3000);
    slack.failNext(postError('permanent'), 1);
    await ingest(n, statusPayload('n1', 'STARTING'), 'alice');
    await n.drain(3000);
    const top = slack.topLevel('C1');
    expect(top).toHaveLength(2);
    expect(top[1].message.header).toMatch(/Incident #\d+: alice is STARTING/);
    expect((await n.watches.incidents({ state: 'open' }))[0].messageId).toBe(top[1].messageId);
  });
});

describe('muting', () => {
  it('holds events while muted and summarises them in one message when unmuted', async () => {
    const { n, slack } = harness();
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await n.watches.mute({ place: slackPlace('C1'), target: 'all', minutes: 60, actor: actor() });
    expect((await n.watches.list(slackPlace('C1')))[0].mutedUntil).toBeInstanceOf(Date);
    n.start();
    for (const [id, s] of [
      ['n1', 'PAUSED'],
      ['n2', 'STARTING'],
      ['n1', 'STARTING'],
      ['n2', 'RUNNING'],
      ['n3', 'IN_PROGRESS'],
    ] as const) {
      await ingest(n, statusPayload(id, s), `name-${id}`);
    }
    await n.drain(2000);
    expect(slack.posts()).toHaveLength(0);
    expect(await n.store.depth()).toBe(5);
    expect(await n.watches.unmute(slackPlace('C1'))).toBe(1);
    await waitFor(() => slack.posts().length > 0, { timeout: 3000, what: 'summary' });
    await n.drain(3000);
    const posts = slack.posts();
    expect(posts).toHaveLength(1);
    const text = textOf(posts[0].message);
    expect(posts[0].message.header).toMatch(/5 events on 3 nodes while muted/);
    for (const s of [
      `name-n1 | ${statusBadge('STARTING')} | 2 | 2`,
      `name-n2 | ${statusBadge('RUNNING')} | 2 | 2`,
      `name-n3 | ${statusBadge('IN_PROGRESS')} | 1 | 1`,
    ]) {
      expect(text).toContain(s);
    }
  });

  it('ends a mute by itself when its time is up, and mutes only the node it names', async () => {
    // The notifier's clock is the test's: the mute ends when the test moves the clock past it.
    let offset = 0;
    const { n, slack } = harness({ now: () => Date.now() + offset });
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await n.watches.mute({ place: slackPlace('C1'), target: 'n1', minutes: 10, actor: actor() });
    await ingest(n, statusPayload('n2', 'PAUSED'), 'bob');
    await ingest(n, statusPayload('n1', 'PAUSED'), 'alice');
    n.start();
    await waitFor(() => slack.posts().length >= 1, { timeout: 5000, what: 'bob' });
    expect(await n.drain(3000)).toBe(true);
    // Muted node held, the other posted.
    expect(slack.posts()).toHaveLength(1);
    expect(await n.store.outboxRows({ state: 'held' })).toHaveLength(1);
    offset = 10 * 60_000 + 1000;
    await waitFor(() => slack.posts().length >= 2, { timeout: 5000, what: 'the summary once the mute is over' });
    expect(await n.drain(3000)).toBe(true);
    expect(slack.posts()).toHaveLength(2);
    const [first, second] = slack.posts();
    expect(textOf(first.message)).toContain('bob');
    expect(textOf(second.message)).toContain('alice');
    expect(second.message.header).toMatch(/while muted/);
    // An ended mute is not ended again: unmute finds nothing, whenever housekeeping drops the row.
    expect((await n.watches.list(slackPlace('C1')))[0].mutedUntil).toBeUndefined();
    expect(await n.watches.unmute(slackPlace('C1'))).toBe(0);
  });
});
