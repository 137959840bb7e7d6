/**
 * Whether a node's wallet is uninitialised, locked or unlocked, as its node API says: asked of
 * a few nodes at a time and waited for only briefly, so that `node list` stays fast when a node
 * hangs ("unknown" then).
 */
import { within, LATE } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { walletStateOf } from '../../src/node-api/index.js';
import { nodeCallsOf } from './node-calls.js';
import { readOnce } from './read-once.js';

export type LockState = 'uninitialised' | 'locked' | 'unlocked' | 'unknown' | 'not running';

export const LOCK_STATE_TIMEOUT_MS = 1_500;

const MARK: Record<LockState, string> = {
  uninitialised: '⚪ uninitialised',
  locked: '🔒 locked',
  unlocked: '🔓 unlocked',
  unknown: '❔ unknown',
  'not running': '—',
};

export function lockStateText(s: LockState): string {
  return MARK[s];
}

/**
 * The node's lock state, or "unknown" when it does not say within `timeoutMs`. Asked once per
 * attempt (`ctx.reads`): a command's check, dialog fields and preview share the answer, each
 * waiting for it as long as its own timeout allows.
 */
export async function lockStateOf(ctx: CommandContext<unknown>, node: HostedNode, timeoutMs: number): Promise<LockState> {
  if (node.status !== 'RUNNING' || !node.invoke_url) return 'not running';
  const r = await within(askedOnce(ctx, node), timeoutMs);
  return r === LATE ? 'unknown' : r;
}

function askedOnce(ctx: CommandContext<unknown>, node: HostedNode): Promise<LockState> {
  return readOnce(ctx, `lock-state:${node.nodeId}`, async (): Promise<LockState> => {
    try {
      await ctx.services.nodeApi(node).nodeinfo();
      return 'unlocked';
    } catch (e) {
      return walletStateOf(e) ?? 'unknown';
    }
  });
}

/** How long `node list` waits, in all, for the lock states; what has not answered by then is "unknown". */
export const LOCK_STATES_DEADLINE_MS = 3_000;

/** The lock state of each node, in order. */
export async function lockStates(
  ctx: CommandContext<unknown>,
  nodes: HostedNode[],
  opts: { timeoutMs?: number; deadlineMs?: number } = {},
): Promise<LockState[]> {
  const states: LockState[] = nodes.map((n) => (n.status === 'RUNNING' && n.invoke_url ? 'unknown' : 'not running'));
  await within(
    // Nodes not running are not asked: they need no turn of the scheduler.
    nodeCallsOf(ctx).map(
      nodes.flatMap((n, i) => (n.status === 'RUNNING' && n.invoke_url ? [{ n, i }] : [])),
      ({ n }) => n.nodeId,
      async ({ n, i }) => {
        states[i] = await lockStateOf(ctx, n, opts.timeoutMs ?? LOCK_STATE_TIMEOUT_MS);
      },
      { deadlineMs: opts.timeoutMs ?? LOCK_STATE_TIMEOUT_MS, onError: () => undefined },
    ),
    opts.deadlineMs ?? LOCK_STATES_DEADLINE_MS,
  );
  return [...states];
}
