/**
 * Whether a node's wallet is uninitialised, locked or unlocked, as its node API says: asked of
 * a few nodes at a time and waited for only briefly, so that `node list` stays fast when a node
 * hangs ("unknown" then).
 */
import { within, LATE } from '../../src/core/within.js';
import type { CommandContext } from '../../src/core/types.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { mapLimited } from '../../src/reports/map-limited.js';
import { rlnNameOf } from './present.js';

export type LockState = 'uninitialised' | 'locked' | 'unlocked' | 'unknown' | 'not running';

export const LOCK_STATE_TIMEOUT_MS = 1_500;
export const LOCK_STATE_CONCURRENCY = 4;

const MARK: Record<LockState, string> = { uninitialised: '⚪ uninitialised', locked: '🔒 locked', unlocked: '🔓 unlocked', unknown: '❔ unknown', 'not running': '—' };

export function lockStateText(s: LockState): string {
  return MARK[s];
}

async function lockStateOf(ctx: CommandContext<unknown>, node: HostedNode, timeoutMs: number): Promise<LockState> {
  if (node.status !== 'RUNNING' || !node.invoke_url) return 'not running';
  try {
    const r = await within(ctx.services.nodeApi(node).nodeinfo(), timeoutMs);
    return r === LATE ? 'unknown' : 'unlocked';
  } catch (e) {
    const name = rlnNameOf(e);
    if (name === 'LockedNode') return 'locked';
    if (name === 'NotInitialized') return 'uninitialised';
    return 'unknown';
  }
}

/** The lock state of each node, in order. */
export function lockStates(ctx: CommandContext<unknown>, nodes: HostedNode[], opts: { timeoutMs?: number; concurrency?: number } = {}): Promise<LockState[]> {
  return mapLimited(nodes, opts.concurrency ?? LOCK_STATE_CONCURRENCY, (n) => lockStateOf(ctx, n, opts.timeoutMs ?? LOCK_STATE_TIMEOUT_MS));
}
