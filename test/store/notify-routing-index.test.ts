/**
 * The routing index keeps watches and mutes in memory and reloads them when their change
 * counter moved: on SQLite with two connections to one file, on PostgreSQL with two stores
 * (two replicas) on one database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NotifyStore, type AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb, twoConnections, type EngineName } from '../support/databases.js';
import { newWatch } from '../support/watch-row.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(engine: EngineName): Promise<AnyDb> {
  const db = await openTestDb(engine);
  cleanups.push(() => db.close());
  return db;
}

const watch = (channel: string, target: string, statuses: string | null = null) => newWatch({ channel_id: channel, target, statuses });

const channelsOf = async (store: NotifyStore, nodeId: string) => (await store.watchesFor(nodeId)).map((w) => `${w.channel_id}:${w.target}`);

describe.each(ENGINES)('the routing index of watches and mutes on %s', (engine) => {
  it('routes to a watch added after the index was read, and no longer to one removed or paused', async () => {
    const store = new NotifyStore(await open(engine));
    expect(await channelsOf(store, 'n1')).toEqual([]);
    await store.upsertWatch(watch('C1', 'n1'));
    await store.upsertWatch(watch('C2', 'all'));
    await store.upsertWatch(watch('C3', 'n2'));
    expect(await channelsOf(store, 'n1')).toEqual(['C1:n1', 'C2:all']);
    expect(await store.deleteWatch('slack', 'C1', 'n1')).toBe(true);
    expect(await channelsOf(store, 'n1')).toEqual(['C2:all']);
    expect(await store.pauseWatches('slack', 'C2', 5, 'gone')).toBe(1);
    expect(await channelsOf(store, 'n1')).toEqual([]);
    // `watch add` again resumes a paused watch.
    await store.upsertWatch(watch('C2', 'all'));
    expect(await channelsOf(store, 'n1')).toEqual(['C2:all']);
  });

  it('answers the active mute from memory, and forgets one removed', async () => {
    const store = new NotifyStore(await open(engine));
    await store.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'n1', until: 200, muted_by: 't', created_at: 1 });
    await store.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'all', until: 300, muted_by: 't', created_at: 1 });
    expect((await store.activeMute('slack', 'C1', 'n1', 100))?.until).toBe(300);
    expect((await store.activeMute('slack', 'C1', 'n2', 250))?.target).toBe('all');
    expect(await store.activeMute('slack', 'C1', 'n1', 300)).toBeUndefined();
    expect(await store.activeMute('slack', 'C2', 'n1', 100)).toBeUndefined();
    expect(await store.deleteMutes('slack', 'C1', 'all')).toBe(1);
    expect((await store.activeMute('slack', 'C1', 'n1', 100))?.until).toBe(200);
    expect(await store.deleteExpiredMutes(250)).toBe(1);
    expect(await store.activeMute('slack', 'C1', 'n1', 100)).toBeUndefined();
  });

  it('reads the tables once while nothing changes, and again after each write', async () => {
    const db = await open(engine);
    const store = new NotifyStore(db);
    await store.upsertWatch(watch('C1', 'all'));
    const first = await store.routingView();
    expect(await store.routingView()).toBe(first);
    await store.upsertWatch(watch('C2', 'n1'));
    const second = await store.routingView();
    expect(second).not.toBe(first);
    expect(second.watchesFor('n1').map((w) => w.channel_id)).toEqual(['C1', 'C2']);
  });

  it('routes, on one replica, a watch added and removed through another (two connections)', async () => {
    const [a, b] = await twoConnections(engine, cleanups);
    const receiver = new NotifyStore(a);
    const commands = new NotifyStore(b);
    expect(await channelsOf(receiver, 'n1')).toEqual([]);
    await commands.upsertWatch(watch('C1', 'all'));
    expect(await channelsOf(receiver, 'n1')).toEqual(['C1:all']);
    await commands.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'n1', until: 200, muted_by: 't', created_at: 1 });
    expect((await receiver.activeMute('slack', 'C1', 'n1', 100))?.until).toBe(200);
    await commands.deleteWatch('slack', 'C1', 'all');
    expect(await channelsOf(receiver, 'n1')).toEqual([]);
    // Inside the receiver's transaction (as a group-commit batch reads it) too.
    await commands.upsertWatch(watch('C9', 'n1'));
    expect(await receiver.tx(async () => (await receiver.routingView()).watchesFor('n1').map((w) => w.channel_id))).toEqual(['C9']);
  });

  it('does not keep a watch whose transaction was rolled back', async () => {
    const store = new NotifyStore(await open(engine));
    await expect(
      store.tx(async () => {
        await store.upsertWatch(watch('C1', 'n1'));
        // Inside the transaction the new watch is seen...
        expect(await channelsOf(store, 'n1')).toEqual(['C1:n1']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // ...and after the rollback it is gone, not remembered.
    expect(await channelsOf(store, 'n1')).toEqual([]);
  });
});
