import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, NotifyStore, type Db } from '../../src/store/index.js';

const dbs: Db[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) void db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(path = ':memory:'): Db {
  const db = openDatabase(path);
  dbs.push(db);
  return db;
}

const watch = (channel: string, target: string, statuses: string | null = null) => ({
  platform: 'slack',
  channel_id: channel,
  workspace_id: null,
  target,
  target_name: null,
  statuses,
  kinds: null,
  min_amount_msat: null,
  escalate_after_min: null,
  pagerduty_key: null,
  created_by: 'test',
  created_at: 1,
});

const channelsOf = (store: NotifyStore, nodeId: string) => (await store.watchesFor(nodeId)).map((w) => `${w.channel_id}:${w.target}`);

describe('the routing index of watches and mutes', () => {
  it('routes to a watch added after the index was read, and no longer to one removed or paused', () => {
    const store = new NotifyStore(open());
    expect(channelsOf(store, 'n1')).toEqual([]);
    await store.upsertWatch(watch('C1', 'n1'));
    await store.upsertWatch(watch('C2', 'all'));
    await store.upsertWatch(watch('C3', 'n2'));
    expect(channelsOf(store, 'n1')).toEqual(['C1:n1', 'C2:all']);
    expect(await store.deleteWatch('slack', 'C1', 'n1')).toBe(true);
    expect(channelsOf(store, 'n1')).toEqual(['C2:all']);
    await store.pauseWatches('slack', 'C2', 5, 'channel_not_found');
    expect(channelsOf(store, 'n1')).toEqual([]);
    // `watch add` again resumes a paused watch.
    await store.upsertWatch(watch('C2', 'all'));
    expect(channelsOf(store, 'n1')).toEqual(['C2:all']);
    expect(channelsOf(store, 'n2')).toEqual(['C2:all', 'C3:n2']);
  });

  it('gives the watches of a node and of all in the order they were added', () => {
    const store = new NotifyStore(open());
    await store.upsertWatch(watch('C1', 'all'));
    await store.upsertWatch(watch('C2', 'n1'));
    await store.upsertWatch(watch('C3', 'all'));
    expect(channelsOf(store, 'n1')).toEqual(['C1:all', 'C2:n1', 'C3:all']);
  });

  it('reads a changed status filter at once', () => {
    const store = new NotifyStore(open());
    await store.upsertWatch(watch('C1', 'all'));
    expect((await store.watchesFor('n1'))[0].statuses).toBeNull();
    await store.upsertWatch(watch('C1', 'all', 'FAILED'));
    expect((await store.watchesFor('n1'))[0].statuses).toBe('FAILED');
  });

  it('finds the mute that covers a node until it ends or is removed, and not after', () => {
    const store = new NotifyStore(open());
    expect(await store.activeMute('slack', 'C1', 'n1', 100)).toBeUndefined();
    await store.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'n1', until: 200, muted_by: 't', created_at: 1 });
    await store.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'all', until: 300, muted_by: 't', created_at: 1 });
    expect((await store.activeMute('slack', 'C1', 'n1', 100))?.until).toBe(300);
    expect((await store.activeMute('slack', 'C1', 'n2', 250))?.target).toBe('all');
    expect(await store.activeMute('slack', 'C2', 'n1', 100)).toBeUndefined();
    expect(await store.activeMute('slack', 'C1', 'n1', 300)).toBeUndefined();
    await store.deleteMutes('slack', 'C1', 'all');
    expect((await store.activeMute('slack', 'C1', 'n1', 100))?.until).toBe(200);
    await store.deleteExpiredMutes(250);
    expect(await store.activeMute('slack', 'C1', 'n1', 100)).toBeUndefined();
  });

  it('sees what another store over the same connection writes', () => {
    const db = open();
    const reader = new NotifyStore(db);
    const writer = new NotifyStore(db);
    expect(channelsOf(reader, 'n1')).toEqual([]);
    writer.upsertWatch(watch('C1', 'n1'));
    expect(channelsOf(reader, 'n1')).toEqual(['C1:n1']);
    writer.upsertMute({ platform: 'slack', channel_id: 'C1', target: 'n1', until: 200, muted_by: 't', created_at: 1 });
    expect(reader.activeMute('slack', 'C1', 'n1', 100)).toBeDefined();
  });

  it('sees what another connection to the same file commits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-routing-'));
    dirs.push(dir);
    const path = join(dir, 'bot.db');
    const store = new NotifyStore(open(path));
    const other = new NotifyStore(open(path));
    expect(channelsOf(store, 'n1')).toEqual([]);
    other.upsertWatch(watch('C1', 'all'));
    expect(channelsOf(store, 'n1')).toEqual(['C1:all']);
    other.deleteWatch('slack', 'C1', 'all');
    expect(channelsOf(store, 'n1')).toEqual([]);
  });

  it('does not keep a watch whose transaction was rolled back', () => {
    const store = new NotifyStore(open());
    expect(() =>
      store.tx(() => {
        await store.upsertWatch(watch('C1', 'n1'));
        // Inside the transaction the new watch is seen (the tables are read)...
        expect(channelsOf(store, 'n1')).toEqual(['C1:n1']);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    // ...and after the rollback it is gone, not remembered.
    expect(channelsOf(store, 'n1')).toEqual([]);
  });
});
