/**
 * Entry point: a click on an approval request's Approve. Only what belongs to the click is checked
 * here (the request is known, still open, not expired, not the requester's own); then the
 * requester's attempt runs every step again with the approver beside it (`a.approval`): the
 * approver's role and scope at step 4, the requester's spend limit at step 8, the claim at step 9.
 */
import { UserError } from '../../vocabulary/index.js';
import { msg } from '../../vocabulary/index.js';
import { actorKey } from '../../access/index.js';
import type { Actor } from '../../vocabulary/index.js';
import type { Invocation, Reply } from '../types.js';
import type { AnyCommand } from '../types.js';
import { newAttempt, whoOf, type Attempt, type Pipeline } from './attempt.js';
import { commandLine } from './command-line.js';
import { failAttempt } from './record-outcome.js';
import { runSteps } from './run-steps.js';

type Click = Extract<Invocation, { via: 'button' }>;

export async function approveClick(inv: Click, p: Pipeline, id: string, commandNamed: (path: string) => AnyCommand): Promise<Reply> {
  const a = newAttempt(inv, 'button', p);
  const approvals = p.services.policy.approvals;
  try {
    const req = await approvals.get(id);
    if (!req)
      throw new UserError('approval_unknown', 'This approval request is no longer known.', 'Ask the requester to run the command again.');
    a.def = commandNamed(req.path);
    a.args = req.args;
    if (req.state !== 'pending') {
      const by = req.decidedBy ? ` by ${req.decidedBy}` : '';
      throw new UserError('approval_used', `This request was already ${req.state}${by}; it runs once at most.`, 'Nothing more to do.');
    }
    // One person with two chat accounts linked (`access link`) is still one person.
    if (await p.services.access.samePerson(actorKey(inv.actor), req.requesterKey)) {
      throw new UserError(
        'approval_own',
        `You asked for \`${req.path}\`: someone else must approve it.`,
        'Ask another person with the role for it to approve it, or reject it to withdraw.',
      );
    }
    if (p.now() > req.expiresAt) {
      await approvals.expire(id);
      const e = new UserError(
        'approval_expired',
        `This request expired at ${new Date(req.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC; nothing was done.`,
        `Ask ${whoOf(req.requester)} to run it again if it is still needed.`,
      );
      return await expiredReply(p, a, e, req.requester);
    }
    // From here the attempt is the requester's: their command, their spend; the approver is beside it.
    a.actor = req.requester;
    a.place = req.place;
    a.approval = { id, approver: inv.actor };
    a.auditExtra = { approved_by: actorKey(inv.actor), approval: id };
    a.replaceOriginal = true;
  } catch (e) {
    return await failAttempt(p, a, e);
  }
  return runSteps(a, p);
}

/** The request is replaced by what happened: expired, nothing done, who asked. */
async function expiredReply(p: Pipeline, a: Attempt, e: UserError, requester: Actor): Promise<Reply> {
  await failAttempt(p, a, e);
  const def = a.def!;
  return {
    kind: 'message',
    visibility: 'channel',
    replaceOriginal: true,
    message: {
      header: `Expired: ${def.path}`,
      tone: 'neutral',
      blocks: [
        msg.text(`${e.message}`),
        msg.context(`${commandLine(p.registry, def, a.args)}, requested by ${whoOf(requester)} (${actorKey(requester)}).`),
      ],
    },
  };
}
