/**
 * Entry point: the requester's click that goes on with an approved request which waited for
 * their secrets (fields `afterApproval`, never kept while it waited). Only the requester, once,
 * before it expires, for a request still approved; then every step again: their role is checked
 * again, the dialog asks for those fields only, and step 9 claims the continuation.
 */
import { UserError } from '../../vocabulary/index.js';
import { actorKey } from '../../access/index.js';
import type { Actor, Place } from '../../vocabulary/index.js';
import type { Invocation, Reply } from '../types.js';
import type { AnyCommand } from '../types.js';
import { newAttempt, whoOf, type Pipeline } from './attempt.js';
import { failAttempt } from './record-outcome.js';
import { runSteps } from './run-steps.js';

type Click = Extract<Invocation, { via: 'button' }>;

export async function continueClick(
  inv: Click,
  p: Pipeline,
  args: Record<string, string>,
  commandNamed: (path: string) => AnyCommand,
): Promise<Reply> {
  const a = newAttempt(inv, 'button', p);
  try {
    const row = await p.confirmations.get(args.id ?? '');
    if (!row) throw new UserError('approval_unknown', 'This approved request is no longer known.', 'Run the command again.');
    a.def = commandNamed(row.path);
    a.args = JSON.parse(row.argsJson) as Record<string, string>;
    const requester = JSON.parse(row.requesterJson) as Actor;
    if (actorKey(inv.actor) !== row.requesterKey) {
      throw new UserError(
        'confirmation_wrong_user',
        `Only ${whoOf(requester)}, who asked for \`${row.path}\`, can go on with it.`,
        'Nothing for you to do here.',
      );
    }
    if (row.usedAt !== null)
      throw new UserError('approval_used', 'This approved request already ran; it runs once.', 'Nothing more to do.');
    if (p.now() > row.expiresAt) {
      await p.confirmations.claim(row.id, p.now(), 'expired');
      throw new UserError(
        'approval_expired',
        'This approved request waited too long and expired; nothing was done.',
        'Run the command again.',
      );
    }
    a.actor = requester;
    a.place = JSON.parse(row.placeJson) as Place;
    a.continuation = { id: row.id, approval: args.approval ?? '', approvedBy: args.approved_by ?? 'a second person' };
    a.auditExtra = { approved_by: a.continuation.approvedBy, approval: a.continuation.approval };
  } catch (e) {
    return await failAttempt(p, a, e);
  }
  return runSteps(a, p);
}
