/**
 * Step 6: the private dialog, for a command that takes secrets or a typed-name confirmation.
 * Asked for: the dialog opens (with no I/O of its own). Submitted: the fields are read, the
 * typed name compared, the command's own field checks run, and the values join the arguments.
 * The dialog's words and fields are the command's (`secrets`, `dialog`); the engine adds only the
 * typed-name field.
 */
import { registerTypedSecret } from '../../../log.js';
import { isSecretName } from '../../inline-secret.js';
import { UserError } from '../../../vocabulary/index.js';
import type { AnyCommand, Registry } from '../../types.js';
import type { Dialog, DialogField, Reply } from '../../types.js';
import {
  contextOf,
  checkboxValue,
  commandOf,
  laterFields,
  needsDialog,
  typedNode,
  type Attempt,
  type Pipeline,
  type Step,
} from '../attempt.js';
import { recordOutcome } from '../record-outcome.js';
import { inlineToPlain } from '../../../vocabulary/index.js';
import { LATE, within } from '../../../vocabulary/index.js';
import { validate } from './validate-args.js';

/** The dialog field of the typed-name confirmation. */
export const CONFIRM_NAME_FIELD = 'confirm_name';

export { checkboxValue };

/** Where a continuation's dialog row keeps which approved request it continues (stripped before the steps). */
export const CONTINUATION_KEY = '__continuation';

export const handleDialog: Step = (a, p) => {
  const def = commandOf(a);
  // An approved request that waits for its requester's secrets asks for those only.
  if (a.continuation) return a.submission ? readSubmission(a, p, def) : openDialog(a, p, def);
  // An approved request runs without a dialog: its requester's dialog was answered already.
  if (!needsDialog(def, a.args) || a.approval) return undefined;
  return a.submission ? readSubmission(a, p, def) : openDialog(a, p, def);
};

/**
 * The fields this dialog asks, and those it leaves for after an approval: under an approval a
 * field `afterApproval` is not asked now (a secret is never kept while a request waits); a
 * continuation asks only those.
 */
async function fieldsAsked(a: Attempt, p: Pipeline, def: AnyCommand): Promise<{ fields: DialogField[]; later: DialogField[] }> {
  // Asked because its box was ticked: needed now.
  if (a.continuation) return { fields: laterFields(def, a.args).map((f) => (f.askedIf ? { ...f, required: true } : f)), later: [] };
  const all = await shownFields(a, p, def);
  if (!all.some((f) => f.afterApproval) || !(await approvalAhead(a, p, def))) return { fields: all, later: [] };
  return { fields: all.filter((f) => !f.afterApproval), later: all.filter((f) => f.afterApproval) };
}

/** Whether the approval step will ask a second person for this attempt (the policy now). */
async function approvalAhead(a: Attempt, p: Pipeline, def: AnyCommand): Promise<boolean> {
  if (def.approvalCovers && !def.approvalCovers(a.parsed ?? {})) return false;
  return !!(await p.services.policy.approvalNeeded(def.path, a.spend));
}

const labelsOf = (fields: DialogField[]) => fields.map((f) => f.label.replace(/\s*\(.*\)$/, '').toLowerCase()).join(', ');

export function dialogFields(_registry: Registry, def: AnyCommand, args: Record<string, string>): DialogField[] {
  const own = (def.secrets ?? []).filter((f) => !f.onlyWithArg || checkboxValue(args[f.onlyWithArg]) === 'true');
  if (def.confirm !== 'typed-name') return own;
  const confirmField: DialogField = {
    name: CONFIRM_NAME_FIELD,
    label: "Type the node's name to confirm",
    kind: 'text',
    required: true,
    // No placeholder: showing the name would give the answer the prompt asks for (P43).
    hint: 'This cannot be undone.',
  };
  return [confirmField, ...own.filter((f) => f.name !== CONFIRM_NAME_FIELD)];
}

/**
 * The command's `preview` as sentences for the dialog's intro: a dialog that is the confirmation
 * (typed name, or a box to tick) shows the facts a button confirmation would. Bounded by what is
 * left of the time before a dialog must open; what is late or fails is said, not guessed.
 */
async function factsOf(a: Attempt, p: Pipeline, def: AnyCommand): Promise<string> {
  if (!def.preview || !a.node) return '';
  const work = def.preview(contextOf(a, p));
  work.catch(() => undefined);
  try {
    const r = await within(work, Math.max(0, a.startedAt + p.dialogBudgetMs - p.now()));
    if (r === LATE) return ' (The node did not say in time what it holds: check it before you confirm.)';
    return r.map((f) => ` ${f.label}: ${inlineToPlain(f.value)}`).join('');
  } catch {
    return ' (The node could not say what it holds: check it before you confirm.)';
  }
}

async function openDialog(a: Attempt, p: Pipeline, def: AnyCommand): Promise<Reply | undefined> {
  const cont = a.continuation;
  const kind = def.confirm === 'typed-name' && !cont ? 'typed-name' : 'secrets';
  const { fields, later } = await fieldsAsked(a, p, def);
  // Every field waits for the approval (`node upgrade backup=yes` under approval): no dialog now.
  if (!cont && kind === 'secrets' && !fields.length) return undefined;
  const id = await p.confirmations.createDialog({
    kind,
    actor: a.actor,
    place: a.place,
    path: def.path,
    args: cont ? { ...a.args, [CONTINUATION_KEY]: JSON.stringify(cont) } : a.args,
    ttlMs: p.dialogTtlMs,
  });
  // "alice: Initialize a node's wallet; …": the node first, then what the command does.
  // The node's name, not the id a notification's button carries (P50).
  const named = a.node?.name ?? typedNode(p, a);
  const lead = `${named ? `${named}: ` : ''}${def.summary}.`;
  await recordOutcome(p, a, 'dialog');
  if (cont) {
    return {
      kind: 'dialog',
      dialog: {
        id,
        title: def.dialog?.title ?? `${def.path.charAt(0).toUpperCase()}${def.path.slice(1)}`,
        intro: `${lead} Approved by ${cont.approvedBy}: enter the ${labelsOf(fields)} and it runs now. This dialog is private: what you type is never shown in the channel, stored or logged.`,
        submitLabel: def.dialog?.submitLabel ?? 'Run',
        fields,
      },
    };
  }
  const waits = later.length
    ? ` A second person must approve this first: the ${labelsOf(later)} is asked of you privately once it is approved, and nothing is done before.`
    : '';
  const extra = `${await factsOf(a, p, def)}${def.dialog?.intro ? ` ${def.dialog.intro}` : ''}${waits}`;
  const dialog: Dialog =
    kind === 'typed-name'
      ? {
          id,
          title: def.dialog?.title ?? `Confirm ${def.path}`,
          intro: `${lead} This is irreversible: type the node's name to confirm.${extra}`,
          submitLabel: def.dialog?.submitLabel ?? 'Confirm',
          fields,
        }
      : {
          id,
          title: def.dialog?.title ?? `${def.path.charAt(0).toUpperCase()}${def.path.slice(1)}`,
          intro: `${lead} This dialog is private: what you type is never shown in the channel, stored or logged.${extra}`,
          submitLabel: def.dialog?.submitLabel ?? 'Run',
          fields,
        };
  return { kind: 'dialog', dialog };
}

/**
 * The fields the dialog shows: the command's choice for this node (`dialog.fields`), bounded by what is
 * left of the time before a dialog must open; every field when it has none, or is late or fails.
 */
async function shownFields(a: Attempt, p: Pipeline, def: AnyCommand): Promise<DialogField[]> {
  const all = dialogFields(p.registry, def, a.args);
  if (!def.dialog?.fields || !a.node) return all;
  const work = def.dialog.fields(contextOf(a, p));
  work.catch(() => undefined);
  try {
    const r = await within(work, Math.max(0, a.startedAt + p.dialogBudgetMs - p.now()));
    return r === LATE ? all : r;
  } catch {
    return all;
  }
}

async function readSubmission(a: Attempt, p: Pipeline, def: AnyCommand): Promise<Reply | UserError | undefined> {
  const { row, values } = a.submission!;
  const { fields } = await fieldsAsked(a, p, def);
  const shape = def.args.shape as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const extraArgs: Record<string, string> = {};
  const isSecretField = (name: string) => isSecretName(def, name) || fields.some((f) => f.name === name && f.kind === 'secret');
  for (const f of fields) {
    const raw = values[f.name];
    if (f.kind === 'checkbox') {
      const v = checkboxValue(raw);
      a.secrets[f.name] = v;
      if (f.name in shape) extraArgs[f.name] = v;
      continue;
    }
    const v = f.kind === 'secret' ? (raw ?? '') : (raw ?? '').trim();
    if (f.required !== false && !v) {
      errors[f.name] = `${f.label} is required.`;
      continue;
    }
    if (f.name === CONFIRM_NAME_FIELD) continue;
    if (v) a.secrets[f.name] = v;
    if (!isSecretField(f.name) && v && f.name in shape) extraArgs[f.name] = v;
  }
  a.auditExtra = { ...a.auditExtra, ...Object.fromEntries(Object.entries(a.secrets).filter(([k]) => !isSecretField(k))) };

  if (row.kind === 'typed-name') {
    const typedName = (values[CONFIRM_NAME_FIELD] ?? '').trim();
    const expected = a.node?.name ?? typedNode(p, a) ?? '';
    if (typedName !== expected) {
      errors[CONFIRM_NAME_FIELD] = typedName
        ? `That is not the node's name. Type ${expected} exactly, or close the dialog to keep the node.`
        : `Type ${expected} to confirm.`;
      await recordOutcome(p, a, 'refused', {
        audit: 'refused',
        reason: 'confirmation_mismatch: the typed name did not match the node',
        log: { reason: 'typed name did not match' },
      });
      return { kind: 'dialog_errors', errors };
    }
  }
  // The command's own checks, on the fields this dialog asked (one left for after an approval is not missing).
  for (const [name, error] of Object.entries(def.dialog?.check?.(a.secrets) ?? {}))
    if (fields.some((f) => f.name === name)) errors[name] = error;
  if (Object.keys(errors).length) {
    await recordOutcome(p, a, 'dialog_errors');
    return { kind: 'dialog_errors', errors };
  }
  const merged = { ...a.args, ...extraArgs };
  a.parsed = validate(p.registry, def, merged, a.place.platform);
  a.args = merged;
  if (!(await p.confirmations.claimDialog(row.id, p.now()))) {
    return new UserError('dialog_used', 'This dialog was already submitted.', 'Run the command again if you need it.');
  }
  return undefined;
}

/** Masks the secrets a submission holds in every log line from now on (before any step runs). */
export function maskSubmittedSecrets(
  registry: Registry,
  def: AnyCommand,
  args: Record<string, string>,
  values: Record<string, string>,
): void {
  for (const f of dialogFields(registry, def, args))
    if (f.kind === 'secret' || isSecretName(def, f.name)) registerTypedSecret(values[f.name]);
}
