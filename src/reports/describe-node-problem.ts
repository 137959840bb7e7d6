/**
 * Why a node cannot be reported on, as one line with what to do: from its hosting status
 * before asking it anything, or from the error its node API gave.
 */
import type { HostedNode } from '../hosting/index.js';
import { redactText } from '../log.js';
import { NodeDeadlineError } from '../node-api/index.js';

export interface NodeProblem {
  problem: string;
  hint?: string;
}

/** A problem known from the hosting status alone (no point asking the node API), or undefined. */
export function problemFromStatus(node: HostedNode): NodeProblem | undefined {
  const name = node.name;
  switch (node.status) {
    case 'PAUSED':
      return { problem: 'paused', hint: `start it with /rln node start ${name}` };
    case 'STARTING':
      return { problem: 'starting', hint: 'try again in a minute' };
    case 'IN_PROGRESS':
      return { problem: 'being updated', hint: 'try again in a few minutes' };
    case 'FAILED':
      return { problem: 'failed', hint: `see /rln node logs ${name}, or restart it with /rln node start ${name}` };
  }
  if (!node.invoke_url)
    return { problem: 'unreachable: the service gives no node API address for it', hint: `check /rln node info ${name}` };
  return undefined;
}

function field(e: unknown, key: string): unknown {
  return e && typeof e === 'object' ? (e as Record<string, unknown>)[key] : undefined;
}

/** The problem behind an error thrown while asking the node API. */
export function problemFromError(node: HostedNode, e: unknown): NodeProblem {
  const name = node.name;
  if (e instanceof NodeDeadlineError) {
    return { problem: `did not answer within ${Math.round(e.ms / 100) / 10} s`, hint: `check it with /rln node info ${name}` };
  }
  const rlnName = field(e, 'rlnName');
  if (rlnName === 'LockedNode') return { problem: 'locked', hint: `unlock it with /rln node unlock ${name}` };
  if (rlnName === 'NotInitialized') return { problem: 'not initialised', hint: `initialise it with /rln node init ${name}` };
  if (rlnName === 'NodeNotRunning') return { problem: 'not running', hint: `start it with /rln node start ${name}` };
  const kind = field(e, 'kind');
  const hint = field(e, 'hint');
  const nodeHint = typeof hint === 'string' && hint ? redactText(hint.replaceAll('<node>', name)) : `check it with /rln node info ${name}`;
  if (kind === 'timeout') return { problem: 'did not answer in time', hint: nodeHint };
  const message = redactText(e instanceof Error ? e.message : String(e));
  if (kind === 'network' || kind === 'tls' || (kind === undefined && rlnName === undefined && field(e, 'status') === undefined)) {
    return { problem: `unreachable: ${message}`, hint: nodeHint };
  }
  return { problem: `error: ${message}`, hint: nodeHint };
}
