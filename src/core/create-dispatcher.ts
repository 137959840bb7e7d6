/**
 * The one dispatcher behind every adapter. Each typed command, click and dialog submission runs:
 * validate the arguments, resolve the node, check the role, confirm, run the handler, audit,
 * reply. It never throws: every failure becomes a message the user can act on.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/index.js';
import { createButtonStore } from '../store/index.js';
import { createConfirmationStore } from '../store/index.js';
import { createDialogStore } from '../store/index.js';
import { registerTypedSecret, silentLogger, type Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { HostedNode } from '../hosting/index.js';
import type { Services } from './services.js';
import './core-services.js';
import type {
  Actor,
  CommandContext,
  Dialog,
  DialogField,
  Dispatcher,
  HandlerResult,
  Invocation,
  Place,
  Reply,
  Role,
} from './types.js';
import type { Field, Message } from './message.js';
import { msg } from './message.js';
import { UserError } from './errors.js';
import type { AnyCommand, Registry } from './registry.js';
import { parseCommandLine, secretInline } from './parse-command-line.js';
import { findInlineSecret, isSecretName, redactArgs, withoutSecrets } from './inline-secret.js';
import { createRoleService, actorKey, ROLE_RANK, type RoleService } from './role-service.js';
import { createAuditLog, type AuditLog } from './audit-log.js';
import { errorMessage } from './error-message.js';
import { usageOf } from './render-help.js';
import { wantsRawBoolean, unwrapSchema } from './arg-specs.js';
import { closestOf } from './edit-distance.js';
import { statusBadge } from './format.js';

/** Internal button commands (not in the user registry). Args: `{ id: <confirmation id> }`. */
export const CONFIRM_COMMAND = '__confirm';
export const CANCEL_COMMAND = '__cancel';

/** Dialog field names of the typed-name confirmation (node destroy). */
export const CONFIRM_NAME_FIELD = 'confirm_name';
export const BACKUP_FIELD = 'backup';
export const BACKUP_PASSWORD_FIELD = 'backup_password';

export type ServicesInput = Omit<Services, 'access' | 'audit' | 'commands'> & Partial<Pick<Services, 'access' | 'audit' | 'commands'>>;

export interface DispatcherOptions {
  db: Db;
  registry: Registry;
  services: ServicesInput;
  /** ADMIN_USERS principals. */
  admins?: string[];
  /** OPERATOR_USERS principals. */
  operators?: string[];
  logger?: Logger;
  metrics?: Metrics;
  now?: () => Date;
  /** How long a button confirmation stays usable. Default 5 minutes. */
  confirmTtlMs?: number;
  /** How long a dialog may be submitted. Default 15 minutes. */
  dialogTtlMs?: number;
  /** How long a button id is kept. Default 7 days. */
  buttonTtlMs?: number;
  /** How long the node list is cached for resolution and autocomplete. Default 5 s. */
  nodeCacheMs?: number;
  /**
   * Commands only buttons run (an incident's "acknowledge"): not in help, parsing or Discord
   * registration. Paths start with `__` (e.g. `__incident_ack`). They go through the same pipeline.
   */
  internal?: AnyCommand[];
}

export interface CoreDispatcher extends Dispatcher {
  roles: RoleService;
  audit: AuditLog;
  registry: Registry;
  /** Forgets the cached node list (after a node is created or destroyed elsewhere). */
  invalidateNodes(): void;
}

/** How a ticked checkbox or a true boolean may be written (Slack sends 'true', Discord's yes/no input what was typed). */
const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on', '1', 'checked', 'x', 'ok']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off', '0', '']);

/** A checkbox answer as a dialog value: 'true' for a true word, 'false' for anything else. */
export function checkboxValue(raw: string | undefined): 'true' | 'false' {
  return TRUE_WORDS.has(String(raw ?? '').trim().toLowerCase()) ? 'true' : 'false';
}

function randomId(prefix: string, bytes: number): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

function whoOf(actor: Actor): string {
  return actor.displayName || actor.userId;
}

function ttlText(ms: number): string {
  if (ms >= 60_000) {
    const m = Math.round(ms / 60_000);
    return `${m} minute${m === 1 ? '' : 's'}`;
  }
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} second${s === 1 ? '' : 's'}`;
}

function quoteValue(v: string): string {
  return /[\s"']/.test(v) || v === '' ? `"${v.replace(/"/g, "'")}"` : v;
}

/** What a person would type to run this: positional values first, then key=value. */
function commandLine(registry: Registry, def: AnyCommand, args: Record<string, string>): string {
  const pos = registry.positional(def);
  const parts = [`/rln ${def.path}`];
  let positionalOk = true;
  for (const p of pos) {
    if (positionalOk && args[p] !== undefined) parts.push(quoteValue(args[p]));
    else positionalOk = false;
  }
  for (const [k, v] of Object.entries(args)) {
    if (positionalOk && pos.includes(k)) continue;
    if (!positionalOk && pos.includes(k) && parts.includes(quoteValue(v))) continue;
    parts.push(`${k}=${quoteValue(v)}`);
  }
  return parts.join(' ');
}

interface Attempt {
  actor: Actor;
  place: Place;
  via: Invocation['via'];
  def?: AnyCommand;
  /** Raw string arguments (may hold secrets only if refused before; always redacted for output). */
  args: Record<string, string>;
  node?: HostedNode;
  /** Extra non-secret values for the audit record (dialog checkboxes). */
  auditExtra?: Record<string, string>;
}

export function createDispatcher(opts: DispatcherOptions): CoreDispatcher {
  const { db, registry } = opts;
  const logger = opts.logger ?? silentLogger;
  const now = opts.now ?? (() => new Date());
  const confirmTtlMs = opts.confirmTtlMs ?? 5 * 60_000;
  const dialogTtlMs = opts.dialogTtlMs ?? 15 * 60_000;
  const buttonTtlMs = opts.buttonTtlMs ?? 7 * 24 * 3600_000;
  const nodeCacheMs = opts.nodeCacheMs ?? 5_000;

  const roles = createRoleService(db, { admins: opts.admins, operators: opts.operators });
  const audit = createAuditLog(db, { now });
  const buttons = createButtonStore(db);
  const confirmations = createConfirmationStore(db);
  const dialogs = createDialogStore(db);
  // The caller's object itself, so services the composition root adds later (watches, reports) reach handlers.
  const internal = new Map<string, AnyCommand>();
  for (const def of opts.internal ?? []) {
    if (!/^__[a-z0-9_-]+$/.test(def.path) || def.path === CONFIRM_COMMAND || def.path === CANCEL_COMMAND) {
      throw new Error(`internal command "${def.path}" must be named __something (and not __confirm/__cancel)`);
    }
    if (internal.has(def.path)) throw new Error(`two internal commands are defined with the path "${def.path}"`);
    internal.set(def.path, def);
  }
  const services = Object.assign(opts.services, { access: roles, audit, commands: registry }) as Services;

  // ---- housekeeping ------------------------------------------------------------------------
  let lastSweep = 0;
  const sweep = () => {
    const t = now().getTime();
    if (t - lastSweep < 60_000) return;
    lastSweep = t;
    try {
      buttons.deleteExpired(t);
      // Keep expired confirmations and dialogs a day, so a late click says "expired", not "unknown".
      confirmations.deleteExpired(t - 24 * 3600_000);
      dialogs.deleteExpired(t - 24 * 3600_000);
    } catch (e) {
      logger.warn({ err: e }, 'could not sweep expired confirmations');
    }
  };

  // ---- nodes -------------------------------------------------------------------------------
  let cache: { at: number; nodes: HostedNode[] } | undefined;
  let inflight: Promise<HostedNode[]> | undefined;
  const listNodes = async (force = false): Promise<{ nodes: HostedNode[]; fresh: boolean }> => {
    if (!force && cache && Date.now() - cache.at < nodeCacheMs) return { nodes: cache.nodes, fresh: false };
    inflight ??= services.hosting.listNodes().finally(() => (inflight = undefined));
    const nodes = await inflight;
    cache = { at: Date.now(), nodes };
    return { nodes, fresh: true };
  };
  const findNode = (nodes: HostedNode[], v: string) =>
    nodes.find((n) => n.nodeId === v) ?? nodes.find((n) => n.name === v) ?? nodes.find((n) => n.name.toLowerCase() === v.toLowerCase());

  const resolveNode = async (value: string): Promise<HostedNode> => {
    const v = value.trim();
    let { nodes, fresh } = await listNodes();
    let found = findNode(nodes, v);
    if (!found && !fresh) {
      nodes = (await listNodes(true)).nodes;
      found = findNode(nodes, v);
    }
    if (found) return found;
    const near = closestOf(v, nodes.map((n) => n.name), { max: 3, maxDistance: Math.max(2, Math.ceil(v.length / 2)) });
    const shown = /^[\w.:-]{1,64}$/u.test(v) ? `\`${v}\`` : 'that name';
    throw new UserError(
      'unknown_node',
      `No node is named ${shown} or has it as its id.`,
      near.length
        ? `Did you mean ${near.map((n) => `\`${n}\``).join(' or ')}? \`/rln node list\` shows every node.`
        : '`/rln node list` shows every node.',
      { closest: near },
    );
  };

  // ---- buttons -----------------------------------------------------------------------------
  const prepareMessage = (message: Message, o: { ttlMs?: number } = {}): Message => {
    if (!message.buttons?.length) return message;
    sweep();
    const t = now().getTime();
    const ttl = o.ttlMs ?? buttonTtlMs;
    return {
      ...message,
      buttons: message.buttons.map((b) => {
        if (b.id) return b;
        const id = randomId('b_', 12);
        buttons.insert({ id, command: b.command, argsJson: JSON.stringify(b.args ?? {}), createdAt: t, expiresAt: t + ttl });
        return { ...b, id };
      }),
    };
  };

  // ---- small helpers -------------------------------------------------------------------------
  const count = (path: string, outcome: string) => {
    try {
      opts.metrics?.commands.inc({ command: path, outcome });
    } catch {
      /* metrics never break a command */
    }
  };

  const nodeArgOf = (def: AnyCommand) => registry.nodeArg(def);
  /** The node as the person named it (name or id), when the command takes one. */
  const typedNode = (a: Attempt): string | undefined => {
    const nodeArg = a.def ? nodeArgOf(a.def) : undefined;
    return nodeArg ? a.args[nodeArg] : undefined;
  };
  /** Looks up the node the attempt names, if it names one. */
  const resolveTypedNode = async (a: Attempt): Promise<void> => {
    const typed = typedNode(a);
    if (typed) a.node = await resolveNode(typed);
  };

  const auditIf = (a: Attempt, outcome: 'ok' | 'failed' | 'refused', reason?: string) => {
    if (!a.def?.mutates) return;
    try {
      audit.record({
        actor: a.actor,
        place: a.place,
        path: a.def.path,
        node: a.node?.name ?? typedNode(a),
        nodeId: a.node?.nodeId,
        args: { ...redactArgs(a.def, a.args), ...(a.auditExtra ?? {}) },
        outcome,
        reason,
      });
    } catch (e) {
      logger.error({ err: e, command: a.def.path }, 'could not write the audit record');
    }
  };

  const logAttempt = (a: Attempt, outcome: string, extra: Record<string, unknown> = {}) => {
    logger.info(
      {
        command: a.def?.path ?? 'unknown',
        via: a.via,
        actor: actorKey(a.actor),
        channel: a.place.channelId,
        node: a.node?.nodeId,
        outcome,
        ...extra,
      },
      'command',
    );
  };

  const privateMessage = (message: Message): Reply => ({ kind: 'message', message, visibility: 'private' });

  /** Every failure ends here: message, audit (changes only), metrics, log. */
  const fail = (a: Attempt, e: unknown, o: { replaceOriginal?: boolean; visibility?: 'private' | 'channel'; audit?: boolean } = {}): Reply => {
    const out = errorMessage(e, { path: a.def?.path, node: a.node?.name ?? typedNode(a) });
    if (out.ref) {
      logger.error({ err: e, ref: out.ref, command: a.def?.path ?? 'unknown', actor: actorKey(a.actor) }, 'command failed unexpectedly');
    }
    if (o.audit !== false) auditIf(a, out.outcome, out.reason);
    count(a.def?.path ?? 'unknown', out.outcome);
    logAttempt(a, out.outcome, { reason: out.ref ? `internal error (ref ${out.ref})` : out.reason });
    return {
      kind: 'message',
      message: out.message,
      visibility: o.visibility ?? 'private',
      ...(o.replaceOriginal ? { replaceOriginal: true } : {}),
    };
  };

  const adminsHint = (): string => {
    const admins = roles
      .list()
      .filter((r) => r.role === 'admin' && r.principal !== 'shell:local')
      .map((r) => r.principal)
      .slice(0, 5);
    return admins.length ? ` Admins: ${admins.join(', ')}.` : '';
  };

  const checkRole = (a: Attempt, def: AnyCommand) => {
    if (roles.has(a.actor, def.role)) return;
    const have = roles.roleOf(a.actor);
    throw new UserError(
      'forbidden',
      `\`${def.path}\` needs the ${def.role} role; you (${actorKey(a.actor)}) have ${have}.`,
      `An admin can grant it with \`/rln access grant ${actorKey(a.actor)} ${def.role}\`.${adminsHint()}`,
      { needed: def.role, have },
    );
  };

  const validate = (def: AnyCommand, raw: Record<string, string>): Record<string, unknown> => {
    const shape = (def.args as any).shape as Record<string, any>;
    const specs = registry.argSpecs(def);
    // Only a refusal shows it: not built for every valid command.
    const usage = () => `Usage: ${usageOf(registry, def)}. Example: ${def.example}`;
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (!(k in shape)) {
        const names = specs.map((s) => s.name);
        const shown = /^[A-Za-z_][\w-]{0,40}$/.test(k) ? `\`${k}\`` : 'that argument';
        throw new UserError(
          'invalid_arguments',
          `\`${def.path}\` has no argument ${shown}${names.length ? `; it takes ${names.join(', ')}` : '; it takes none'}.`,
          usage(),
        );
      }
      if (typeof v !== 'string') {
        input[k] = v;
        continue;
      }
      const spec = specs.find((s) => s.name === k)!;
      if (v === '' && !spec.required) continue;
      const inner = unwrapSchema(shape[k]).inner as any;
      if (spec.kind === 'number' && inner?._zod?.def?.type === 'number' && !inner._zod.def.coerce && /^-?\d+(\.\d+)?$/.test(v.trim())) {
        input[k] = Number(v.trim());
      } else if (spec.kind === 'boolean' && wantsRawBoolean(shape[k])) {
        const w = v.trim().toLowerCase();
        input[k] = TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : v;
      } else input[k] = v;
    }
    const r = def.args.safeParse(input);
    if (r.success) return r.data as Record<string, unknown>;
    const issue = r.error.issues[0];
    const name = String(issue?.path?.[0] ?? '');
    const spec = specs.find((s) => s.name === name);
    if (name && input[name] === undefined) {
      throw new UserError('invalid_arguments', `\`${def.path}\` needs \`${name}\`${spec?.description ? ` (${spec.description})` : ''}.`, usage());
    }
    const choices = spec?.choices ? ` It must be one of: ${spec.choices.join(', ')}.` : '';
    throw new UserError(
      'invalid_arguments',
      name ? `Argument \`${name}\` is not valid: ${issue.message}.${choices}` : `The arguments are not valid: ${issue?.message ?? 'unknown problem'}.`,
      usage(),
    );
  };

  const toReply = (result: HandlerResult, o: { replaceOriginal?: boolean } = {}): Reply => {
    if (result && typeof result === 'object' && 'kind' in result) {
      if (result.kind === 'message') {
        const r: Reply = { ...result, message: prepareMessage(result.message) };
        if (o.replaceOriginal && r.visibility === 'channel') return { ...r, replaceOriginal: true };
        return r;
      }
      return result;
    }
    return { kind: 'message', message: prepareMessage(result as Message), visibility: 'channel', ...(o.replaceOriginal ? { replaceOriginal: true } : {}) };
  };

  /** Steps 5-7: run the handler, audit, reply. */
  const run = async (a: Attempt, parsed: Record<string, unknown>, secrets: Record<string, string>, o: { replaceOriginal?: boolean } = {}): Promise<Reply> => {
    const def = a.def!;
    const ctx: CommandContext<any> = { args: parsed, actor: a.actor, place: a.place, node: a.node, services, secrets };
    try {
      const result = await def.handler(ctx);
      if (def.mutates) cache = undefined;
      const reply = toReply(result, o);
      auditIf(a, 'ok');
      count(def.path, 'ok');
      logAttempt(a, 'ok');
      return reply;
    } catch (e) {
      if (def.mutates) cache = undefined;
      return fail(a, e, { replaceOriginal: o.replaceOriginal, visibility: o.replaceOriginal ? 'channel' : 'private' });
    }
  };

  // ---- dialogs ------------------------------------------------------------------------------
  const needsDialog = (def: AnyCommand) => def.confirm === 'typed-name' || !!def.secrets?.length;

  const dialogFields = (def: AnyCommand, args: Record<string, string>): DialogField[] => {
    const own = def.secrets ?? [];
    if (def.confirm !== 'typed-name') return own;
    const nodeArg = nodeArgOf(def);
    const typed = nodeArg ? args[nodeArg] : undefined;
    const fields: DialogField[] = [
      {
        name: CONFIRM_NAME_FIELD,
        label: "Type the node's name to confirm",
        kind: 'text',
        required: true,
        ...(typed ? { placeholder: typed } : {}),
        hint: 'This cannot be undone.',
      },
      { name: BACKUP_FIELD, label: 'Back up the node first (recommended: destroying is irreversible)', kind: 'checkbox', initial: 'true' },
    ];
    if (!own.some((f) => f.name === BACKUP_PASSWORD_FIELD)) {
      fields.push({
        name: BACKUP_PASSWORD_FIELD,
        label: 'Node password (for the backup)',
        kind: 'secret',
        required: false,
        hint: 'Needed only if you back up first. Never stored, shown or logged.',
      });
    }
    return [...fields, ...own.filter((f) => f.name !== CONFIRM_NAME_FIELD && f.name !== BACKUP_FIELD)];
  };

  const openDialog = (a: Attempt): Reply => {
    const def = a.def!;
    const t = now().getTime();
    const id = randomId('d_', 12);
    const kind = def.confirm === 'typed-name' ? 'typed-name' : 'secrets';
    dialogs.insert({
      id,
      kind,
      requesterJson: JSON.stringify(a.actor),
      requesterKey: actorKey(a.actor),
      placeJson: JSON.stringify(a.place),
      path: def.path,
      argsJson: JSON.stringify(a.args),
      createdAt: t,
      expiresAt: t + dialogTtlMs,
    });
    // "alice: Initialize a node's wallet; …": the node first, then what the command does.
    const named = typedNode(a);
    const lead = named ? `${named}: ` : '';
    const dialog: Dialog =
      kind === 'typed-name'
        ? {
            id,
            title: def.path.endsWith('destroy') ? 'Destroy node' : `Confirm ${def.path}`,
            intro: `${lead}${def.summary}. This is irreversible: type the node's name to confirm. Backing up first is recommended.`,
            submitLabel: def.path.endsWith('destroy') ? 'Destroy' : 'Confirm',
            fields: dialogFields(def, a.args),
          }
        : {
            id,
            title: `${def.path.charAt(0).toUpperCase()}${def.path.slice(1)}`,
            intro: `${lead}${def.summary}. This dialog is private: what you type is never shown in the channel, stored or logged.`,
            submitLabel: 'Run',
            fields: dialogFields(def, a.args),
          };
    count(def.path, 'dialog');
    logAttempt(a, 'dialog');
    return { kind: 'dialog', dialog };
  };

  // ---- confirmations -------------------------------------------------------------------------
  const askConfirmation = async (a: Attempt, parsed: Record<string, unknown>): Promise<Reply> => {
    const def = a.def!;
    // What will happen, in the command's own words (amount, payee…), before anything is stored.
    const preview = def.preview ? await def.preview({ args: parsed, actor: a.actor, place: a.place, node: a.node, services, secrets: {} }) : [];
    const t = now().getTime();
    const id = randomId('c_', 9);
    confirmations.insert({
      id,
      requesterJson: JSON.stringify(a.actor),
      requesterKey: actorKey(a.actor),
      placeJson: JSON.stringify(a.place),
      path: def.path,
      argsJson: JSON.stringify(a.args),
      createdAt: t,
      expiresAt: t + confirmTtlMs,
    });
    const fields: Field[] = [{ label: 'Command', value: commandLine(registry, def, redactArgs(def, a.args)) }];
    if (a.node) fields.push({ label: 'Node', value: `${a.node.name} (${statusBadge(String(a.node.status))})` });
    fields.push(...preview);
    fields.push({ label: 'Requested by', value: whoOf(a.actor) });
    const message = prepareMessage(
      {
        header: `Confirm: ${def.path}${a.node ? ` ${a.node.name}` : ''}?`,
        tone: 'warning',
        blocks: [
          msg.text(`${def.summary}. Nothing happens until it is confirmed.`),
          msg.fields(fields),
          msg.context(`Only ${whoOf(a.actor)} can confirm, within ${ttlText(confirmTtlMs)}.`),
        ],
        buttons: [
          { label: 'Confirm', style: 'danger', command: CONFIRM_COMMAND, args: { id } },
          { label: 'Cancel', style: 'secondary', command: CANCEL_COMMAND, args: { id } },
        ],
        summary: `Confirm ${def.path}? (requested by ${whoOf(a.actor)})`,
      },
      { ttlMs: Math.max(confirmTtlMs * 2, 24 * 3600_000) },
    );
    count(def.path, 'confirm');
    logAttempt(a, 'confirm');
    return { kind: 'message', message, visibility: 'channel' };
  };

  // ---- the pipeline for a command named by path ------------------------------------------------
  const runCommand = async (a: Attempt): Promise<Reply> => {
    const def = a.def!;
    try {
      // 1. validate
      const inline = findInlineSecret(def, a.args);
      if (inline) {
        registerTypedSecret(a.args[inline], Date.now(), 'refused');
        a.args = withoutSecrets(def, a.args);
        throw secretInline(def.path, inline);
      }
      const parsed = validate(def, a.args);
      // Dialogs open at once, with no I/O (Discord shows a modal only within 3 s).
      if (needsDialog(def)) {
        checkRole(a, def);
        return openDialog(a);
      }
      // 2. resolve the node
      await resolveTypedNode(a);
      // 3. role
      checkRole(a, def);
      // 4. confirmation
      if (def.confirm === 'button') return await askConfirmation(a, parsed);
      // 5-7
      return await run(a, parsed, {});
    } catch (e) {
      return fail(a, e);
    }
  };

  const typed = async (inv: Extract<Invocation, { via: 'typed' }>): Promise<Reply> => {
    const a: Attempt = { actor: inv.actor, place: inv.place, via: 'typed', args: {} };
    try {
      let path: string;
      let args: Record<string, string>;
      if (inv.path) {
        path = inv.path.trim().replace(/\s+/g, ' ').toLowerCase();
        args = { ...(inv.args ?? {}) };
        if (!registry.get(path)) {
          const near = registry.closest(path);
          throw new UserError(
            'unknown_command',
            `There is no command ${/^[a-z -]{1,40}$/.test(path) ? `\`${path}\`` : 'like that'}.`,
            near ? `Did you mean \`/rln ${near}\`? Type \`/rln help\` for every command.` : 'Type `/rln help` for every command.',
          );
        }
      } else {
        ({ path, args } = parseCommandLine(inv.text ?? '', registry));
      }
      a.def = registry.get(path)!;
      a.args = args;
    } catch (e) {
      // A refused inline secret is still a refused change: audit it, without the values.
      if (e instanceof UserError && e.code === 'secret_inline' && typeof e.context.path === 'string') {
        a.def = registry.get(e.context.path);
        a.args = (e.context.args as Record<string, string>) ?? {};
      }
      return fail(a, e);
    }
    return runCommand(a);
  };

  const loadConfirmation = (id: string) => {
    const row = id ? confirmations.get(id) : undefined;
    if (!row) {
      throw new UserError('confirmation_expired', 'This confirmation is no longer known (it expired some time ago).', 'Run the command again.');
    }
    const def = internal.get(row.path) ?? registry.get(row.path);
    if (!def) throw new UserError('unknown_command', `The command \`${row.path}\` no longer exists.`, 'Type `/rln help` for every command.');
    return { row, def, args: JSON.parse(row.argsJson) as Record<string, string>, requester: JSON.parse(row.requesterJson) as Actor };
  };

  const confirmClick = async (inv: Extract<Invocation, { via: 'button' }>, id: string): Promise<Reply> => {
    const a: Attempt = { actor: inv.actor, place: inv.place, via: 'button', args: {} };
    try {
      const { row, def, args, requester } = loadConfirmation(id);
      a.def = def;
      a.args = args;
      if (actorKey(inv.actor) !== row.requesterKey) {
        throw new UserError(
          'confirmation_wrong_user',
          `Only ${whoOf(requester)}, who asked for \`${def.path}\`, can confirm it.`,
          `Run \`${commandLine(registry, def, redactArgs(def, args))}\` yourself if you need it.`,
        );
      }
      if (row.usedAt !== null) {
        throw new UserError('confirmation_expired', `This confirmation was already used (${row.outcome ?? 'done'}).`, 'Run the command again if you need it.');
      }
      const t = now().getTime();
      if (t > row.expiresAt) {
        confirmations.claim(id, t, 'expired');
        return fail(a, new UserError('confirmation_expired', `This confirmation expired after ${ttlText(confirmTtlMs)}; nothing was done.`, `Run \`${commandLine(registry, def, redactArgs(def, args))}\` again.`), {
          replaceOriginal: true,
          visibility: 'channel',
        });
      }
      const parsed = validate(def, args);
      await resolveTypedNode(a);
      checkRole(a, def);
      if (!confirmations.claim(id, t, 'confirmed')) {
        throw new UserError('confirmation_expired', 'This confirmation was already used.', 'Run the command again if you need it.');
      }
      return await run(a, parsed, {}, { replaceOriginal: true });
    } catch (e) {
      return fail(a, e);
    }
  };

  const cancelClick = async (inv: Extract<Invocation, { via: 'button' }>, id: string): Promise<Reply> => {
    const a: Attempt = { actor: inv.actor, place: inv.place, via: 'button', args: {} };
    try {
      const { row, def, args, requester } = loadConfirmation(id);
      a.def = def;
      a.args = args;
      const isAdmin = ROLE_RANK[roles.roleOf(inv.actor)] >= ROLE_RANK.admin;
      if (actorKey(inv.actor) !== row.requesterKey && !isAdmin) {
        throw new UserError('confirmation_wrong_user', `Only ${whoOf(requester)}, who asked for \`${def.path}\`, or an admin can cancel it.`);
      }
      if (!confirmations.claim(id, now().getTime(), 'cancelled')) {
        throw new UserError('confirmation_expired', `This confirmation was already used (${row.outcome ?? 'done'}).`);
      }
      auditIf(a, 'refused', `cancelled by ${actorKey(inv.actor)}`);
      count(def.path, 'refused');
      logAttempt(a, 'cancelled');
      return {
        kind: 'message',
        visibility: 'channel',
        replaceOriginal: true,
        message: {
          header: `Cancelled: ${def.path}`,
          tone: 'neutral',
          blocks: [msg.text(`${commandLine(registry, def, redactArgs(def, args))} was cancelled by ${whoOf(inv.actor)}. Nothing was done.`)],
        },
      };
    } catch (e) {
      return fail(a, e);
    }
  };

  const clicked = async (inv: Extract<Invocation, { via: 'button' }>): Promise<Reply> => {
    const a: Attempt = { actor: inv.actor, place: inv.place, via: 'button', args: {} };
    let row;
    try {
      row = inv.buttonId ? buttons.get(inv.buttonId) : undefined;
      if (!row || row.expiresAt < now().getTime()) {
        throw new UserError('confirmation_expired', 'This button has expired or is no longer known.', 'Run the command again (`/rln help` lists them).');
      }
    } catch (e) {
      return fail(a, e);
    }
    const args = JSON.parse(row.argsJson) as Record<string, string>;
    if (row.command === CONFIRM_COMMAND) return confirmClick(inv, args.id ?? '');
    if (row.command === CANCEL_COMMAND) return cancelClick(inv, args.id ?? '');
    const def = internal.get(row.command) ?? registry.get(row.command);
    if (!def) return fail(a, new UserError('unknown_command', `The command \`${row.command}\` no longer exists.`, 'Type `/rln help` for every command.'));
    a.def = def;
    a.args = args;
    return runCommand(a);
  };

  const submitted = async (inv: Extract<Invocation, { via: 'dialog' }>): Promise<Reply> => {
    const a: Attempt = { actor: inv.actor, place: inv.place, via: 'dialog', args: {} };
    const values = inv.values ?? {};
    try {
      const row = inv.dialogId ? dialogs.get(inv.dialogId) : undefined;
      if (!row) throw new UserError('confirmation_expired', 'This dialog is no longer open.', 'Run the command again.');
      const def = internal.get(row.path) ?? registry.get(row.path);
      if (!def) throw new UserError('unknown_command', `The command \`${row.path}\` no longer exists.`);
      a.def = def;
      a.args = JSON.parse(row.argsJson);
      const fields = dialogFields(def, a.args);
      // Secrets are masked in every log line from now on.
      for (const f of fields) if (f.kind === 'secret' || isSecretName(def, f.name)) registerTypedSecret(values[f.name]);
      if (actorKey(inv.actor) !== row.requesterKey) {
        throw new UserError('confirmation_wrong_user', 'This dialog belongs to someone else.', `Run \`/rln ${def.path}\` yourself.`);
      }
      if (row.usedAt !== null) throw new UserError('confirmation_expired', 'This dialog was already submitted.', 'Run the command again if you need it.');
      const t = now().getTime();
      if (t > row.expiresAt) {
        throw new UserError('confirmation_expired', `This dialog expired after ${ttlText(dialogTtlMs)}; nothing was done.`, `Run \`/rln ${def.path}\` again.`);
      }
      checkRole(a, def);
      // The stored arguments are checked before the node is looked up; the fields are merged in below.
      validate(def, a.args);
      await resolveTypedNode(a);

      const secrets: Record<string, string> = {};
      const errors: Record<string, string> = {};
      const extraArgs: Record<string, string> = {};
      for (const f of fields) {
        const raw = values[f.name];
        if (f.kind === 'checkbox') {
          const v = checkboxValue(raw);
          secrets[f.name] = v;
          if (f.name in (def.args as any).shape) extraArgs[f.name] = v;
          continue;
        }
        const v = f.kind === 'secret' ? (raw ?? '') : (raw ?? '').trim();
        if (f.required !== false && !v) {
          errors[f.name] = `${f.label} is required.`;
          continue;
        }
        if (f.name === CONFIRM_NAME_FIELD) continue;
        if (v) secrets[f.name] = v;
        if (f.kind !== 'secret' && !isSecretName(def, f.name) && v && f.name in (def.args as any).shape) extraArgs[f.name] = v;
      }
      a.auditExtra = Object.fromEntries(Object.entries(secrets).filter(([k]) => !isSecretName(def, k) && !fields.find((f) => f.name === k && f.kind === 'secret')));

      if (row.kind === 'typed-name') {
        const typedName = (values[CONFIRM_NAME_FIELD] ?? '').trim();
        const nodeArg = nodeArgOf(def);
        const expected = a.node?.name ?? (nodeArg ? a.args[nodeArg] : '');
        if (typedName !== expected) {
          errors[CONFIRM_NAME_FIELD] = typedName
            ? `That is not the node's name. Type ${expected} exactly, or close the dialog to keep the node.`
            : `Type ${expected} to confirm.`;
          auditIf(a, 'refused', 'confirmation_mismatch: the typed name did not match the node');
          count(def.path, 'refused');
          logAttempt(a, 'refused', { reason: 'typed name did not match' });
          return { kind: 'dialog_errors', errors };
        }
        if (secrets[BACKUP_FIELD] === 'true' && !secrets[BACKUP_PASSWORD_FIELD]) {
          errors[BACKUP_PASSWORD_FIELD] = 'Enter the node password to back it up first, or untick the backup.';
        }
      }
      if (Object.keys(errors).length) {
        count(def.path, 'dialog_errors');
        return { kind: 'dialog_errors', errors };
      }
      const merged = { ...a.args, ...extraArgs };
      const parsed = validate(def, merged);
      a.args = merged;
      if (!dialogs.claim(row.id, t)) throw new UserError('confirmation_expired', 'This dialog was already submitted.');
      return await run(a, parsed, secrets);
    } catch (e) {
      return fail(a, e);
    }
  };

  sweep();

  return {
    roles,
    audit,
    registry,
    invalidateNodes: () => {
      cache = undefined;
    },
    async dispatch(inv: Invocation): Promise<Reply> {
      try {
        if (inv.via === 'typed') return await typed(inv);
        if (inv.via === 'button') return await clicked(inv);
        if (inv.via === 'dialog') return await submitted(inv);
        throw new UserError('unknown_command', 'This kind of interaction is not supported.');
      } catch (e) {
        // Last resort: the steps above already turn errors into replies.
        return fail({ actor: (inv as any)?.actor ?? { platform: 'shell', userId: 'unknown' }, place: (inv as any)?.place ?? { platform: 'shell', channelId: 'unknown' }, via: (inv as any)?.via ?? 'typed', args: {} }, e, { audit: false });
      }
    },
    async suggestNodes(prefix: string) {
      let nodes: HostedNode[];
      try {
        nodes = (await listNodes()).nodes;
      } catch (e) {
        logger.warn({ err: e }, 'could not list nodes for autocomplete');
        return [];
      }
      const p = (prefix ?? '').trim().toLowerCase();
      return nodes
        .filter((n) => !p || n.name.toLowerCase().startsWith(p) || n.nodeId.toLowerCase().startsWith(p))
        .sort((x, y) => x.name.localeCompare(y.name))
        .slice(0, 25)
        .map((n) => ({ name: n.name, nodeId: n.nodeId, status: String(n.status) }));
    },
    prepareMessage,
  };
}

export type { Role };
