/**
 * One attempt to run a command, as it goes through the pipeline's steps, and what the steps share.
 * The entry points (typed, click, dialog submission) build an Attempt; the steps read and fill it.
 */
import type { DialogRow } from '../../store/index.js';
import type { HostedNode } from '../../hosting/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { Actor, Place, Role, Spend } from '../../vocabulary/index.js';
import type { CommandContext, Invocation, Reply } from '../types.js';
import type { UserError } from '../../vocabulary/index.js';
import type { AnyCommand, DialogField, Registry } from '../types.js';
import type { EngineServices } from '../types.js';
import type { ButtonIds } from '../button-ids.js';
import type { Confirmations } from '../confirmations.js';
import type { NodeLookup } from '../node-lookup.js';

export interface Attempt {
  actor: Actor;
  place: Place;
  via: Invocation['via'];
  def?: AnyCommand;
  /** Raw string arguments (always redacted for output). */
  args: Record<string, string>;
  /** The arguments as the schema parsed them (set by `validate`). */
  parsed?: Record<string, unknown>;
  node?: HostedNode;
  /** Values entered in the dialog (secrets, checkboxes), by field name. Never logged. */
  secrets: Record<string, string>;
  /** Extra non-secret values for the audit record (dialog checkboxes). */
  auditExtra?: Record<string, string>;
  /** A click on Confirm: the confirmation to claim at the confirmation step. */
  confirmation?: { id: string };
  /** A dialog submission: the stored dialog and what was entered. */
  submission?: { row: DialogRow; values: Record<string, string> };
  /** The state check was late when the dialog was asked for: it runs at the submission instead. */
  checkAtSubmission?: boolean;
  /** When the attempt began (the clock's ms); the bounded steps count from here. */
  startedAt: number;
  /** The looking steps' shared reads (CommandContext.reads), made by the first context. */
  reads?: Map<string, Promise<unknown>>;
  /** Replace the message that held the button (a confirmation's click). */
  replaceOriginal?: boolean;
  /** The handler's reply, set by `execute`, given out by `audit`. */
  reply?: Reply;
  /** What the command spends (set by the spend-limit step, for the approval and execute steps). */
  spend?: Spend;
  /**
   * An approved request being run: `actor` is the requester (the spend is theirs), `approver` the
   * second person, whose role and scope step 4 checks and who claims the request at step 9.
   */
  approval?: { id: string; approver: Actor };
  /**
   * An approved request that waited for its requester's secrets (fields `afterApproval`): `id` is
   * the one-time continuation kept when it was approved, `approval` the request, `approvedBy` who
   * approved it. The requester's role is checked again; the continuation is claimed once at step 9.
   */
  continuation?: { id: string; approval: string; approvedBy: string };
}

/** What the steps share: the services, the stores of pending interactions, and the knobs. */
export interface Pipeline {
  registry: Registry;
  services: EngineServices;
  buttons: ButtonIds;
  confirmations: Confirmations;
  nodes: NodeLookup;
  logger: Logger;
  metrics?: Metrics;
  now: () => number;
  confirmTtlMs: number;
  dialogTtlMs: number;
  /** How long the steps before a dialog may take, so the dialog opens within the platforms' 3 s. */
  dialogBudgetMs: number;
}

/** The role a command needs here: its own, or the configuration's over it (the registry's, as help shows it). */
export function roleFor(p: Pipeline, def: AnyCommand): Role {
  return p.registry.roleOf(def);
}

/**
 * A step's result: nothing (go on), a Reply (the attempt ends here with this answer: a dialog, a
 * confirmation prompt, dialog errors) or a UserError (a refusal: the runner reports and audits it).
 */
export type StepResult = Reply | UserError | undefined;

export type Step = (a: Attempt, p: Pipeline) => Promise<StepResult> | StepResult;

/** The command of an attempt that reached the steps (the entry points always set it). */
export function commandOf(a: Attempt): AnyCommand {
  if (!a.def) throw new Error('an attempt reached the pipeline without a command');
  return a.def;
}

/** Whether this attempt is the one that opens the command's dialog (not its submission, nor an approved request). */
export function opensDialog(a: Attempt): boolean {
  const def = commandOf(a);
  return needsDialog(def, a.args) && !a.submission && !a.approval;
}

/**
 * The fields asked only once a request is approved (`afterApproval`), those that apply to these
 * arguments: a field `askedIf` a box is asked only when the box was ticked.
 */
export function laterFields(def: AnyCommand, args: Record<string, string>): DialogField[] {
  return (def.secrets ?? []).filter((f) => f.afterApproval && (!f.askedIf || checkboxValue(args[f.askedIf]) === 'true'));
}

/** How a ticked checkbox or a true boolean may be written (Slack sends 'true', Discord's yes/no input what was typed). */
const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on', '1', 'checked', 'x', 'ok']);

/** A checkbox answer as a dialog value: 'true' for a true word, 'false' for anything else. */
export function checkboxValue(raw: string | undefined): 'true' | 'false' {
  return TRUE_WORDS.has(
    String(raw ?? '')
      .trim()
      .toLowerCase(),
  )
    ? 'true'
    : 'false';
}

/** Whether the command asks a private dialog with these arguments (see `dialogWhen`). */
export function needsDialog(def: AnyCommand, args: Record<string, string> = {}): boolean {
  return def.confirm === 'typed-name' || (!!def.secrets?.length && (def.dialogWhen?.(args) ?? true));
}

/** The node as the person named it (name or id), when the command takes one. */
export function typedNode(p: Pipeline, a: Attempt): string | undefined {
  const nodeArg = a.def ? p.registry.nodeArg(a.def) : undefined;
  return nodeArg ? a.args[nodeArg] : undefined;
}

export function whoOf(actor: Actor): string {
  return actor.displayName || actor.userId;
}

/**
 * The context a step hands a command's code (its handler, its spend or approval hooks): the
 * attempt's parsed arguments, who and where, the node and the services. `secrets` are the dialog's
 * values for the handler, and none for the hooks that only look; those share the attempt's
 * `reads`, which the handler's context leaves out.
 */
export function contextOf(
  a: Attempt,
  p: Pipeline,
  extra: Partial<CommandContext<Record<string, unknown>>> = {},
): CommandContext<Record<string, unknown>> {
  return {
    args: a.parsed ?? {},
    actor: a.actor,
    place: a.place,
    node: a.node,
    services: p.services,
    secrets: {},
    reads: (a.reads ??= new Map()),
    ...extra,
  };
}

/** A new attempt by this person, from this place, by this way in: the entry points' first step. */
export function newAttempt(inv: { actor: Actor; place: Place }, via: Invocation['via'], p: Pipeline): Attempt {
  return { actor: inv.actor, place: inv.place, via, args: {}, secrets: {}, startedAt: p.now() };
}
