/**
 * A Lightning invoice as the node decodes it. `pay send`'s check (expiry, paid already, amount),
 * its spend hook and its preview each need it: decoded once per attempt (readOnce); in the
 * handler, each time.
 */
import type { CommandContext } from '../define-command.js';
import type { NodeApiClient } from '../../src/node-api/index.js';
import { nodeClient } from './node-client.js';
import { readOnce } from './read-once.js';

export type DecodedInvoice = Awaited<ReturnType<NodeApiClient['decodelninvoice']>>;

export function decodedInvoice(ctx: CommandContext<unknown>, invoice: string): Promise<DecodedInvoice> {
  return readOnce(ctx, `decoded invoice:${invoice}`, () => nodeClient(ctx).api.decodelninvoice({ invoice }));
}
