/**
 * Entry point: a button click. A stored button names a command (run through every step, as if
 * typed), a confirmation's Confirm or Cancel, or the "open the dialog" of a late state check.
 */
import { REPLACES_ARG, UserError } from '../../vocabulary/index.js';
import { actorKey, ROLE_RANK } from '../../access/index.js';
import { redactArgs } from '../inline-secret.js';
import { msg } from '../../vocabulary/index.js';
import type { Actor } from '../../vocabulary/index.js';
import type { Invocation, Reply } from '../types.js';
import type { AnyCommand } from '../types.js';
import { newAttempt, whoOf, type Attempt, type Pipeline } from './attempt.js';
import { commandLine, ttlText } from './command-line.js';
import { OPEN_DIALOG_COMMAND } from './in-time.js';
import { failAttempt, recordOutcome } from './record-outcome.js';
import { runSteps } from './run-steps.js';
import { CANCEL_COMMAND, CONFIRM_COMMAND } from './steps/confirm.js';
import { APPROVE_COMMAND, CONTINUE_COMMAND } from './steps/require-approval.js';
import { approveClick } from './from-approval.js';
import { continueClick } from './from-continue.js';

type Click = Extract<Invocation, { via: 'button' }>;

/** `internal` holds the commands only buttons run (`__incident_ack`). */
export async function fromClick(inv: Click, p: Pipeline, internal: Map<string, AnyCommand>): Promise<Reply> {
  const a = newAttempt(inv, 'button', p);
  const commandNamed = (path: string) => {
    const def = internal.get(path) ?? p.registry.get(path);
    if (!def) throw new UserError('unknown_command', `The command \`${path}\` no longer exists.`, 'Type `/rln help` for every command.');
    return def;
  };
  try {
    const button = await p.buttons.lookup(inv.buttonId);
    if (!button)
      throw new UserError(
        'button_expired',
        'This button has expired or is no longer known.',
        'Run the command again (`/rln help` lists them).',
      );
    if (button.command === CONFIRM_COMMAND) return await confirmClick(inv, p, button.args.id ?? '', commandNamed);
    if (button.command === CANCEL_COMMAND) return await cancelClick(inv, p, button.args.id ?? '', commandNamed);
    if (button.command === APPROVE_COMMAND) return await approveClick(inv, p, button.args.id ?? '', commandNamed);
    if (button.command === CONTINUE_COMMAND) return await continueClick(inv, p, button.args, commandNamed);
    if (button.command === OPEN_DIALOG_COMMAND) {
      a.def = commandNamed(button.args.path ?? '');
      a.args = JSON.parse(button.args.args ?? '{}') as Record<string, string>;
      a.checkAtSubmission = true;
    } else {
      a.def = commandNamed(button.command);
      const { [REPLACES_ARG]: replaces, ...args } = button.args;
      a.args = args;
      // A list's page button: the next page takes the place of the message clicked.
      if (replaces === 'true') a.replaceOriginal = true;
    }
  } catch (e) {
    return await failAttempt(p, a, e);
  }
  return runSteps(a, p);
}

/** The stored confirmation, its command and arguments, which it also gives the attempt. */
async function loadConfirmation(p: Pipeline, a: Attempt, id: string, commandNamed: (path: string) => AnyCommand) {
  const row = await p.confirmations.get(id);
  if (!row)
    throw new UserError(
      'confirmation_expired',
      'This confirmation is no longer known (it expired some time ago).',
      'Run the command again.',
    );
  const def = commandNamed(row.path);
  const args = JSON.parse(row.argsJson) as Record<string, string>;
  a.def = def;
  a.args = args;
  return { row, def, args, requester: JSON.parse(row.requesterJson) as Actor };
}

/** Confirm: only the requester, once, before it expires; then every step again, the confirmation claimed at its step. */
async function confirmClick(inv: Click, p: Pipeline, id: string, commandNamed: (path: string) => AnyCommand): Promise<Reply> {
  const a = newAttempt(inv, 'button', p);
  try {
    const { row, def, args, requester } = await loadConfirmation(p, a, id, commandNamed);
    const again = `\`${commandLine(p.registry, def, redactArgs(def, args))}\``;
    if (actorKey(inv.actor) !== row.requesterKey) {
      throw new UserError(
        'confirmation_wrong_user',
        `Only ${whoOf(requester)}, who asked for \`${def.path}\`, can confirm it.`,
        `Run ${again} yourself if you need it.`,
      );
    }
    if (row.usedAt !== null) {
      throw new UserError(
        'confirmation_used',
        `This confirmation was already used (${row.outcome ?? 'done'}).`,
        'Run the command again if you need it.',
      );
    }
    const t = p.now();
    if (t > row.expiresAt) {
      await p.confirmations.claim(id, t, 'expired');
      const e = new UserError(
        'confirmation_expired',
        `This confirmation expired after ${ttlText(p.confirmTtlMs)}; nothing was done.`,
        `Run ${again} again.`,
      );
      return await failAttempt(p, a, e, { replaceOriginal: true, visibility: 'channel' });
    }
  } catch (e) {
    return await failAttempt(p, a, e);
  }
  a.confirmation = { id };
  a.replaceOriginal = true;
  return runSteps(a, p);
}

/** Cancel: the requester or an admin; nothing runs, and the confirmation cannot be used afterwards. */
async function cancelClick(inv: Click, p: Pipeline, id: string, commandNamed: (path: string) => AnyCommand): Promise<Reply> {
  const a = newAttempt(inv, 'button', p);
  try {
    const { row, def, args, requester } = await loadConfirmation(p, a, id, commandNamed);
    const isAdmin = ROLE_RANK[await p.services.access.roleOf(inv.actor)] >= ROLE_RANK.admin;
    if (actorKey(inv.actor) !== row.requesterKey && !isAdmin) {
      throw new UserError('confirmation_wrong_user', `Only ${whoOf(requester)}, who asked for \`${def.path}\`, or an admin can cancel it.`);
    }
    if (!(await p.confirmations.claim(id, p.now(), 'cancelled'))) {
      throw new UserError('confirmation_used', `This confirmation was already used (${row.outcome ?? 'done'}).`);
    }
    await recordOutcome(p, a, 'cancelled', { audit: 'refused', reason: `cancelled by ${actorKey(inv.actor)}` });
    return {
      kind: 'message',
      visibility: 'channel',
      replaceOriginal: true,
      message: {
        header: `Cancelled: ${def.path}`,
        tone: 'neutral',
        blocks: [
          msg.text(`${commandLine(p.registry, def, redactArgs(def, args))} was cancelled by ${whoOf(inv.actor)}. Nothing was done.`),
        ],
      },
    };
  } catch (e) {
    return await failAttempt(p, a, e);
  }
}
