/**
 * Step 7: the button confirmation. Typed or clicked: a command that needs one asks with
 * Confirm/Cancel and the attempt ends there. The Confirm click comes back through every step
 * before this one, and here claims the confirmation (once). A submitted dialog was the
 * confirmation already.
 */
import type { Field } from '../../../vocabulary/index.js';
import { msg } from '../../../vocabulary/index.js';
import { UserError } from '../../../vocabulary/index.js';
import { redactArgs } from '../../inline-secret.js';
import { statusBadge } from '../../../vocabulary/index.js';
import type { Reply } from '../../types.js';
import { contextOf, commandOf, whoOf, type Attempt, type Pipeline, type Step } from '../attempt.js';
import { commandLine, ttlText } from '../command-line.js';
import { recordOutcome } from '../record-outcome.js';
import { alreadyPending } from './require-approval.js';

/** Internal button commands (not in the user registry). Args: `{ id: <confirmation id> }`. */
export const CONFIRM_COMMAND = '__confirm';
export const CANCEL_COMMAND = '__cancel';

export const confirm: Step = async (a, p) => {
  if (a.confirmation) {
    if (!(await p.confirmations.claim(a.confirmation.id, p.now(), 'confirmed'))) {
      return new UserError('confirmation_used', 'This confirmation was already used.', 'Run the command again if you need it.');
    }
    return undefined;
  }
  // The requester confirmed before asking for the approval; the approval is the second confirmation.
  if (a.submission || a.approval || commandOf(a).confirm !== 'button') return undefined;
  return askConfirmation(a, p);
};

async function askConfirmation(a: Attempt, p: Pipeline): Promise<Reply | UserError> {
  const def = commandOf(a);
  const rule =
    def.approvalCovers && !def.approvalCovers(a.parsed ?? {}) ? undefined : await p.services.policy.approvalNeeded(def.path, a.spend);
  if (rule) {
    const pending = await alreadyPending(a, p);
    if (pending) return pending;
  }
  // What will happen, in the command's own words (amount, payee…), before anything is stored.
  const preview = def.preview ? await def.preview(contextOf(a, p)) : [];
  const id = await p.confirmations.create({ actor: a.actor, place: a.place, path: def.path, args: a.args, ttlMs: p.confirmTtlMs });
  const fields: Field[] = [{ label: 'Command', value: commandLine(p.registry, def, redactArgs(def, a.args)) }];
  if (a.node) fields.push({ label: 'Node', value: `${a.node.name} (${statusBadge(String(a.node.status))})` });
  fields.push(...preview);
  // What is known before anything runs: the day's limit left after it, and whether a second person will be needed.
  if (a.spend) {
    const left = await p.services.policy.leftAfter(a.actor, a.spend);
    if (left.length) fields.push({ label: 'Daily limit', value: left.join('; ') });
  }
  if (rule)
    fields.push({
      label: 'Second person',
      value: `needed: ${rule}. Confirming posts a request that another person with the role must approve.`,
    });
  fields.push({ label: 'Requested by', value: whoOf(a.actor) });
  const message = await p.buttons.prepare(
    {
      header: `Confirm: ${def.path}${a.node ? ` ${a.node.name}` : ''}?`,
      tone: 'warning',
      blocks: [
        msg.text(`${def.summary}. Nothing happens until it is confirmed.`),
        msg.fields(fields),
        msg.context(`Only ${whoOf(a.actor)} can confirm, within ${ttlText(p.confirmTtlMs)}.`),
      ],
      buttons: [
        { label: 'Confirm', style: 'danger', command: CONFIRM_COMMAND, args: { id } },
        // The command's other ways to run (each runs it again with these arguments added).
        ...(def.confirmChoices?.(a.parsed ?? {}) ?? []).map((c) => ({
          label: c.label,
          style: 'primary' as const,
          command: def.path,
          args: { ...a.args, ...c.args },
        })),
        { label: 'Cancel', style: 'secondary', command: CANCEL_COMMAND, args: { id } },
      ],
      summary: `Confirm ${def.path}? (requested by ${whoOf(a.actor)})`,
    },
    { ttlMs: Math.max(p.confirmTtlMs * 2, 24 * 3600_000) },
  );
  await recordOutcome(p, a, 'confirm');
  return { kind: 'message', message, visibility: 'channel' };
}
