/** How an attempt's outcome is kept: the audit trail (changes only), metrics and the log. */
import { actorKey } from '../../access/index.js';
import { redactArgs } from '../inline-secret.js';
import { errorMessage } from '../error-message.js';
import type { Reply } from '../types.js';
import { typedNode, type Attempt, type Pipeline } from './attempt.js';

export async function recordOutcome(
  p: Pipeline,
  a: Attempt,
  outcome: string,
  o: { audit?: 'ok' | 'failed' | 'refused'; reason?: string; log?: Record<string, unknown> } = {},
): Promise<void> {
  const path = a.def?.path ?? 'unknown';
  if (o.audit && a.def?.mutates) {
    // A refused Approve click is the clicker's act: recorded under them, naming whose request it was.
    const refusedApproval = a.approval && o.audit === 'refused';
    const extra = refusedApproval ? { approval: a.approval!.id, requested_by: actorKey(a.actor) } : (a.auditExtra ?? {});
    try {
      await p.services.audit.record({
        actor: refusedApproval ? a.approval!.approver : a.actor,
        place: a.place,
        path,
        node: a.node?.name ?? typedNode(p, a),
        nodeId: a.node?.nodeId,
        args: { ...redactArgs(a.def, a.args), ...extra },
        outcome: o.audit,
        reason: o.reason,
      });
    } catch (e) {
      p.logger.error({ err: e, command: path }, 'could not write the audit record');
    }
  }
  try {
    p.metrics?.commands.inc({ command: path, outcome: o.audit ?? outcome });
  } catch {
    /* metrics never break a command */
  }
  p.logger.info(
    { command: path, via: a.via, actor: actorKey(a.actor), channel: a.place.channelId, node: a.node?.nodeId, outcome, ...(o.log ?? {}) },
    'command',
  );
}

/** Every failure ends here: a message the user can act on, then audit, metrics and log. */
export async function failAttempt(
  p: Pipeline,
  a: Attempt,
  e: unknown,
  o: { replaceOriginal?: boolean; visibility?: 'private' | 'channel'; audit?: boolean } = {},
): Promise<Reply> {
  const out = errorMessage(e, { path: a.def?.path, node: a.node?.name ?? typedNode(p, a) });
  if (out.ref) {
    p.logger.error({ err: e, ref: out.ref, command: a.def?.path ?? 'unknown', actor: actorKey(a.actor) }, 'command failed unexpectedly');
  }
  await recordOutcome(p, a, out.outcome, {
    ...(o.audit !== false ? { audit: out.outcome } : {}),
    reason: out.reason,
    log: { reason: out.ref ? `internal error (ref ${out.ref})` : out.reason },
  });
  return {
    kind: 'message',
    message: out.message,
    visibility: o.visibility ?? 'private',
    ...(o.replaceOriginal ? { replaceOriginal: true } : {}),
  };
}
