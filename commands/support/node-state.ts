/**
 * What a node's commands check before they ask (issue 12, §1) and what their confirmations
 * show (§2): its status at the service, its wallet's lock state, what goes offline with it and
 * what funds it still holds. Every reading here is read-only and bounded; what cannot be read in
 * time is said so, never guessed.
 */
import { formatSats, msatToSat, withPrecision, within, LATE, type Field } from '../../src/vocabulary/index.js';
import { type CommandContext } from '../define-command.js';
import { type Refusal } from '../../src/engine/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { assetLabel, loadAssets } from './asset-table.js';
import { lockStateOf, type LockState } from './lock-state.js';

/** How long one reading for a confirmation may take (the node answers in milliseconds when well). */
export const FACTS_TIMEOUT_MS = 1_500;

type Ctx = CommandContext<unknown>;

/** What to do about a node that is not RUNNING, by its status. */
export function notRunningNext(node: { name: string; status: string }): string {
  switch (node.status) {
    case 'PAUSED':
      return `Start it with \`/rln node start ${node.name}\`.`;
    case 'FAILED':
      return `See why with \`/rln node info ${node.name}\` and \`/rln node logs ${node.name}\`.`;
    default:
      return `Wait until it is RUNNING: \`/rln node info ${node.name}\`.`;
  }
}

/** The node as the service sees it now (not the cached list: it may have changed a moment ago). */
export async function freshNode(ctx: Ctx, node: HostedNode): Promise<HostedNode> {
  return ctx.services.hosting.getNode(node.nodeId);
}

/** Refuses when the node is not RUNNING: its node API does not answer then. */
export async function requireRunning(ctx: Ctx, node: HostedNode, action: string): Promise<Refusal | undefined> {
  const { status } = await freshNode(ctx, node);
  if (status === 'RUNNING') return undefined;
  return {
    reason: `${node.name} is ${status}, not RUNNING: its node API does not answer, so it cannot ${action}.`,
    next: notRunningNext({ name: node.name, status }),
  };
}

/** The wallet state a lifecycle command needs, and the words for refusing the others. */
export type WalletNeed = 'uninitialised' | 'initialised' | 'locked' | 'unlocked' | 'not unlocked';

/**
 * Refuses a lifecycle command (init, unlock, lock, password, backup, restore) whose wallet is not
 * in the state it needs, before its dialog asks for a password. A node that does not say its
 * state in time is not refused: the node answers for itself when the command runs.
 */
export async function requireWallet(
  ctx: Ctx,
  node: HostedNode,
  need: WalletNeed,
  action: string,
  o: { /** Added to the refusal of an unlocked node that needs to be locked: another way. */ whenUnlocked?: string } = {},
): Promise<Refusal | undefined> {
  const down = await requireRunning(ctx, node, action);
  if (down) return down;
  const state: LockState = await lockStateOf(ctx, { ...node, status: 'RUNNING' }, FACTS_TIMEOUT_MS);
  if (state === 'unknown' || state === 'not running' || state === need) return undefined;
  if (need === 'not unlocked' && state !== 'unlocked') return undefined;
  if (need === 'initialised' && state !== 'uninitialised') return undefined;
  const n = node.name;
  if (state === 'uninitialised')
    return { reason: `${n} is not initialized yet: there is no wallet to ${action}.`, next: `Initialize it with \`/rln node init ${n}\`.` };
  if (need === 'uninitialised') {
    return state === 'locked'
      ? { reason: `${n} is already initialized (its wallet is locked).`, next: `Unlock it with \`/rln node unlock ${n}\`.` }
      : {
          reason: `${n} is already initialized and unlocked: there is nothing to initialize.`,
          next: `See it with \`/rln node info ${n}\`.`,
        };
  }
  if (need === 'unlocked') return { reason: `${n} is already locked.`, next: `Unlock it with \`/rln node unlock ${n}\`.` };
  // need === 'locked', the wallet is unlocked
  if (action === 'unlock')
    return { reason: `${n} is already unlocked.`, next: `Nothing to do. Lock it with \`/rln node lock ${n}\` if you meant that.` };
  return {
    reason: `${n} is unlocked: the node can ${action} only while it is locked.`,
    next: `Lock it first with \`/rln node lock ${n}\`, then run this again.${o.whenUnlocked ? ` ${o.whenUnlocked}` : ''}`,
  };
}

/** Reads something from a node for a confirmation, or undefined when it fails or is late. */
async function read<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    const r = await within(work(), FACTS_TIMEOUT_MS);
    return r === LATE ? undefined : r;
  } catch {
    return undefined;
  }
}

/** The node's channels in one line: how many, usable, and the balances on our side. */
async function channelsLine(ctx: Ctx, node: HostedNode): Promise<string | undefined> {
  const r = await read(() => ctx.services.nodeApi(node).listchannels());
  if (!r) return undefined;
  const channels = r.channels ?? [];
  if (channels.length === 0) return 'no channels';
  let local = 0n;
  for (const c of channels) local += msatToSat(c.outbound_balance_msat ?? 0);
  const usable = channels.filter((c) => c.is_usable).length;
  return `${channels.length} channel${channels.length === 1 ? '' : 's'} (${usable} usable, ${formatSats(local)} on our side)`;
}

/** What goes offline when the node stops, shuts down or locks: a confirmation field. */
export async function offlineField(ctx: Ctx, node: HostedNode, until: string): Promise<Field> {
  const ch = await channelsLine(ctx, node);
  const what = !ch
    ? `${node.name}'s node API and every channel it has`
    : ch === 'no channels'
      ? `${node.name}'s node API (it has no channels)`
      : `${node.name}'s node API and its ${ch}`;
  return { label: 'Goes offline', value: `${what}: no payments are sent, received or routed until ${until}.` };
}

/**
 * What the node still holds, for `node destroy`: on-chain sats, channel balances and RGB assets,
 * with the amounts. Empty means it holds nothing it could say; `unread` lists what it could not
 * read (a stopped or locked node says nothing: it may still hold funds).
 */
export async function fundsOf(ctx: Ctx, node: HostedNode): Promise<{ holds: string[]; unread: boolean }> {
  const api = ctx.services.nodeApi(node);
  const [btc, channels, assets] = await Promise.all([
    read(() => api.btcbalance({ skip_sync: true })),
    read(() => api.listchannels()),
    read(() => loadAssets(api)),
  ]);
  const holds: string[] = [];
  if (btc) {
    const sats = BigInt(btc.vanilla?.settled ?? 0) + BigInt(btc.colored?.settled ?? 0);
    const future = BigInt(btc.vanilla?.future ?? 0) + BigInt(btc.colored?.future ?? 0);
    const total = sats > future ? sats : future;
    if (total > 0n) holds.push(`${formatSats(total)} on-chain`);
  }
  if (channels) {
    const list = channels.channels ?? [];
    let local = 0n;
    for (const c of list) local += msatToSat(c.outbound_balance_msat ?? 0);
    if (list.length > 0) holds.push(`${formatSats(local)} in ${list.length} channel${list.length === 1 ? '' : 's'}`);
  }
  for (const a of assets ?? []) {
    const total = BigInt(a.settled ?? 0) + BigInt(a.offchain_outbound ?? 0);
    if (total > 0n) holds.push(`${withPrecision(total, a.precision)} ${assetLabel(a)}`);
  }
  return { holds, unread: !btc || !channels || !assets };
}
