/**
 * Step 10: the command's handler. Its result becomes the reply that the audit step gives out.
 * A spend is first reserved against the actor's daily limits in one transaction (the limit
 * re-checked atomically: two sends, on any replicas, cannot both take its last part), and released if
 * the handler fails, or when it says the payment failed (`ctx.releaseSpend`).
 */
import { msg, type Message } from '../../../vocabulary/index.js';
import { actorKey } from '../../../access/index.js';
import type { HandlerResult, Reply } from '../../types.js';
import { commandOf, contextOf, whoOf, type Attempt, type Pipeline, type Step } from '../attempt.js';
import { failAttempt } from '../record-outcome.js';

export const execute: Step = async (a, p) => {
  const def = commandOf(a);
  let reserved = a.spend ? await p.services.policy.reserve(a.actor, def.path, a.spend) : [];
  const releaseSpend = async () => {
    const ids = reserved;
    reserved = [];
    await p.services.policy.release(ids);
  };
  // No shared reads: the handler acts on what the node says now, not on what the checks read.
  const ctx = contextOf(a, p, { secrets: a.secrets, reads: undefined, ...(reserved.length ? { releaseSpend } : {}) });
  try {
    const result = await def.handler(ctx);
    if (def.mutates) p.nodes.invalidate();
    a.reply = await toReply(p, a, result);
    return undefined;
  } catch (e) {
    if (def.mutates) p.nodes.invalidate();
    try {
      await releaseSpend();
    } catch (err) {
      p.logger.error({ err, command: def.path }, 'could not release a spend reservation');
    }
    return failAttempt(p, a, e, { replaceOriginal: a.replaceOriginal, visibility: a.replaceOriginal ? 'channel' : 'private' });
  }
};

async function toReply(p: Pipeline, a: Attempt, result: HandlerResult): Promise<Reply> {
  const replace = a.replaceOriginal ? { replaceOriginal: true as const } : {};
  if (result && typeof result === 'object' && 'kind' in result) {
    if (result.kind !== 'message') return result;
    const r: Reply = { ...result, message: await p.buttons.prepare(signed(a, result.message)) };
    return r.visibility === 'channel' ? { ...r, ...replace } : r;
  }
  return { kind: 'message', message: await p.buttons.prepare(signed(a, result)), visibility: 'channel', ...replace };
}

/** An approved request's answer says who asked and who approved. */
function signed(a: Attempt, m: Message): Message {
  const approver = a.approval
    ? `${whoOf(a.approval.approver)} (${actorKey(a.approval.approver)})`
    : a.continuation
      ? a.continuation.approvedBy
      : undefined;
  if (!approver) return m;
  const line = `Requested by ${whoOf(a.actor)} (${actorKey(a.actor)}), approved by ${approver}.`;
  return { ...m, blocks: [...m.blocks, msg.context(line)] };
}
