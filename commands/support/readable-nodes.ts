/**
 * What a read that lists the account's nodes (`node list`, `status`, `report … all`) may show: a
 * grant scoped to some nodes reads those nodes only (src/access/role-service.ts), so such a list
 * shows them and says so. People who read every node get every node and no note. Every listing
 * command asks here, once, rather than filtering in its own way.
 */
import { msg, type Message } from '../../src/vocabulary/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import type { ReadableNode } from '../../src/reports/index.js';
import type { CommandContext } from '../define-command.js';

export interface Readable {
  /** Whether the asker may read this node; absent when they may read every node. */
  may?: ReadableNode;
  /** `showing the 2 nodes you may read`, for a list cut to the asker's scope; absent otherwise. */
  note(shown: number): string | undefined;
}

/** The asker's reach over the account's nodes, in this channel. */
export async function readableOf(ctx: CommandContext<unknown>): Promise<Readable> {
  const names = await ctx.services.access.readableNodes(ctx.actor, ctx.place.channelId);
  if (!names) return { note: () => undefined };
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return {
    may: (node) => wanted.has(node.name.toLowerCase()) || wanted.has(node.nodeId.toLowerCase()),
    note: (shown) => `showing the ${shown} node${shown === 1 ? '' : 's'} you may read`,
  };
}

/** The account's nodes the asker may read, with the note to show under the list (when it is cut). */
export async function readableNodes(ctx: CommandContext<unknown>): Promise<{ nodes: HostedNode[]; note?: string }> {
  const [all, reach] = await Promise.all([ctx.services.hosting.listNodes(), readableOf(ctx)]);
  const nodes = reach.may ? all.filter(reach.may) : all;
  return { nodes, note: reach.note(nodes.length) };
}

/** The message with the note at its end (unchanged when there is none). */
export function withScopeNote(message: Message, note: string | undefined): Message {
  return note ? { ...message, blocks: [...message.blocks, msg.context(note)] } : message;
}
