/**
 * What core_confirmations, core_dialogs and core_approvals all keep of a command that waits for
 * something (a click, a dialog's submission, a second person's decision): who asked it, where,
 * the command and its arguments, and until when it waits. Each table adds its own columns.
 */

export interface PendingCommandRow {
  id: string;
  requesterJson: string;
  /** `platform:userId` of the requester. */
  requesterKey: string;
  placeJson: string;
  path: string;
  argsJson: string;
  createdAt: number;
  expiresAt: number;
}

/** Those columns, for an INSERT's column list, with `PENDING_VALUES` and `pendingParams` for its values. */
export const PENDING_COLUMNS = 'id, requester_json, requester_key, place_json, path, args_json, created_at, expires_at';
export const PENDING_VALUES = '@id, @requesterJson, @requesterKey, @placeJson, @path, @argsJson, @createdAt, @expiresAt';

/** Those columns, for a SELECT, named as the row's fields. */
export const PENDING_SELECT = `id, requester_json AS "requesterJson", requester_key AS "requesterKey", place_json AS "placeJson", path,
  args_json AS "argsJson", created_at AS "createdAt", expires_at AS "expiresAt"`;

/** The named parameters of `PENDING_VALUES`, and nothing else of `row`. */
export function pendingParams(row: PendingCommandRow): Record<keyof PendingCommandRow, unknown> {
  const { id, requesterJson, requesterKey, placeJson, path, argsJson, createdAt, expiresAt } = row;
  return { id, requesterJson, requesterKey, placeJson, path, argsJson, createdAt, expiresAt };
}
