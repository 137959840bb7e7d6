/**
 * Where a command's reads of many nodes go: the app's call scheduler (Services.nodeCalls), or,
 * when the services give none (a test, a tool), one shared by the commands of this process, so
 * that the overall bound holds across commands run at once.
 */
import { createCallScheduler, type CallScheduler } from '../../src/node-api/index.js';
import type { CommandContext } from '../define-command.js';

let shared: CallScheduler | undefined;

export function nodeCallsOf(ctx: CommandContext<unknown>): CallScheduler {
  return ctx.services.nodeCalls ?? (shared ??= createCallScheduler());
}
