/**
 * The gate of commands that only later RLN images can run (`asset issue-ifa`, `swap decode`, a send to
 * several recipients): on a node whose image lacks the capability, the command is refused before any
 * dialog or confirmation, saying which image it needs and offering `node upgrade`. Generic over the
 * capability; the node API client learns it per node (src/node-api/generations.ts).
 */
import { UserError } from '../../src/vocabulary/index.js';
import type { Refusal } from '../../src/engine/index.js';
import { ADDED, isAdded, type Capability } from '../../src/node-api/index.js';
import type { CommandContext } from '../define-command.js';
import { imageOf } from './node-image.js';
import { requireNode } from './require-node.js';

/** What a capability lets a node do, in words, for the refusal. */
const FEATURE: Record<Capability, string> = {
  send: 'sending through `/sendrgb` (several recipients in one transfer)',
  unlock: 'unlocking with a chain-sync mode',
  rgbinvoice: 'RGB invoices with chosen transport endpoints',
  listtransfers: 'listing the transfers of every asset at once',
  sync: 'syncing with a strategy',
  refreshtransfers: 'refreshing the transfers of one asset',
  listunspents: 'listing only settled allocations',
  ifa: 'inflatable (IFA) assets',
  swapstring: 'decoding a swap string',
  outofband: 'out-of-band transfers (consignments as files)',
};

/** The RLN commit that brought a capability, as the refusal names it. */
const sinceOf = (cap: Capability): string => (isAdded(cap) ? ADDED[cap].since : '6887cbf');

export interface NeedsCapability {
  /** The command, as typed after `/rln`: `asset issue-ifa`. */
  command: string;
  /** Overrides the capability's own words (`sending to several recipients in one transfer`). */
  feature?: string;
}

/**
 * A refusal when the command's node lacks `cap` (its image speaks f379330 there), else undefined. When the
 * node cannot be asked, it is not refused here: the command's own call then says what the node answered.
 */
export async function needsCapability(ctx: CommandContext<unknown>, cap: Capability, o: NeedsCapability): Promise<Refusal | undefined> {
  const node = requireNode(ctx);
  let shape: string;
  try {
    shape = await ctx.services.nodeApi(node).generation(cap);
  } catch {
    return undefined;
  }
  if (shape !== 'f379330') return undefined;
  const runs = imageOf(node);
  let latest: string | undefined;
  try {
    latest = (await ctx.services.hosting.latestImage()).version;
  } catch {
    latest = undefined;
  }
  const feature = o.feature ?? FEATURE[cap];
  const what = `\`${o.command}\` needs an RLN image with ${feature} (RLN ${sinceOf(cap)} or later)`;
  const has = `${node.name} runs ${runs ?? 'an image'} without it`;
  if (latest !== undefined && runs === latest) {
    return {
      reason: `${what}: ${has}, and that is already the latest image.`,
      next: 'No image the service offers has it yet; see `/rln node image` when a new one is released.',
    };
  }
  return {
    reason: `${what}: ${has}.${latest ? ` The latest image, ${latest}, has it.` : ''}`,
    next: `Upgrade it with \`/rln node upgrade ${node.name}\` (it comes back locked: unlock it after), then run \`${o.command}\` again.`,
  };
}

/** The same gate inside a handler: throws the refusal as a UserError (a node upgraded back, or a check that was late). */
export async function requireCapability(ctx: CommandContext<unknown>, cap: Capability, o: NeedsCapability): Promise<void> {
  const refusal = await needsCapability(ctx, cap, o);
  if (refusal) throw new UserError('wrong_state', refusal.reason, refusal.next);
}
