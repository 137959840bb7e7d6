/**
 * Errors that carry what the user needs. A UserError is something the user can act on
 * (shown in chat as is); anything else is a bug: the chat shows a short apology with a
 * reference, and the log gets the stack.
 */
export type UserErrorCode =
  | 'invalid_arguments'
  | 'unknown_command'
  | 'unknown_node'
  | 'forbidden'
  | 'confirmation_expired'
  | 'confirmation_used'
  | 'button_expired'
  | 'dialog_expired'
  | 'dialog_used'
  | 'wrong_state'
  | 'confirmation_wrong_user'
  | 'confirmation_mismatch'
  | 'secret_inline'
  | 'service_error'
  | 'node_error'
  | 'not_configured'
  | 'conflict'
  | 'limit_exceeded'
  | 'approval_unknown'
  | 'approval_used'
  | 'approval_own'
  | 'approval_expired';

export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    readonly code: UserErrorCode,
    /** What failed and why, one sentence. */
    message: string,
    /** What to do next, one sentence (optional). */
    readonly hint?: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}
