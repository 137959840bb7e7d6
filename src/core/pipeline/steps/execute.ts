/** Step 10: the command's handler. Its result becomes the reply that the audit step gives out. */
import type { Message } from '../../message.js';
import type { CommandContext, HandlerResult, Reply } from '../../types.js';
import { commandOf, type Attempt, type Pipeline, type Step } from '../attempt.js';
import { failAttempt } from '../record-outcome.js';

export const execute: Step = async (a, p) => {
  const def = commandOf(a);
  const ctx: CommandContext<Record<string, unknown>> = { args: a.parsed ?? {}, actor: a.actor, place: a.place, node: a.node, services: p.services, secrets: a.secrets };
  try {
    const result = await def.handler(ctx);
    if (def.mutates) p.nodes.invalidate();
    a.reply = toReply(p, a, result);
    return undefined;
  } catch (e) {
    if (def.mutates) p.nodes.invalidate();
    return failAttempt(p, a, e, { replaceOriginal: a.replaceOriginal, visibility: a.replaceOriginal ? 'channel' : 'private' });
  }
};

function toReply(p: Pipeline, a: Attempt, result: HandlerResult): Reply {
  const replace = a.replaceOriginal ? { replaceOriginal: true as const } : {};
  if (result && typeof result === 'object' && 'kind' in result) {
    if (result.kind !== 'message') return result;
    const r: Reply = { ...result, message: p.buttons.prepare(result.message) };
    return r.visibility === 'channel' ? { ...r, ...replace } : r;
  }
  return { kind: 'message', message: p.buttons.prepare(result as Message), visibility: 'channel', ...replace };
}
