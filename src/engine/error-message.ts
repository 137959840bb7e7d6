/**
 * Turns anything thrown into a message the user can act on. A UserError is shown as is; a
 * service or node API error shows its status, message and a hint; anything else is a bug:
 * "Something went wrong (ref …)", with the stack only in the log.
 */
import { randomBytes } from 'node:crypto';
import type { Message } from '../vocabulary/index.js';
import { msg } from '../vocabulary/index.js';
import { isUserError, type UserErrorCode } from '../vocabulary/index.js';
import { redactText } from '../log.js';

const TITLES: Record<UserErrorCode, string> = {
  invalid_arguments: 'Invalid arguments',
  unknown_command: 'Unknown command',
  unknown_node: 'Unknown node',
  forbidden: 'Not allowed',
  confirmation_expired: 'Confirmation expired',
  confirmation_used: 'Confirmation already used',
  button_expired: 'Button expired',
  dialog_expired: 'Dialog expired',
  dialog_used: 'Dialog already submitted',
  wrong_state: 'Not now',
  confirmation_wrong_user: 'Not your confirmation',
  confirmation_mismatch: 'Confirmation refused',
  secret_inline: 'Secret refused',
  service_error: 'Hosting service error',
  node_error: 'Node API error',
  not_configured: 'Not configured',
  conflict: 'Conflict',
  limit_exceeded: 'Over the daily limit',
  approval_unknown: 'Unknown request',
  approval_used: 'Request already closed',
  approval_own: 'Not your own request',
  approval_expired: 'Request expired',
};

export interface ErrorOutcome {
  message: Message;
  /** refused: the user was not allowed / did not confirm; failed: anything else. */
  outcome: 'refused' | 'failed';
  /** Short reason for the audit trail and metrics (no secrets, no stack). */
  reason: string;
  /** Set for unexpected errors: log the stack with this reference. */
  ref?: string;
}

const REFUSED: UserErrorCode[] = [
  'forbidden',
  'confirmation_expired',
  'confirmation_used',
  'button_expired',
  'dialog_expired',
  'dialog_used',
  'wrong_state',
  'confirmation_wrong_user',
  'confirmation_mismatch',
  'secret_inline',
  'limit_exceeded',
  'approval_used',
  'approval_own',
  'approval_expired',
];

/** Service/node API errors are recognised by shape, so the engine does not depend on those rooms. */
interface RemoteErrorLike {
  message: string;
  hint?: string;
  status?: number;
  endpoint?: string;
  rlnName?: string;
  serviceMessage?: string;
  name?: string;
}

function isRemoteError(e: unknown): e is RemoteErrorLike {
  if (!(e instanceof Error)) return false;
  const x = e as unknown as Record<string, unknown>;
  return (
    typeof x.hint === 'string' ||
    typeof x.endpoint === 'string' ||
    typeof x.rlnName === 'string' ||
    (typeof x.status === 'number' && (e.name === 'ServiceError' || e.name === 'NodeApiError'))
  );
}

const NODE_HINTS: Record<string, (node: string) => string> = {
  LockedNode: (n) => `The node is locked: run \`/rln node unlock ${n}\` (a private dialog asks for the password).`,
  NotInitialized: (n) => `The node's wallet is not initialized: run \`/rln node init ${n}\`.`,
  UnlockedNode: (n) => `The node is unlocked: run \`/rln node lock ${n}\` first.`,
  WrongPassword: () => 'The password was wrong: run the command again and type the node password in the dialog.',
};

export function errorMessage(e: unknown, ctx: { path?: string; node?: string } = {}): ErrorOutcome {
  if (isUserError(e)) {
    // A handler's UserError may quote what a node or the service said (a backup that failed):
    // secrets typed in the dialog are masked here too, for the reply and the audit reason.
    const text = redactText(e.message);
    const blocks = [msg.text(text)];
    if (e.hint) blocks.push(msg.context(redactText(e.hint)));
    return {
      message: { header: TITLES[e.code] ?? 'Error', tone: 'danger', blocks, summary: text },
      outcome: REFUSED.includes(e.code) ? 'refused' : 'failed',
      reason: `${e.code}: ${text}`.slice(0, 300),
    };
  }
  if (isRemoteError(e)) {
    const node = ctx.node ?? '<node>';
    const isNode = typeof e.rlnName === 'string' || e.name === 'NodeApiError';
    const status = typeof e.status === 'number' ? ` (HTTP ${e.status})` : '';
    const header = isNode ? `Node API error${e.rlnName ? `: ${e.rlnName}` : ''}${status}` : `Hosting service error${status}`;
    // Hints written for any node say `<node>`: name the node the command was about.
    const hint = (e.rlnName && NODE_HINTS[e.rlnName]?.(node)) || (e.hint && ctx.node ? e.hint.replaceAll('<node>', ctx.node) : e.hint);
    let raw = e.serviceMessage ?? e.message;
    if (!e.serviceMessage && e.hint && raw.endsWith(e.hint)) raw = raw.slice(0, -e.hint.length).trim();
    const what = redactText(raw);
    const fields = [] as { label: string; value: string; inline?: boolean }[];
    if (e.endpoint) fields.push({ label: 'Endpoint', value: e.endpoint, inline: true });
    if (typeof e.status === 'number') fields.push({ label: 'Status', value: String(e.status), inline: true });
    const blocks = [msg.text(ctx.path ? `\`${ctx.path}\` failed: ${what}` : what)];
    if (fields.length) blocks.push(msg.fields(fields));
    if (hint) blocks.push(msg.context(redactText(hint)));
    return {
      message: { header, tone: 'danger', blocks, summary: `${header}: ${what}` },
      outcome: 'failed',
      reason: `${header}: ${what}`.slice(0, 300),
    };
  }
  const ref = randomBytes(3).toString('hex').toUpperCase();
  return {
    message: {
      header: 'Something went wrong',
      tone: 'danger',
      blocks: [
        msg.text(`Something went wrong (ref ${ref}).`),
        msg.context("This is a bug, not something you did. Tell the bot's operators the reference; the details are in the log."),
      ],
      summary: `Something went wrong (ref ${ref})`,
    },
    outcome: 'failed',
    reason: `internal error (ref ${ref})`,
    ref,
  };
}
