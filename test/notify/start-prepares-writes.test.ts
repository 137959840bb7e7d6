import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/index.js';
import { BARE_KEYS_STORED } from '../../src/store/notify-event-inserts.js';
import { notingStatements } from '../support/databases.js';
import { makeNotifier } from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';

it('asks at its start whether an older version stored event keys as given, so the first webhook batch does not', async () => {
  const db = openDatabase(':memory:');
  // The database the notifier gets, with the text of each statement noted.
  const { db: noted, seen: reads } = notingStatements(db);
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
