/**
 * The contracts of the command engine. Commands (commands/*.ts) are defined once with
 * `defineCommand`; the dispatcher runs them for every adapter (Slack, Discord, shell).
 * Nothing here knows a platform, nor the services a command is given: the engine is generic
 * over them (`Svc`, at least the EngineServices it uses itself), and commands/ names the
 * concrete Services type (docs/ARCHITECTURE.md, "Layers").
 */
import { z } from 'zod';
import type { Actor, Field, Message, Place, Role, Spend } from '../vocabulary/index.js';
import type { ArgSpec } from './arg-specs.js';
import type { AuditLog, Policy, RoleService } from '../access/index.js';
import type { HostedNode, HostingClient } from '../hosting/index.js';

/** How a change must be confirmed before the handler runs. */
export type Confirmation = 'none' | 'button' | 'typed-name';

export interface DialogField {
  name: string;
  label: string;
  kind: 'text' | 'secret' | 'checkbox';
  /** Default true: a field is required unless it says `required: false`. */
  required?: boolean;
  placeholder?: string;
  initial?: string;
  hint?: string;
  /** Asked only when this checkbox field is ticked (the shell skips it otherwise). */
  askedIf?: string;
  /**
   * Under an approval, asked of the requester only once the request is approved, in a private
   * dialog of its own (a secret is never kept while a request waits, and nothing is done before).
   */
  afterApproval?: boolean;
  /** A box that is the confirmation itself (`node restore`'s overwrite): left unticked, nothing is done, and a prompt stops there. */
  confirms?: boolean;
  /** In the dialog only when this boolean argument of the command is true (`node init … recover=true` asks for the words). */
  onlyWithArg?: string;
  /** The fewest characters accepted: enforced by the platform's form where it can (Slack, Discord); the command's `dialog.check` says it on submission everywhere. */
  minLength?: number;
}

/** A private form (Slack modal, Discord modal, shell prompt). Secrets are entered only here. */
export interface Dialog {
  /** Stored pending-dialog id: Slack callback_id / Discord custom_id. Short (≤ 64 chars). */
  id: string;
  title: string;
  intro?: string;
  submitLabel: string;
  fields: DialogField[];
}

export type Visibility = 'channel' | 'private';

export type Reply =
  | {
      kind: 'message';
      message: Message;
      /** private: Slack ephemeral / Discord ephemeral / shell prints it. */
      visibility: Visibility;
      /** For a button click: replace the message that held the button. */
      replaceOriginal?: boolean;
    }
  | { kind: 'dialog'; dialog: Dialog }
  /**
   * A dialog submission refused in place: the dialog stays open with these errors by field
   * (Slack `response_action: errors`); platforms that cannot keep it open show them privately.
   */
  | { kind: 'dialog_errors'; errors: Record<string, string> };

/** What a handler may return: a message for the channel, or a Reply for private answers. */
export type HandlerResult = Message | Reply;

export interface CommandContext<A, Svc extends EngineServices = EngineServices> {
  args: A;
  actor: Actor;
  place: Place;
  /** The resolved node, when the command's first argument names a node. */
  node?: HostedNode;
  services: Svc;
  /** Values entered in the command's dialog (secrets), by field name. Never logged. */
  secrets: Record<string, string>;
  /**
   * Gives back what this run reserved against the daily limits: a payment the node reports
   * Failed moved nothing (set by the execute step; absent when nothing was reserved).
   */
  releaseSpend?(): Promise<void>;
  /**
   * Reads shared by the steps of one attempt that only look (the state check, the dialog's fields
   * and preview, the spend and approval hooks), by key: a fact several of them need is asked of
   * the node once (`node backup lock=yes` read the lock state three times). Absent in the
   * handler, which acts on what the node says when it runs.
   */
  reads?: Map<string, Promise<unknown>>;
}

/** Why a command cannot run now, and what to do instead (a command to type). */
export interface Refusal {
  reason: string;
  next?: string;
}

export interface CommandDefinition<
  S extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>,
  Svc extends EngineServices = EngineServices,
> {
  /** `node stop`, `audit`, `help`. Unique across the registry. */
  path: string;
  summary: string;
  /** A complete example, as typed on Slack: `/rln node stop alice`. */
  example: string;
  /** Arguments. Descriptions on the schema fields (`.describe()`) become help and Discord option descriptions. */
  args: S;
  /** Positional order on Slack/shell; defaults to the required keys in schema order. */
  positional?: string[];
  /** The argument naming a node (resolved by name or id before the handler runs). Default: `node` if present. */
  nodeArg?: string | false;
  role: Role;
  confirm: Confirmation;
  /** Fields asked in a private dialog before running (passwords, mnemonics). Never accepted inline. */
  secrets?: DialogField[];
  /**
   * The dialog's own words and field checks (defaults: `Confirm <path>`/`Confirm`, or the path/`Run`).
   * `intro` is added after the engine's sentence; `check` gives errors by field for what was entered.
   */
  dialog?: {
    title?: string;
    submitLabel?: string;
    intro?: string;
    check?(values: Record<string, string>): Record<string, string>;
    /**
     * The fields shown for this node and these arguments (a subset of `secrets`, perhaps with an
     * `initial` value): what the node's API generation needs (`node unlock`). Default: every one of
     * `secrets`. A submission is read against `secrets`, so a field left out here is simply absent.
     */
    fields?(ctx: CommandContext<z.infer<S>, Svc>): Promise<DialogField[]>;
  };
  /**
   * Whether these (raw) arguments need the dialog; default: always, when there are `secrets`. A command
   * whose dialog is an option (`node upgrade backup=yes`) asks it only then.
   */
  dialogWhen?(args: Record<string, string>): boolean;
  /**
   * Other ways to run the command, offered as buttons beside Confirm on its button confirmation:
   * each runs the same command again with these arguments added (`Back up, then upgrade`).
   */
  confirmChoices?(args: z.infer<S>): Array<{ label: string; args: Record<string, string> }>;
  /**
   * The state check (pipeline step 5): refuses before any dialog or confirmation when the node is
   * not in a state for this command, saying why and what to do instead. Read-only. Before a dialog
   * it is bounded in time; when late, the check runs at the dialog's submission.
   */
  check?(ctx: CommandContext<z.infer<S>, Svc>): Promise<Refusal | undefined>;
  /** Whether running it changes something (audited). Reads are not audited. */
  mutates: boolean;
  /**
   * For a command confirmed by button: what the confirmation shows before anything happens
   * (the amount and payee of a payment, the asset of a send). Read-only; it may ask the node
   * (decode an invoice). If it throws, the command is refused before it is ever confirmed.
   */
  preview?(ctx: CommandContext<z.infer<S>, Svc>): Promise<Field[]>;
  /**
   * What the command spends (pipeline steps 8 and 9: spend limit, approval). Read-only; it may ask
   * the node (decode an invoice, an asset's precision). Undefined: it moves no funds.
   */
  spend?(ctx: CommandContext<z.infer<S>, Svc>): Promise<Spend | undefined>;
  /**
   * Which attempts an approval rule for this command covers (`access grant`: only a grant of
   * admin). Absent: every attempt. A rule with a threshold still needs the spend above it.
   */
  approvalCovers?(args: z.infer<S>): boolean;
  handler(ctx: CommandContext<z.infer<S>, Svc>): Promise<HandlerResult>;
}

/**
 * A command as written: a read needs no confirmation and changes nothing, so a `role: 'read'`
 * command may leave `confirm` and `mutates` out; an operate or admin command declares both. A
 * command with no arguments may leave out `args` and `example`.
 */
export type CommandSpec<
  S extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>,
  Svc extends EngineServices = EngineServices,
> = Omit<CommandDefinition<S, Svc>, 'confirm' | 'mutates' | 'args' | 'example'> & {
  /** Default: no arguments. */
  args?: S;
  /** Default: `/rln <path>`, right for a command that takes no arguments. */
  example?: string;
} & ({ role: 'read'; confirm?: 'none'; mutates?: false } | Pick<CommandDefinition<S, Svc>, 'confirm' | 'mutates'>);

/** The definition of a command, with what its role implies filled in (see CommandSpec). */
function withRoleDefaults<S extends z.ZodObject<z.ZodRawShape>, Svc extends EngineServices>(
  spec: CommandSpec<S, Svc>,
): CommandDefinition<S, Svc> {
  const { path, role, confirm, mutates }: { path: string; role: Role; confirm?: Confirmation; mutates?: boolean } = spec;
  // The types say so; this says it to a caller the types do not reach.
  if (role !== 'read' && (confirm === undefined || mutates === undefined)) {
    throw new Error(`${path}: an ${role} command says how it is confirmed and whether it mutates (confirm, mutates)`);
  }
  return {
    ...spec,
    args: spec.args ?? (z.object({}) as unknown as S),
    example: spec.example ?? `/rln ${path}`,
    confirm: confirm ?? 'none',
    mutates: mutates ?? false,
  };
}

/** Defines a command the engine itself provides (`<group> help`, the internal ones): it uses only EngineServices. */
export function defineCommand<S extends z.ZodObject<z.ZodRawShape>>(spec: CommandSpec<S>): CommandDefinition<S> {
  return withRoleDefaults(spec);
}

/**
 * `defineCommand` for commands given services of type `Svc`: commands/ makes its own once
 * (`commandDefiner<Services>()`), so a handler sees the concrete services without the engine
 * knowing them.
 */
export function commandDefiner<Svc extends EngineServices>() {
  return <S extends z.ZodObject<z.ZodRawShape>>(spec: CommandSpec<S, Svc>): CommandDefinition<S, Svc> => withRoleDefaults(spec);
}

/**
 * A command of any argument schema, as the registry, the pipeline and the command lists hold it.
 * Its handler sees `args` as a plain record: what the schema parsed (a definition's methods are
 * checked bivariantly, so every `defineCommand(…)` result is assignable without `any`).
 */
export type AnyCommand = CommandDefinition<z.ZodObject<z.ZodRawShape>>;

/** One typed command, click or dialog submission, from any adapter. */
export type Invocation =
  | {
      via: 'typed';
      actor: Actor;
      place: Place;
      /** Slack and the shell: the text after `/rln`, parsed by the engine against the registry. */
      text?: string;
      /** Discord: the path and the named options, already split. */
      path?: string;
      args?: Record<string, string>;
    }
  | { via: 'button'; actor: Actor; place: Place; buttonId: string }
  | { via: 'dialog'; actor: Actor; place: Place; dialogId: string; values: Record<string, string> };

export interface Dispatcher {
  /** Runs the whole pipeline (the steps in pipeline/run-steps.ts) and replies. Never throws. */
  dispatch(inv: Invocation): Promise<Reply>;
  /** Names (and ids) of nodes starting with `prefix`, for autocomplete. Fast (cached). */
  suggestNodes(prefix: string): Promise<Array<{ name: string; nodeId: string; status: string }>>;
  /** Persists button ids (and returns the message ready to render): the ButtonIds service's `prepare`. */
  prepareMessage(message: Message, opts?: { ttlMs?: number }): Promise<Message>;
}

/**
 * What the engine itself needs from the services it is given: the clock, roles, the audit
 * trail, the policy, the registry (for `help`) and the hosting client (to resolve a node).
 * The engine is generic over the rest: commands/services.ts names the concrete Services type
 * (watches, reports, node API clients, …) that the app builds and commands receive.
 */
export interface EngineServices {
  hosting: HostingClient;
  /** The one clock: milliseconds since the epoch. */
  now(): number;
  /** Roles: who may do what; `access grant|revoke|list`. */
  access: RoleService;
  /** The audit trail; `audit [node]`. */
  audit: AuditLog;
  /** The command registry; `help`. */
  commands: Registry;
  /** Approvals by a second person and spend limits; the `policy` commands. */
  policy: Policy;
}

/** A group of commands (`node`) with its actions, as help lists them. */
export interface CommandGroup {
  group: string;
  actions: AnyCommand[];
}

/** The command registry (built by createRegistry, registry.ts): every definition once. */
export interface Registry {
  /** Every command, groups in order, then the top-level ones (`audit`, `help`). */
  all(): AnyCommand[];
  get(path: string): AnyCommand | undefined;
  /**
   * Groups in the order commands/ gives them (a group's place is where its first command is),
   * each with its actions in the order they were given, then `<group> help`. The engine names
   * no group or action of its own: a new command changes only commands/.
   */
  groups(): CommandGroup[];
  /** Commands with a one-word path (`audit`, `help`). */
  topLevel(): AnyCommand[];
  /** Positional argument names: the explicit `positional`, or the required keys in schema order. */
  positional(def: AnyCommand): string[];
  /** The argument naming a node, if any (`nodeArg`, or `node` when the schema has it). */
  nodeArg(def: AnyCommand): string | undefined;
  /** The nearest command path to what was typed (for "did you mean"), if any is reasonably near. */
  closest(text: string): string | undefined;
  argSpecs(def: AnyCommand): ArgSpec[];
  /** The role a command needs: its own, or the configuration's over it (AUDIT_READ_ROLE). The role step and help both ask this. */
  roleOf(def: AnyCommand): Role;
}
