/**
 * The approval policy and spend limits changed at run time (`policy set`), and the spend ledger
 * that limits are counted against (core_policy_rules, core_spend_ledger).
 */
import type { AnyDb } from './database.js';

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
  rules(): Promise<PolicyRuleRow[]>;
  putRule(row: PolicyRuleRow): Promise<void>;
  /**
   * Inside one transaction: for each row, what `who` spent in its `unit` on its `day`; when `allow`
   * says yes to every one, the rows are added. Returns their ids, or the first row refused.
   * Two reservations for the same who, day and unit never interleave, on one replica or several.
   */
  reserve(
    rows: SpendRow[],
    allow: (row: SpendRow, spent: number) => boolean,
  ): Promise<{ ids: number[] } | { refused: SpendRow; spent: number }>;
  release(id: number): Promise<void>;
  spent(who: string, day: string): Promise<Array<{ unit: string; amount: number }>>;
}

export function createPolicyStore(db: AnyDb): PolicyStore {
  return {
    rules: () =>
      db.all<PolicyRuleRow>(
        'SELECT kind, subject, unit, amount, off, set_by AS "setBy", set_at AS "setAt" FROM core_policy_rules ORDER BY kind, subject, unit',
      ),
    putRule: async (row) => {
      await db.run(
        `INSERT INTO core_policy_rules (kind, subject, unit, amount, off, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (kind, subject, unit) DO UPDATE SET amount = excluded.amount, off = excluded.off, set_by = excluded.set_by, set_at = excluded.set_at`,
        [row.kind, row.subject, row.unit, row.amount, row.off, row.setBy, row.setAt],
      );
    },
    reserve: (rows, allow) =>
      db.tx(async () => {
        if (db.engine === 'postgres') {
          // READ COMMITTED lets two transactions both read the sum before either inserts: each
          // (who, day, unit) is locked until commit, so the second reads the first's row. Sorted,
          // so two reservations of several units take their locks in one order (no deadlock).
          // SQLite's transaction (BEGIN IMMEDIATE) is already exclusive.
          const keys = [...new Set(rows.map((r) => `spend|${r.who}|${r.day}|${r.unit}`))].sort();
          for (const k of keys) await db.run('SELECT pg_advisory_xact_lock(hashtext(?))', [k]);
        }
        for (const row of rows) {
          const spent = Number(
            (await db.value<number>('SELECT COALESCE(SUM(amount), 0) FROM core_spend_ledger WHERE who = ? AND day = ? AND unit = ?', [
              row.who,
              row.day,
              row.unit,
            ])) ?? 0,
          );
          if (!allow(row, spent)) return { refused: row, spent };
        }
        const ids: number[] = [];
        for (const row of rows) {
          const r = await db.run(
            'INSERT INTO core_spend_ledger (who, unit, amount, day, at, path) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
            [row.who, row.unit, row.amount, row.day, row.at, row.path],
          );
          ids.push(Number(r.rows[0].id));
        }
        return { ids };
      }),
    release: async (id) => {
      await db.run('DELETE FROM core_spend_ledger WHERE id = ?', [id]);
    },
    spent: (who, day) =>
      db.all<{ unit: string; amount: number }>(
        'SELECT unit, SUM(amount) AS amount FROM core_spend_ledger WHERE who = ? AND day = ? GROUP BY unit ORDER BY unit',
        [who, day],
      ),
  };
}
