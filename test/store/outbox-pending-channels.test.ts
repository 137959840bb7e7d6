/**
 * The outbox worker's look at the outbox at each pass (NotifyStore.pendingChannels): every
 * channel with pending rows, its earliest due time and its oldest row, found without reading
 * every pending row. On both engines: the same answer as a GROUP BY over every row, and a
 * pass reads a few rows per channel however many wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifyStore, type AnyDb } from '../../src/store/index.js';
import { ENGINES, notingStatements, openTestDb } from '../support/databases.js';

interface Row {
  platform: string;
  channel_id: string;
  state: 'pending' | 'held' | 'sent';
  next_attempt_at: number;
  created_at: number;
}

/**
 * 3,000 pending rows over three channels of two platforms, created in id order. In C1 the first
 * rows were tried and wait for a retry later than the rows after them; C3 has only sent rows and
 * D2 only rows held by a mute, so neither is pending work.
 */
function outbox(): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < 1000; i++) {
    const at = 10_000 + i;
    rows.push({ platform: 'slack', channel_id: 'C1', state: 'pending', next_attempt_at: i < 5 ? 90_000 + i : at, created_at: at });
    rows.push({ platform: 'slack', channel_id: 'C2', state: 'pending', next_attempt_at: at + 500, created_at: at + 1 });
    rows.push({ platform: 'discord', channel_id: 'D1', state: 'pending', next_attempt_at: 50_000 - i, created_at: at + 2 });
    if (i < 20) {
      rows.push({ platform: 'slack', channel_id: 'C3', state: 'sent', next_attempt_at: 1, created_at: 1 });
      rows.push({ platform: 'discord', channel_id: 'D2', state: 'held', next_attempt_at: 2, created_at: 2 });
    }
  }
  return rows;
}

async function insert(db: AnyDb, rows: readonly Row[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) {
    const chunk = rows.slice(start, start + 200);
    await db.run(
      `INSERT INTO notify_outbox (platform, channel_id, kind, state, next_attempt_at, created_at) VALUES ${chunk.map(() => "(?, ?, 'report', ?, ?, ?)").join(', ')}`,
      chunk.flatMap((r) => [r.platform, r.channel_id, r.state, r.next_attempt_at, r.created_at]),
    );
  }
}

/** What a GROUP BY over every pending row gives: the earliest due time, and the first row's creation time. */
function expected(rows: readonly Row[]): Array<{ platform: string; channel_id: string; due: number; oldest: number }> {
  const by = new Map<string, { platform: string; channel_id: string; due: number; oldest: number }>();
  for (const r of rows) {
    if (r.state !== 'pending') continue;
    const key = `${r.platform}|${r.channel_id}`;
    const ch = by.get(key);
    if (!ch) by.set(key, { platform: r.platform, channel_id: r.channel_id, due: r.next_attempt_at, oldest: r.created_at });
    else ch.due = Math.min(ch.due, r.next_attempt_at);
  }
  return [...by.values()];
}

const byChannel = (a: { platform: string; channel_id: string }, b: { platform: string; channel_id: string }) =>
  `${a.platform}|${a.channel_id}`.localeCompare(`${b.platform}|${b.channel_id}`);

describe.each(ENGINES)('the pending channels of the outbox, on %s', (engine) => {
  let db: AnyDb;
  const rows = outbox();
  beforeAll(async () => {
    db = await openTestDb(engine);
    await insert(db, rows);
  });
  afterAll(async () => {
    await db.close();
  });

  it('gives each channel with pending rows, its earliest due time and its oldest row, and no other channel', async () => {
    const store = new NotifyStore(db);
    // Both engines give numbers (PostgreSQL's bigint is parsed as one: store/sql/postgres.ts).
    const found = await store.pendingChannels();
    expect(found.sort(byChannel)).toEqual(expected(rows).sort(byChannel));
    expect(found.find((c) => c.channel_id === 'C1')).toEqual({ platform: 'slack', channel_id: 'C1', due: 10_005, oldest: 10_000 });
    // The depth counts the held rows too, and nothing sent.
    expect(await store.depth()).toBe(3000 + 20);
  });

  it('is an empty list when nothing is pending', async () => {
    const empty = await openTestDb(engine);
    try {
      await insert(
        empty,
        rows.filter((r) => r.state !== 'pending'),
      );
      expect(await new NotifyStore(empty).pendingChannels()).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('reads a few index entries per channel, not the 3,000 pending rows', async () => {
    const noted = notingStatements(db);
    await new NotifyStore(noted.db).pendingChannels();
    const [sql] = noted.seen;
    if (engine === 'postgres') {
      // The rows each scan of notify_outbox read, over all its loops, as PostgreSQL counted them.
      await db.run('ANALYZE notify_outbox');
      const [plan] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`);
      const read = rowsRead(plan['QUERY PLAN'], 'notify_outbox');
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(100);
    } else {
      // SQLite counts no rows: its plan shows the reads. The first channel is the first entry
      // of the pending range (LIMIT 1); every later step, and each channel's due time and oldest
      // row, is an index search bounded by the channel. A GROUP BY over every pending row is a
      // walk of the whole range instead (notify_outbox_state (state=?) with no alias).
      const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)).map((p) => p.detail);
      expect(plan.filter((d) => /^(SEARCH|SCAN) (?!ch$|first_channel$)/.test(d))).toEqual([
        'SEARCH s USING COVERING INDEX notify_outbox_state (state=?)',
        'SEARCH o USING INTEGER PRIMARY KEY (rowid=?)',
        'SEARCH n USING COVERING INDEX notify_outbox_state (state=? AND platform=? AND channel_id>?)',
        'SEARCH n USING COVERING INDEX notify_outbox_state (state=? AND platform>?)',
        'SEARCH d USING COVERING INDEX notify_outbox_pending_due (platform=? AND channel_id=?)',
        'SEARCH f USING INDEX notify_outbox_state (state=? AND platform=? AND channel_id=?)',
      ]);
    }
  });
});

/** The rows that the plan's scans of `relation` read (returned or filtered out), summed over their loops. */
function rowsRead(plan: unknown, relation: string): number {
  let sum = 0;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const n = node as Record<string, unknown>;
    // What a scan gave, and what it read and dropped (a scan that filters rows it does not give reads them too).
    if (n['Relation Name'] === relation)
      sum += (Number(n['Actual Rows']) + Number(n['Rows Removed by Filter'] ?? 0)) * Number(n['Actual Loops']);
    for (const v of Object.values(n)) if (typeof v === 'object') visit(v);
  };
  visit(plan);
  return sum;
}
