/** `peer …`: Lightning peers: list, connect, disconnect. */
import { z } from 'zod';
import { UserError } from '../src/vocabulary/index.js';
import { msg } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { nodeArg, pagingArgs } from './support/arg-types.js';
import { nodeClient } from './support/node-client.js';
import { nodeListCommand } from './support/list-command.js';
import { peerOfAccountNode } from './support/peer-of-account-node.js';
import { ourNodeNames, resolvePubkey } from './support/our-nodes.js';
import { titled } from './support/present.js';

const list = nodeListCommand({
  path: 'peer list',
  summary: 'List connected peers',
  example: '/rln peer list alice',
  args: z.object({ node: nodeArg(), ...pagingArgs }),
  title: 'Peers',
  async load({ api }) {
    const { peers = [] } = await api.listpeers();
    return { rows: peers };
  },
  empty: (node) => [
    msg.text('No connected peers.'),
    msg.context(`Connect one: \`peer connect ${node.name} <pubkey>@<host>:<port>\`, or the name of another of your nodes.`),
  ],
  async page({ ctx, items }) {
    const ours = await ourNodeNames(ctx);
    return {
      table: {
        columns: msg.columns('Pubkey', 'Our node'),
        rows: items.map((p) => [p.pubkey ?? '—', ours.get((p.pubkey ?? '').toLowerCase()) ?? '—']),
      },
    };
  },
});

const PEER_WITH_ADDRESS = /^[0-9a-fA-F]{66}@[^@\s]+:\d{1,5}$/;
const BARE_PUBKEY = /^[0-9a-fA-F]{66}$/;

const connect = defineCommand({
  path: 'peer connect',
  summary: 'Connect to a peer (pubkey@host:port, or the name of another node of the account)',
  example: '/rln peer connect alice 03b79a4bc1…@bob.example.com:9735',
  args: z.object({
    node: nodeArg(),
    peer_pubkey_and_addr: z.string().trim().min(1).describe('The peer as pubkey@host:port, or the name of another node of the account'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const given = ctx.args.peer_pubkey_and_addr;
    let peer = given;
    let name: string | undefined;
    if (!PEER_WITH_ADDRESS.test(given)) {
      const own = BARE_PUBKEY.test(given) ? undefined : await peerOfAccountNode(ctx, node, given);
      if (!own) {
        throw new UserError(
          'invalid_arguments',
          BARE_PUBKEY.test(given)
            ? 'A pubkey alone is not enough to connect: the node also needs the peer’s address.'
            : `${JSON.stringify(given)} is neither pubkey@host:port nor a node of this account.`,
          'Give the peer as pubkey@host:port, or the name of one of your nodes (e.g. `peer connect alice bob`): see `node list`.',
        );
      }
      peer = own.peer;
      name = own.name;
    }
    await api.connectpeer({ peer_pubkey_and_addr: peer });
    return {
      header: titled('Peer connected', node),
      tone: 'success',
      blocks: [msg.text(name ? [`${name} `, { code: peer }] : [{ code: peer }])],
    };
  },
});

const disconnect = defineCommand({
  path: 'peer disconnect',
  summary: 'Disconnect from a peer',
  example: '/rln peer disconnect alice bob',
  args: z.object({
    node: nodeArg(),
    peer_pubkey: z.string().trim().min(1).describe('The peer: its pubkey, or the name of one of your nodes'),
  }),
  role: 'operate',
  confirm: 'none',
  mutates: true,
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const peer = await resolvePubkey(ctx, ctx.args.peer_pubkey, 'peer_pubkey');
    await api.disconnectpeer({ peer_pubkey: peer.pubkey });
    return {
      header: titled('Peer disconnected', node),
      tone: 'warning',
      blocks: [msg.text([...(peer.name ? [`${peer.name} `] : []), { code: peer.pubkey }])],
    };
  },
});

export const peerCommands: AnyCommand[] = [list, connect, disconnect];
