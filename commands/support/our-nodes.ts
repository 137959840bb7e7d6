/**
 * Our own nodes by name where a pubkey is asked or shown: `pay keysend alice bob`, `peer
 * disconnect alice bob`, and `bob (03ab…)` beside a pubkey in peer and channel lists.
 */
import { UserError } from '../../src/vocabulary/index.js';
import { within, LATE } from '../../src/vocabulary/index.js';
import type { CommandContext } from '../define-command.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { nodeCallsOf } from './node-calls.js';

export const PUBKEY_RE = /^[0-9a-fA-F]{66}$/;

/** How long one node may take to say its pubkey (how many are asked at once is the call scheduler's). */
export const PUBKEY_TIMEOUT_MS = 2_000;
/** How long a list waits, in all, for the names of our nodes beside the pubkeys it shows. */
export const NAMES_DEADLINE_MS = 3_000;

/**
 * The one node of the account a name or id means: its id, its exact name, or its name in any
 * case. Several nodes whose names differ only in case are refused with the candidates.
 */
export function matchOurNode(nodes: HostedNode[], ref: string): HostedNode | undefined {
  const exact = nodes.find((n) => n.nodeId === ref) ?? nodes.find((n) => n.name === ref);
  if (exact) return exact;
  const loose = nodes.filter((n) => n.name.toLowerCase() === ref.toLowerCase());
  if (loose.length > 1) {
    throw new UserError(
      'invalid_arguments',
      `${JSON.stringify(ref)} matches ${loose.length} nodes: ${loose.map((n) => `${n.name} (${n.nodeId})`).join(', ')}.`,
      'Give the exact name or the node id.',
    );
  }
  return loose[0];
}

async function pubkeyOf(ctx: CommandContext<unknown>, node: HostedNode): Promise<string | undefined> {
  try {
    const r = await within(ctx.services.nodeApi(node).nodeinfo(), PUBKEY_TIMEOUT_MS);
    return r === LATE ? undefined : (r.pubkey ?? undefined);
  } catch {
    return undefined;
  }
}

/**
 * A pubkey argument: 66 hex digits as given, or the name (or id) of one of our nodes, whose
 * pubkey its node API reports. Anything else is refused, naming the argument.
 */
export async function resolvePubkey(ctx: CommandContext<unknown>, value: string, arg: string): Promise<{ pubkey: string; name?: string }> {
  const v = value.trim();
  if (PUBKEY_RE.test(v)) return { pubkey: v.toLowerCase(), name: (await ourNodeNames(ctx)).get(v.toLowerCase()) };
  const node = matchOurNode(await ctx.services.hosting.listNodes(), v);
  if (!node) {
    throw new UserError(
      'invalid_arguments',
      `\`${arg}\` takes a node pubkey (66 hex digits) or the name of one of your nodes; ${JSON.stringify(v.slice(0, 80))} is neither.`,
      'Example: `bob`, or `03b79a4bc1…` (66 hex digits). See `node list` for your nodes.',
    );
  }
  const pubkey = await pubkeyOf(ctx, node);
  if (!pubkey)
    throw new UserError(
      'invalid_arguments',
      `${node.name} did not report its pubkey (it is ${node.status}; is it unlocked?).`,
      `Check it with \`node info ${node.name}\`, or give the pubkey.`,
    );
  return { pubkey: pubkey.toLowerCase(), name: node.name };
}

/** pubkey -> name of every running node of the account that answers in time; empty when the service does not. */
export async function ourNodeNames(ctx: CommandContext<unknown>): Promise<Map<string, string>> {
  const nodes = await ctx.services.hosting.listNodes().catch(() => [] as HostedNode[]);
  const running = nodes.filter((n) => n.status === 'RUNNING' && n.invoke_url);
  const out = new Map<string, string>();
  // Names are a nicety beside a pubkey: whatever has answered by the deadline is shown.
  await within(
    nodeCallsOf(ctx).map(
      running,
      (n) => n.nodeId,
      async (n) => {
        const key = await pubkeyOf(ctx, n);
        if (key) out.set(key.toLowerCase(), n.name);
      },
      { deadlineMs: PUBKEY_TIMEOUT_MS, onError: () => undefined },
    ),
    NAMES_DEADLINE_MS,
  );
  return new Map(out);
}

/** `bob (03ab12…)` when the pubkey is one of our nodes, else the pubkey shortened. */
export function pubkeyLabel(names: Map<string, string>, pubkey: string | null | undefined, short: (s: string) => string): string {
  if (!pubkey) return '—';
  const name = names.get(pubkey.toLowerCase());
  return name ? `${name} (${short(pubkey)})` : short(pubkey);
}
