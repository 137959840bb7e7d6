/** `net …`: network info, indexer and proxy checks, onion messages. */
import { z } from 'zod';
import { thousands } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { int, nodeArg, nodeOnly, splitList } from './support/arg-types.js';
import { resolvePubkey } from './support/our-nodes.js';
import { nodeClient } from './support/node-client.js';
import { nodeFacts } from './support/present.js';

const info = defineCommand({
  path: 'net info',
  summary: "The node's Bitcoin network and block height",
  example: '/rln net info alice',
  args: nodeOnly,
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const n = await api.networkinfo();
    return nodeFacts(node, 'Network', [
      { label: 'Network', value: String(n.network ?? '—'), inline: true },
      { label: 'Height', value: thousands(n.height ?? 0), inline: true },
    ]);
  },
});

const checkIndexer = defineCommand({
  path: 'net check-indexer',
  summary: 'Check that an indexer URL works (Electrum or Esplora)',
  example: '/rln net check-indexer alice tcp://electrum.example.com:50001',
  args: z.object({ node: nodeArg(), indexer_url: z.string().min(3).describe('Indexer URL to check') }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const r = await api.checkindexerurl({ indexer_url: ctx.args.indexer_url });
    return nodeFacts(
      node,
      'Indexer OK',
      [
        { label: 'URL', value: [{ code: ctx.args.indexer_url }] },
        { label: 'Protocol', value: String(r.indexer_protocol ?? '—'), inline: true },
      ],
      { tone: 'success' },
    );
  },
});

const checkProxy = defineCommand({
  path: 'net check-proxy',
  summary: 'Check that an RGB proxy endpoint works',
  example: '/rln net check-proxy alice rpcs://proxy.example.com/json-rpc',
  args: z.object({ node: nodeArg(), proxy_endpoint: z.string().min(3).describe('RGB proxy endpoint to check (rpc:// or rpcs://)') }),
  role: 'read',
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    // `proxy_endpoint` on both generations: what the node reads (the f379330 document's `proxy_url` was its error).
    await api.checkproxyendpoint({ proxy_endpoint: ctx.args.proxy_endpoint });
    return nodeFacts(node, 'Proxy OK', [{ label: 'Endpoint', value: [{ code: ctx.args.proxy_endpoint }] }], { tone: 'success' });
  },
});

const onion = defineCommand({
  path: 'net onion',
  summary: 'Send an onion message along a path of nodes',
  example: '/rln net onion alice 03b79a…,02c1d2… 77 hello',
  args: z.object({
    node: nodeArg(),
    node_ids: z.string().trim().min(1).describe('The path, comma-separated: pubkeys or names of your nodes (the last is the recipient)'),
    tlv_type: int().min(64).describe('TLV type of the message (64 or more)'),
    data: z.string().min(1).describe('The message payload (text)'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const ids: string[] = [];
    for (const v of splitList(ctx.args.node_ids)) ids.push((await resolvePubkey(ctx, v, 'node_ids')).pubkey);
    await api.sendonionmessage({ node_ids: ids, tlv_type: ctx.args.tlv_type, data: ctx.args.data });
    return nodeFacts(
      node,
      'Onion message sent',
      [
        { label: 'Hops', value: String(ids.length), inline: true },
        { label: 'TLV type', value: String(ctx.args.tlv_type), inline: true },
      ],
      { tone: 'success' },
    );
  },
});

export const netCommands: AnyCommand[] = [info, checkIndexer, checkProxy, onion];
