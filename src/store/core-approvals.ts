/** Approval requests by a second person (core_approvals): stored so they outlive a restart and are claimed once. */
import type { AnyDb } from './database.js';
import { PENDING_COLUMNS, PENDING_SELECT, PENDING_VALUES, pendingParams, type PendingCommandRow } from './core-pending-commands.js';

/** Its `argsJson` never holds a secret (an approval never holds one). */
export interface ApprovalRow extends PendingCommandRow {
  node: string | null;
  /** What the request message shows (fields), so a late click can still say what it was. */
  summaryJson: string;
  state: 'pending' | 'approved' | 'rejected' | 'expired';
  decidedBy: string | null;
  decidedAt: number | null;
  reason: string | null;
}

export interface ApprovalStore {
  insert(row: Omit<ApprovalRow, 'state' | 'decidedBy' | 'decidedAt' | 'reason'>): Promise<void>;
  get(id: string): Promise<ApprovalRow | undefined>;
  /** Moves a pending, unexpired request to `state`; false when another click (or the clock) got there first. */
  decide(id: string, state: 'approved' | 'rejected', by: string, at: number, reason?: string): Promise<boolean>;
  /** Marks a pending request whose time is up as expired; false when it was not pending. */
  expire(id: string, at: number): Promise<boolean>;
  pending(at: number): Promise<ApprovalRow[]>;
}

const COLUMNS = `${PENDING_SELECT}, node, summary_json AS "summaryJson", state, decided_by AS "decidedBy", decided_at AS "decidedAt", reason`;

export function createApprovalStore(db: AnyDb): ApprovalStore {
  return {
    insert: async (row) => {
      await db.run(`INSERT INTO core_approvals (${PENDING_COLUMNS}, node, summary_json) VALUES (${PENDING_VALUES}, @node, @summaryJson)`, {
        ...pendingParams(row),
        node: row.node,
        summaryJson: row.summaryJson,
      });
    },
    get: (id) => db.get<ApprovalRow>(`SELECT ${COLUMNS} FROM core_approvals WHERE id = ?`, [id]),
    // One UPDATE guarded by the state: of two concurrent clicks (on one replica or several), exactly one changes the row.
    decide: async (id, state, by, at, reason) =>
      (
        await db.run(
          `UPDATE core_approvals SET state = ?, decided_by = ?, decided_at = ?, reason = ?
           WHERE id = ? AND state = 'pending' AND expires_at >= ?`,
          [state, by, at, reason ?? null, id, at],
        )
      ).changes > 0,
    expire: async (id, at) =>
      (await db.run(`UPDATE core_approvals SET state = 'expired', decided_at = ? WHERE id = ? AND state = 'pending'`, [at, id])).changes >
      0,
    pending: (at) =>
      db.all<ApprovalRow>(`SELECT ${COLUMNS} FROM core_approvals WHERE state = 'pending' AND expires_at >= ? ORDER BY created_at`, [at]),
  };
}
