/** `net …`: network info, indexer and proxy checks, onion messages. */
import { z } from 'zod';
import { thousands, type Field } from '../src/vocabulary/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
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

/**
 * `net check-…`: the node tries an endpoint given as `arg=`; the answer says it works, with the
 * endpoint and what the node found (`check`'s fields). A node that cannot reach it answers an error.
 */
function endpointCheck<K extends string>(o: {
  path: string;
  summary: string;
  example: string;
  arg: K;
  describe: string;
  /** `Indexer OK`. */
  title: string;
  label: string;
  check: (api: NodeApiClient, endpoint: string) => Promise<Field[]>;
}) {
  const endpoint = { [o.arg]: z.string().min(3).describe(o.describe) } as Record<K, z.ZodString>;
  return defineCommand({
    path: o.path,
    summary: o.summary,
    example: o.example,
    args: z.object({ node: nodeArg(), ...endpoint }),
    role: 'read',
    async handler(ctx) {
      const { node, api } = nodeClient(ctx);
      const given = (ctx.args as Record<K, string>)[o.arg];
      const found = await o.check(api, given);
      return nodeFacts(node, o.title, [{ label: o.label, value: [{ code: given }] }, ...found], { tone: 'success' });
    },
  });
}

const checkIndexer = endpointCheck({
  path: 'net check-indexer',
  summary: 'Check that an indexer URL works (Electrum or Esplora)',
  example: '/rln net check-indexer alice tcp://electrum.example.com:50001',
  arg: 'indexer_url',
  describe: 'Indexer URL to check',
  title: 'Indexer OK',
  label: 'URL',
  async check(api, url) {
    const r = await api.checkindexerurl({ indexer_url: url });
    return [{ label: 'Protocol', value: String(r.indexer_protocol ?? '—'), inline: true }];
  },
});

const checkProxy = endpointCheck({
  path: 'net check-proxy',
  summary: 'Check that an RGB proxy endpoint works',
  example: '/rln net check-proxy alice rpcs://proxy.example.com/json-rpc',
  arg: 'proxy_endpoint',
  describe: 'RGB proxy endpoint to check (rpc:// or rpcs://)',
  title: 'Proxy OK',
  label: 'Endpoint',
  async check(api, endpoint) {
    // `proxy_endpoint` on both generations: what the node reads (the f379330 document's `proxy_url` was its error).
    await api.checkproxyendpoint({ proxy_endpoint: endpoint });
    return [];
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
