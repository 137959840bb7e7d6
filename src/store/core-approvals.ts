/** Approval requests by a second person (core_approvals): stored so they outlive a restart and are claimed once. */
import type { Db } from './database.js';

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
  insert(row: Omit<ApprovalRow, 'state' | 'decidedBy' | 'decidedAt' | 'reason'>): void;
  get(id: string): ApprovalRow | undefined;
  /** Moves a pending, unexpired request to `state`; false when another click (or the clock) got there first. */
  decide(id: string, state: 'approved' | 'rejected', by: string, at: number, reason?: string): boolean;
  /** Marks a pending request whose time is up as expired; false when it was not pending. */
  expire(id: string, at: number): boolean;
  pending(at: number): ApprovalRow[];
}

const COLUMNS = `id, requester_json AS requesterJson, requester_key AS requesterKey, place_json AS placeJson, path, args_json AS argsJson,
  node, summary_json AS summaryJson, created_at AS createdAt, expires_at AS expiresAt, state, decided_by AS decidedBy,
  decided_at AS decidedAt, reason`;

export function createApprovalStore(db: Db): ApprovalStore {
  const insertQ = db.prepare(
    `INSERT INTO core_approvals (id, requester_json, requester_key, place_json, path, args_json, node, summary_json, created_at, expires_at)
     VALUES (@id, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @node, @summaryJson, @createdAt, @expiresAt)`,
  );
  const getQ = db.prepare(`SELECT ${COLUMNS} FROM core_approvals WHERE id = ?`);
  // One UPDATE guarded by the state: of two concurrent clicks, exactly one changes the row.
  const decideQ = db.prepare(
    `UPDATE core_approvals SET state = @state, decided_by = @by, decided_at = @at, reason = @reason
     WHERE id = @id AND state = 'pending' AND expires_at >= @at`,
  );
  const expireQ = db.prepare(`UPDATE core_approvals SET state = 'expired', decided_at = ? WHERE id = ? AND state = 'pending'`);
  const pendingQ = db.prepare(`SELECT ${COLUMNS} FROM core_approvals WHERE state = 'pending' AND expires_at >= ? ORDER BY created_at`);
  return {
    insert: (row) => void insertQ.run(row),
    get: (id) => getQ.get(id) as ApprovalRow | undefined,
    decide: (id, state, by, at, reason) => decideQ.run({ id, state, by, at, reason: reason ?? null }).changes > 0,
    expire: (id, at) => expireQ.run(at, id).changes > 0,
    pending: (at) => pendingQ.all(at) as ApprovalRow[],
  };
}
