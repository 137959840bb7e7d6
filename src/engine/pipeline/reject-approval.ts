/**
 * Reject on an approval request: a button that opens a short dialog for the reason, then closes
 * the request (once) with it. The requester may withdraw their own; anyone else needs what an
 * approver needs: the command's role, with a scope covering its node.
 */
import { z } from 'zod';
import { defineCommand, type AnyCommand } from '../types.js';
import { msg } from '../../vocabulary/index.js';
import { UserError } from '../../vocabulary/index.js';
import { actorKey } from '../../access/index.js';
import { REJECT_COMMAND } from './steps/require-approval.js';

export const rejectApprovalCommand: AnyCommand = defineCommand({
  path: REJECT_COMMAND,
  summary: 'Reject a request for approval',
  example: '(the Reject button of an approval request)',
  args: z.object({
    id: z.string().min(1),
    reason: z.string().trim().max(300).optional(),
  }),
  nodeArg: false,
  role: 'read',
  confirm: 'none',
  // Audited by the handler as `approval reject`, under the command it was for.
  mutates: false,
  secrets: [
    { name: 'reason', label: 'Why reject it?', kind: 'text', required: false, hint: 'Shown in the channel and kept in the audit trail.' },
  ],
  dialog: { title: 'Reject the request', submitLabel: 'Reject' },
  async handler(ctx) {
    const { approvals } = ctx.services.policy;
    const req = await approvals.get(ctx.args.id);
    if (!req) throw new UserError('approval_unknown', 'This approval request is no longer known.');
    const own = actorKey(ctx.actor) === req.requesterKey;
    const def = ctx.services.commands.get(req.path);
    if (
      !own &&
      !(
        def &&
        (await ctx.services.access.has(ctx.actor, ctx.services.commands.roleOf(def), { node: req.node, channelId: req.place.channelId }))
      )
    ) {
      throw new UserError(
        'forbidden',
        `Only ${req.requesterKey}, who asked, or someone who could approve \`${req.path}\`${req.node ? ` on ${req.node}` : ''} can reject it.`,
      );
    }
    if (req.state === 'pending' && ctx.services.now() > req.expiresAt) {
      await approvals.expire(req.id);
      throw new UserError('approval_expired', 'This request has expired already; nothing was done, and nothing will be.');
    }
    const reason = ctx.args.reason || (own ? 'withdrawn by the requester' : 'no reason given');
    if (!(await approvals.decide(req.id, 'rejected', ctx.actor, reason))) {
      const now = await approvals.get(req.id);
      throw new UserError(
        'approval_used',
        `This request was already ${now?.state ?? 'closed'}${now?.decidedBy ? ` by ${now.decidedBy}` : ''}.`,
      );
    }
    await ctx.services.audit.record({
      actor: ctx.actor,
      place: ctx.place,
      path: 'approval reject',
      node: req.node,
      args: { action: req.path.replace(/\s+/g, '.'), approval: req.id, requested_by: req.requesterKey },
      outcome: 'ok',
      reason,
    });
    const who = ctx.actor.displayName || ctx.actor.userId;
    return {
      header: `Rejected: ${req.path}${req.node ? ` ${req.node}` : ''}`,
      tone: 'neutral',
      blocks: [
        msg.text(`Rejected by ${who} (${actorKey(ctx.actor)}): ${reason}. Nothing was done.`),
        msg.fields(req.fields),
        msg.context(`Requested by ${req.requester.displayName || req.requester.userId} (${req.requesterKey}). Request ${req.id}.`),
      ],
    };
  },
});
