/**
 * The one dispatcher behind every adapter. A typed command, a click and a dialog submission each
 * become an Attempt (pipeline/from-*.ts) that runs the same steps in the same order
 * (pipeline/run-steps.ts). It never throws: every failure becomes a message the user can act on.
 * It builds nothing the composition root owns: services, button ids and confirmations come in.
 */
import { silentLogger, type Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { EngineServices } from './types.js';
import type { Dispatcher, Invocation, Reply } from './types.js';
import { UserError, withDeadline } from '../vocabulary/index.js';
import type { AnyCommand, Registry } from './types.js';
import type { RoleService } from '../access/index.js';
import type { AuditLog } from '../access/index.js';
import type { ButtonIds } from './button-ids.js';
import type { Confirmations } from './confirmations.js';
import { createNodeLookup } from './node-lookup.js';
import type { Pipeline } from './pipeline/attempt.js';
import { failAttempt } from './pipeline/record-outcome.js';
import { fromTyped } from './pipeline/from-typed.js';
import { fromClick } from './pipeline/from-click.js';
import { fromDialog } from './pipeline/from-dialog.js';
import { CANCEL_COMMAND, CONFIRM_COMMAND } from './pipeline/steps/confirm.js';
import { OPEN_DIALOG_COMMAND } from './pipeline/in-time.js';
import { APPROVE_COMMAND, CONTINUE_COMMAND, REJECT_COMMAND } from './pipeline/steps/require-approval.js';
import { rejectApprovalCommand } from './pipeline/reject-approval.js';

/**
 * The engine is generic over the services it is given (`Svc`): it uses only what EngineServices
 * names, and hands the whole object to every command's handler.
 */
export interface DispatcherOptions<Svc extends EngineServices = EngineServices> {
  registry: Registry;
  /** Every service handlers use, built once by the composition root. `now` is the clock. */
  services: Svc;
  buttons: ButtonIds;
  confirmations: Confirmations;
  logger?: Logger;
  metrics?: Metrics;
  /** How long a button confirmation stays usable. Default 5 minutes. */
  confirmTtlMs?: number;
  /** How long a dialog may be submitted. Default 15 minutes. */
  dialogTtlMs?: number;
  /** How long the node list is cached for resolution and autocomplete. Default 5 s. */
  nodeCacheMs?: number;
  /** How long the steps before a dialog (node, state check) may take. Default 2 s, under the platforms' 3 s. */
  dialogBudgetMs?: number;
  /**
   * Commands only buttons run (an incident's "acknowledge"): not in help, parsing or Discord
   * registration. Paths start with `__` (e.g. `__incident_ack`). They go through the same pipeline.
   */
  internal?: AnyCommand[];
  /**
   * The deadline the calls of one interaction (a typed command, a click, a dialog submission) share,
   * whoever makes them (`withDeadline`): a node that does not answer is said to within it. Default 10 s.
   */
  callDeadlineMs?: number;
}

export interface CoreDispatcher extends Dispatcher {
  roles: RoleService;
  audit: AuditLog;
  registry: Registry;
  /** Forgets the cached node list (after a node is created or destroyed elsewhere). */
  invalidateNodes(): void;
}

const RESERVED = new Set([CONFIRM_COMMAND, CANCEL_COMMAND, OPEN_DIALOG_COMMAND, APPROVE_COMMAND, REJECT_COMMAND, CONTINUE_COMMAND]);

export function createDispatcher<Svc extends EngineServices>(opts: DispatcherOptions<Svc>): CoreDispatcher {
  const { registry, services } = opts;
  const internal = new Map<string, AnyCommand>();
  for (const def of opts.internal ?? []) {
    if (!/^__[a-z0-9_-]+$/.test(def.path) || RESERVED.has(def.path)) {
      throw new Error(`internal command "${def.path}" must be named __something (and not ${[...RESERVED].join('/')})`);
    }
    if (internal.has(def.path)) throw new Error(`two internal commands are defined with the path "${def.path}"`);
    internal.set(def.path, def);
  }
  internal.set(REJECT_COMMAND, rejectApprovalCommand);
  const callDeadlineMs = opts.callDeadlineMs ?? 10_000;
  const nodes = createNodeLookup({ hosting: services.hosting, now: () => services.now(), cacheMs: opts.nodeCacheMs });
  const p: Pipeline = {
    registry,
    services,
    buttons: opts.buttons,
    confirmations: opts.confirmations,
    nodes,
    logger: opts.logger ?? silentLogger,
    metrics: opts.metrics,
    now: () => services.now(),
    confirmTtlMs: opts.confirmTtlMs ?? 5 * 60_000,
    dialogTtlMs: opts.dialogTtlMs ?? 15 * 60_000,
    dialogBudgetMs: opts.dialogBudgetMs ?? 2_000,
  };

  return {
    roles: services.access,
    audit: services.audit,
    registry,
    invalidateNodes: () => nodes.invalidate(),
    async dispatch(inv: Invocation): Promise<Reply> {
      try {
        // One deadline for every call the interaction makes (a node's, through its client): it ends with the interaction.
        return await withDeadline(callDeadlineMs, async () => {
          if (inv.via === 'typed') return await fromTyped(inv, p);
          if (inv.via === 'button') return await fromClick(inv, p, internal);
          if (inv.via === 'dialog') return await fromDialog(inv, p, internal);
          throw new UserError('unknown_command', 'This kind of interaction is not supported.');
        });
      } catch (e) {
        // Last resort: the steps above already turn errors into replies.
        const x = inv as Partial<Invocation> | undefined;
        const attempt = {
          actor: x?.actor ?? { platform: 'shell' as const, userId: 'unknown' },
          place: x?.place ?? { platform: 'shell' as const, channelId: 'unknown' },
          via: x?.via ?? ('typed' as const),
          args: {},
          secrets: {},
          startedAt: p.now(),
        };
        return failAttempt(p, attempt, e, { audit: false });
      }
    },
    async suggestNodes(prefix: string) {
      let list;
      try {
        list = await nodes.list();
      } catch (e) {
        p.logger.warn({ err: e }, 'could not list nodes for autocomplete');
        return [];
      }
      const pre = (prefix ?? '').trim().toLowerCase();
      return list
        .filter((n) => !pre || n.name.toLowerCase().startsWith(pre) || n.nodeId.toLowerCase().startsWith(pre))
        .sort((x, y) => x.name.localeCompare(y.name))
        .slice(0, 25)
        .map((n) => ({ name: n.name, nodeId: n.nodeId, status: String(n.status) }));
    },
    prepareMessage: (message, o) => opts.buttons.prepare(message, o),
  };
}
