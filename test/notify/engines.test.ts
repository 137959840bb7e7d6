/**
 * The notifier over either engine: routing, muting, posting and acknowledging an incident, and
 * a watch added through one replica routing the events another one receives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createNotifier, type Notifier } from '../../src/notify/index.js';
import type { AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb, twoConnections } from '../support/databases.js';
import { FAST, RecordingPoster, actor, fakeHosting, ingest, prepareMessage, slackPlace, statusPayload } from '../support/notify.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function notifierOn(db: AnyDb, poster: RecordingPoster): Notifier {
  const n = createNotifier({
    db,
    posters: { slack: poster },
    buttons: { prepare: async (m) => prepareMessage(m) },
    hosting: fakeHosting([], null),
    logger: silentLogger,
    ...FAST,
  });
  cleanups.push(() => n.stop());
  return n;
}

describe.each(ENGINES)('the notifier on %s', (engine) => {
  it('routes, holds while muted, posts an incident and records its acknowledgement', async () => {
    const db = await openTestDb(engine);
    cleanups.push(() => db.close());
    const slack = new RecordingPoster('slack');
    const n = notifierOn(db, slack);
    await n.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    await n.watches.mute({ place: slackPlace('C1'), target: 'n2', minutes: 10, actor: actor() });
    const failed = statusPayload('n1', 'FAILED');
    expect((await ingest(n, failed, 'alice')).routed).toBe(1);
    expect((await ingest(n, failed, 'alice')).duplicate).toBe(true);
    expect((await ingest(n, statusPayload('n2', 'PAUSED'), 'bob')).routed).toBe(1);
    expect(await n.drain(5000)).toBe(true);
    expect((await n.store.outboxRows({ state: 'held' })).length).toBe(1);
    const [open] = await n.watches.incidents({ state: 'open' });
    expect(open).toMatchObject({ nodeId: 'n1', platform: 'slack', channelId: 'C1' });
    expect(slack.topLevel('C1').length).toBeGreaterThanOrEqual(1);
    const ack = await n.watches.ack({ incidentId: open.id, actor: actor('U7'), place: slackPlace('C1') });
    expect(ack).toMatchObject({ already: false, incident: { ackedBy: 'Ann (slack:U7)' } });
    expect(await n.drain(5000)).toBe(true);
    // Unmuting releases the held row.
    expect(await n.watches.unmute(slackPlace('C1'))).toBe(1);
    expect(await n.drain(5000)).toBe(true);
    expect(await n.store.outboxRows({ state: 'held' })).toEqual([]);
  });

  it('routes on replica B the events of a watch added through replica A, and stops when it is removed there', async () => {
    const [a, b] = await twoConnections(engine, cleanups);
    const na = notifierOn(a, new RecordingPoster('slack'));
    const nb = notifierOn(b, new RecordingPoster('slack'));
    expect((await ingest(nb, statusPayload('n1', 'FAILED'))).routed).toBe(0);
    await na.watches.add({ place: slackPlace('C1'), target: 'n1', actor: actor() });
    expect((await ingest(nb, statusPayload('n1', 'PAUSED'))).routed).toBe(1);
    expect(await nb.watches.hearsActivity('n1')).toBe(false);
    await na.watches.add({ place: slackPlace('C1'), target: 'n1', kinds: ['payments'], actor: actor() });
    expect(await nb.watches.hearsActivity('n1')).toBe(true);
    await na.watches.remove(slackPlace('C1'), 'n1');
    expect((await ingest(nb, statusPayload('n1', 'RUNNING'))).routed).toBe(0);
  });
});

describe('two replicas posting one channel on PostgreSQL', () => {
  /** The same events, stored through `replicas` notifiers in turn, then posted by all of them at once. */
  async function storm(replicas: 1 | 2) {
    const dbs = replicas === 1 ? [await openTestDb('postgres')] : await twoConnections('postgres', cleanups);
    if (replicas === 1) cleanups.push(() => dbs[0].close());
    const posters = dbs.map(() => new RecordingPoster('slack'));
    const notifiers = dbs.map((db, i) => notifierOn(db, posters[i]));
    await notifiers[0].watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
    // Three nodes go through states and fail; the events alternate between replicas.
    const statuses = ['STARTING', 'PAUSED', 'RUNNING', 'FAILED'];
    let k = 0;
    for (const status of statuses) {
      for (const node of ['n1', 'n2', 'n3']) await ingest(notifiers[k++ % replicas], statusPayload(node, status), `node-${node}`);
    }
    notifiers.forEach((n) => n.start());
    expect((await Promise.all(notifiers.map((n) => n.drain(10_000)))).every(Boolean)).toBe(true);
    const incidents = await notifiers[0].watches.incidents({});
    return {
      incidents: incidents.map((i) => i.nodeId).sort(),
      topLevel: posters.flatMap((p) => p.topLevel('C1')).length,
      posters: posters.map((p) => p.posts('C1').length),
    };
  }

  it('opens one incident per node and posts what one replica posts, never once per replica', async () => {
    const one = await storm(1);
    const two = await storm(2);
    expect(one.incidents).toEqual(['n1', 'n2', 'n3']);
    expect(two.incidents).toEqual(one.incidents);
    expect(two.topLevel).toBe(one.topLevel);
    expect(two.posters.reduce((x, y) => x + y, 0)).toBe(one.posters[0]);
  });
});

describe('acknowledging an incident from two replicas on PostgreSQL', () => {
  it('records one acknowledgement and queues one note, however many clicks race', async () => {
    const [a, b] = await twoConnections('postgres', cleanups);
    const notifiers = [notifierOn(a, new RecordingPoster('slack')), notifierOn(b, new RecordingPoster('slack'))];
    const id = await notifiers[0].store.insertIncident({
      platform: 'slack',
      channel_id: 'C1',
      node_id: 'n1',
      node_name: 'alice',
      last_status: 'FAILED',
      opened_at: Date.now(),
      message_id: 'm1',
      thread_id: 'm1',
      changes: 0,
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        notifiers[i % 2].watches.ack({ incidentId: id, actor: actor(`U${i}`), place: slackPlace('C1') }),
      ),
    );
    const first = results.filter((r) => !r.already);
    expect(first.length).toBe(1);
    const by = first[0].incident.ackedBy;
    expect(results.every((r) => r.incident.ackedBy === by)).toBe(true);
    const notes = (await notifiers[0].store.outboxRows()).filter((r) => r.incident_id === id && r.note?.startsWith('Acknowledged by'));
    expect(notes.map((r) => r.note)).toEqual([
      `Acknowledged by ${by}. Repeat notifications for this incident stop; updates continue in this thread.`,
    ]);
  });
});
