/** Approval requests by a second person (core_approvals): stored so they outlive a restart and are claimed once. */
import type { AnyDb } from './database.js';

export interface ApprovalRow {
  id: string;
  requesterJson: string;
  /** `platform:userId` of the requester. */
  requesterKey: string;
  placeJson: string;
  path: string;
  /** The arguments, never a secret (an approval never holds one). */
  argsJson: string;
  node: string | null;
  /** What the request message shows (fields), so a late click can still say what it was. */
  summaryJson: string;
  createdAt: number;
  expiresAt: number;
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

const COLUMNS = `id, requester_json AS "requesterJson", requester_key AS "requesterKey", place_json AS "placeJson", path, args_json AS "argsJson",
  node, summary_json AS "summaryJson", created_at AS "createdAt", expires_at AS "expiresAt", state, decided_by AS "decidedBy",
  decided_at AS "decidedAt", reason`;

export function createApprovalStore(db: AnyDb): ApprovalStore {
  return {
    insert: async (row) => {
      await db.run(
        `INSERT INTO core_approvals (id, requester_json, requester_key, place_json, path, args_json, node, summary_json, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [row.id, row.requesterJson, row.requesterKey, row.placeJson, row.path, row.argsJson, row.node, row.summaryJson, row.createdAt, row.expiresAt],
      );
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
      (await db.run(`UPDATE core_approvals SET state = 'expired', decided_at = ? WHERE id = ? AND state = 'pending'`, [at, id])).changes > 0,
    pending: (at) => db.all<ApprovalRow>(`SELECT ${COLUMNS} FROM core_approvals WHERE state = 'pending' AND expires_at >= ? ORDER BY created_at`, [at]),
  };
}
