/**
 * The approval policy and spend limits changed at run time (`policy set`), and the spend ledger
 * that limits are counted against (core_policy_rules, core_spend_ledger).
 */
import type { Db } from './database.js';

export interface PolicyRuleRow {
  kind: 'approval' | 'limit';
  /** approval: the command (`pay.send`); limit: a role (`operate`) or a principal (`slack:U1`). */
  subject: string;
  /** `sat`, an asset ticker, `*` (any asset) or `` (an approval with no threshold). */
  unit: string;
  amount: number | null;
  /** 1: this rule is switched off (it hides the same rule from the environment). */
  off: number;
  setBy: string;
  setAt: string;
}

export interface SpendRow {
  who: string;
  unit: string;
  amount: number;
  day: string;
  at: number;
  path: string;
}

export interface PolicyStore {
  rules(): PolicyRuleRow[];
  putRule(row: PolicyRuleRow): void;
  /**
   * Inside one transaction: for each row, what `who` spent in its `unit` on its `day`; when `allow`
   * says yes to every one, the rows are added. Returns their ids, or the first row refused.
   */
  reserve(rows: SpendRow[], allow: (row: SpendRow, spent: number) => boolean): { ids: number[] } | { refused: SpendRow; spent: number };
  release(id: number): void;
  spent(who: string, day: string): Array<{ unit: string; amount: number }>;
}

export function createPolicyStore(db: Db): PolicyStore {
  const rulesQ = db.prepare(
    'SELECT kind, subject, unit, amount, off, set_by AS setBy, set_at AS setAt FROM core_policy_rules ORDER BY kind, subject, unit',
  );
  const putQ = db.prepare(
    `INSERT INTO core_policy_rules (kind, subject, unit, amount, off, set_by, set_at) VALUES (@kind, @subject, @unit, @amount, @off, @setBy, @setAt)
     ON CONFLICT (kind, subject, unit) DO UPDATE SET amount = excluded.amount, off = excluded.off, set_by = excluded.set_by, set_at = excluded.set_at`,
  );
  const sumQ = db.prepare('SELECT COALESCE(SUM(amount), 0) FROM core_spend_ledger WHERE who = ? AND day = ? AND unit = ?').pluck();
  const insertQ = db.prepare('INSERT INTO core_spend_ledger (who, unit, amount, day, at, path) VALUES (@who, @unit, @amount, @day, @at, @path)');
  const deleteQ = db.prepare('DELETE FROM core_spend_ledger WHERE id = ?');
  const spentQ = db.prepare('SELECT unit, SUM(amount) AS amount FROM core_spend_ledger WHERE who = ? AND day = ? GROUP BY unit ORDER BY unit');
  // better-sqlite3 runs a transaction synchronously: no other reservation interleaves with it.
  const reserveTx = db.transaction((rows: SpendRow[], allow: (row: SpendRow, spent: number) => boolean) => {
    for (const row of rows) {
      const spent = Number(sumQ.get(row.who, row.day, row.unit));
      if (!allow(row, spent)) return { refused: row, spent };
    }
    return { ids: rows.map((row) => Number(insertQ.run(row).lastInsertRowid)) };
  });
  return {
    rules: () => rulesQ.all() as PolicyRuleRow[],
    putRule: (row) => void putQ.run(row),
    reserve: (rows, allow) => reserveTx.immediate(rows, allow),
    release: (id) => void deleteQ.run(id),
    spent: (who, day) => spentQ.all(who, day) as Array<{ unit: string; amount: number }>,
  };
}
