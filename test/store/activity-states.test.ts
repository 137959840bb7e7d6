/**
 * The polled states, held and written together (`writeEveryMs`): read back at once, one row per
 * node with the newest state, kept through a failed write and told, written by the timer and by flush(),
 * and never written for a node forgotten meanwhile. On both engines.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActivityStateRepo, type AnyDb } from '../../src/store/index.js';
import { ENGINES, openTestDb } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';

const rows = (db: AnyDb) =>
  db.all<{ node_id: string; state: string; polled_at: number }>('SELECT node_id, state, polled_at FROM activity_states ORDER BY node_id');

describe.each(ENGINES)('the polled states on %s', (engine) => {
  let db: AnyDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('are read back at once, and written once per node, the newest, by flush()', async () => {
    db = await openTestDb(engine);
    const states = createActivityStateRepo(db, { writeEveryMs: 60_000 });
    await states.put('n1', { snapshot: { takenAt: 1 } }, 1);
    await states.put('n1', { snapshot: { takenAt: 2 } }, 2);
    await states.put('n2', { snapshot: { takenAt: 3 } }, 3);
    expect(await states.get('n1')).toEqual({ snapshot: { takenAt: 2 } });
    expect(await rows(db)).toEqual([]);
    await states.flush();
    expect((await rows(db)).map((r) => [r.node_id, JSON.parse(r.state), Number(r.polled_at)])).toEqual([
      ['n1', { snapshot: { takenAt: 2 } }, 2],
      ['n2', { snapshot: { takenAt: 3 } }, 3],
    ]);
    // A copy each time, as a row read from the table is.
    const a = (await states.get('n2')) as { snapshot: { takenAt: number } };
    a.snapshot.takenAt = 99;
    expect(await states.get('n2')).toEqual({ snapshot: { takenAt: 3 } });
  });

  it('are written by the timer, without a flush', async () => {
    db = await openTestDb(engine);
    const states = createActivityStateRepo(db, { writeEveryMs: 20 });
    await states.put('n1', { snapshot: { takenAt: 5 } }, 5);
    const written = await waitFor(async () => (await rows(db!)).find((r) => r.node_id === 'n1'), { what: 'the held state written' });
    expect(JSON.parse(written.state)).toEqual({ snapshot: { takenAt: 5 } });
  });

  it('are kept through a write that fails, told, and written by the timer again', async () => {
    db = await openTestDb(engine);
    const errors: number[] = [];
    const states = createActivityStateRepo(db, { writeEveryMs: 20, onWriteError: (_e, n) => errors.push(n) });
    await db.exec('CREATE TABLE activity_states_moved AS SELECT * FROM activity_states');
    await db.exec('DROP TABLE activity_states');
    await states.put('n1', { v: 1 }, 1);
    await states.put('n2', { v: 2 }, 2);
    // The timer's write fails: told with the states still held, and read back meanwhile.
    await waitFor(() => errors.length > 0, { what: 'the failed write told' });
    expect(errors[0]).toBe(2);
    expect(await states.get('n2')).toEqual({ v: 2 });
    // With no put since, the timer tries again once the table is back.
    await db.exec('CREATE UNIQUE INDEX activity_states_node ON activity_states_moved (node_id)');
    await db.exec('ALTER TABLE activity_states_moved RENAME TO activity_states');
    const written = await waitFor(
      async () => {
        const r = await rows(db!).catch(() => []);
        return r.length === 2 && r;
      },
      { what: 'the held states written by a later write' },
    );
    expect(written.map((r) => [r.node_id, JSON.parse(r.state)])).toEqual([
      ['n1', { v: 1 }],
      ['n2', { v: 2 }],
    ]);
  });

  it('are not written for a node forgotten before the write', async () => {
    db = await openTestDb(engine);
    const states = createActivityStateRepo(db, { writeEveryMs: 60_000 });
    await states.put('gone', { v: 1 }, 1);
    await states.put('kept', { v: 1 }, 1);
    await states.removeExcept(['kept']);
    expect(await states.get('gone')).toBeUndefined();
    await states.flush();
    expect((await rows(db)).map((r) => r.node_id)).toEqual(['kept']);
  });

  it('without writeEveryMs, are each written by put()', async () => {
    db = await openTestDb(engine);
    const states = createActivityStateRepo(db);
    await states.put('n1', { v: 1 }, 1);
    expect((await rows(db)).map((r) => r.node_id)).toEqual(['n1']);
  });
});
