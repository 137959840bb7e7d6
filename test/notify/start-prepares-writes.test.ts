import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/index.js';
import { BARE_KEYS_STORED } from '../../src/store/notify-event-inserts.js';
import { makeNotifier } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

it('asks at its start whether an older version stored event keys as given, so the first webhook batch does not', async () => {
  const db = openDatabase(':memory:');
  const reads: string[] = [];
  // The database the notifier gets, with the text of each single-row read noted.
  const noted = new Proxy(db, {
    get(target, p) {
      const v = Reflect.get(target, p, target) as unknown;
      if (p === 'get') return (sql: string, params?: unknown) => (reads.push(sql), target.get(sql, params as never));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const h = makeNotifier({ posters: {}, extra: { db: noted } });
  try {
    expect(reads).not.toContain(BARE_KEYS_STORED);
    h.notifier.start();
    await waitFor(() => reads.includes(BARE_KEYS_STORED));
    expect(reads.filter((sql) => sql === BARE_KEYS_STORED)).toHaveLength(1);
  } finally {
    await h.close();
    await db.close();
  }
});
