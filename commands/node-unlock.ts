/**
 * `node unlock`: in the node's own generation. f379330 takes the password (the service supplies
 * bitcoind); 6887cbf needs a chain-sync mode and an indexer, which the private dialog asks for,
 * prefilled from UNLOCK_INDEXER_URL. After the unlock, the bot checks that the node answers in the
 * generation its image says (after an upgrade), and says so.
 */
import { z } from 'zod';
import { UserError, msg, type Block } from '../src/vocabulary/index.js';
import type { HostedNode } from '../src/hosting/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import type { Refusal } from '../src/engine/index.js';
import { ChainSyncMode, type ApiShape, type NodeApiClient } from '../src/node-api/index.js';
import { int, nodeArg, splitList } from './support/arg-types.js';
import { done } from './support/node-done.js';
import { freshNode, requireWallet } from './support/node-state.js';
import { compact } from './support/present.js';
import { requireNode } from './support/require-node.js';
import { imageOf } from './support/node-image.js';
import { needSecret, passwordField } from './support/node-secrets.js';

/**
 * What `node unlock` needs from the person for the node's generation, or why it cannot go on. f379330
 * takes bitcoind at the top, and leaves out what the service supplies; 6887cbf needs a chain-sync mode:
 * BlockSync with every bitcoind field (its RPC password in the dialog), or TransactionSync with an
 * indexer URL (the only thing it needs, also the indexer for RGB), which the dialog asks for,
 * prefilled from UNLOCK_INDEXER_URL. Announced addresses default to none.
 */
function unlockRefusal(shape: ApiShape, a: UnlockArgs, node: string): Refusal | undefined {
  if (shape === 'f379330') {
    if (a.chain_sync === 'TransactionSync') {
      return {
        reason: `${node} runs an image with the f379330 node API, which follows the chain only through bitcoind (BlockSync).`,
        next: `Leave out \`chain_sync\` (the service's bitcoind is used), or upgrade the node first (\`node upgrade ${node}\`).`,
      };
    }
    return undefined;
  }
  if (a.proxy_endpoint !== undefined) {
    return {
      reason: `${node} runs an image with the 6887cbf node API, which takes no proxy at unlock.`,
      next: 'Leave out `proxy_endpoint`; give the endpoints with each RGB invoice (`invoice rgb … transport_endpoints=…`).',
    };
  }
  if (modeOf(a) === 'BlockSync') {
    const missing = (['bitcoind_rpc_host', 'bitcoind_rpc_port', 'bitcoind_rpc_username'] as const).filter((k) => a[k] === undefined);
    if (missing.length)
      return {
        reason: `BlockSync on ${node} needs every bitcoind RPC field; missing: ${missing.join(', ')}.`,
        next: `Give ${missing.map((m) => `\`${m}=…\``).join(', ')}, or use \`chain_sync=TransactionSync\`.`,
      };
  }
  return undefined;
}

/** The chain-sync mode a 6887cbf unlock uses: the one given, else BlockSync when bitcoind fields are, else TransactionSync. */
function modeOf(a: UnlockArgs): 'BlockSync' | 'TransactionSync' {
  const bitcoind = a.bitcoind_rpc_host !== undefined || a.bitcoind_rpc_username !== undefined || a.bitcoind_rpc_port !== undefined;
  return a.chain_sync ?? (bitcoind ? 'BlockSync' : 'TransactionSync');
}

const unlockArgs = z.object({
  node: nodeArg(),
  chain_sync: ChainSyncMode.optional().describe('6887cbf images: TransactionSync (via indexer_url) or BlockSync (via the bitcoind fields)'),
  bitcoind_rpc_username: z.string().optional().describe('bitcoind RPC user (f379330 images: default the service’s)'),
  bitcoind_rpc_host: z.string().optional().describe('bitcoind RPC host (f379330 images: default the service’s)'),
  bitcoind_rpc_port: int().optional().describe('bitcoind RPC port (f379330 images: default the service’s)'),
  indexer_url: z
    .string()
    .optional()
    .describe('Indexer URL (6887cbf: asked in the dialog, default UNLOCK_INDEXER_URL; f379330: the service’s)'),
  proxy_endpoint: z.string().optional().describe('RGB proxy endpoint (f379330 images only: default the service’s)'),
  announce_alias: z.string().optional().describe('Alias announced to the network'),
  announce_addresses: z.string().optional().describe('Addresses announced to the network, comma-separated (default none)'),
});
type UnlockArgs = z.infer<typeof unlockArgs>;

const indexerField = {
  name: 'indexer_url',
  label: 'Indexer URL (6887cbf image)',
  kind: 'text' as const,
  required: false,
  hint: 'The node follows the chain through this Electrum/Esplora indexer (TransactionSync), also its RGB indexer.',
};
const bitcoindPasswordField = {
  name: 'bitcoind_rpc_password',
  label: 'bitcoind RPC password (BlockSync)',
  kind: 'secret' as const,
  required: false,
  hint: 'Needed for BlockSync on a 6887cbf image; else leave empty.',
};

/** The node as the service sees it now: after an upgrade, its image (and so its generation) is the new one. */
async function nowNode(ctx: CommandContext<unknown>): Promise<HostedNode> {
  const node = requireNode(ctx);
  try {
    return await freshNode(ctx, node);
  } catch {
    return node;
  }
}

export const unlock = defineCommand({
  path: 'node unlock',
  summary: 'Unlock a node with its password, in the chain-sync mode its image needs',
  example: '/rln node unlock alice indexer_url=electrum.example.com:50001',
  args: unlockArgs,
  role: 'admin',
  confirm: 'none',
  // Every field any generation asks; `dialog.fields` shows those of the node's own.
  secrets: [passwordField, indexerField, bitcoindPasswordField],
  dialog: {
    // f379330: the password (the service supplies bitcoind). 6887cbf: the indexer too, prefilled, and the
    // bitcoind RPC password for BlockSync.
    async fields(ctx) {
      const shape = await ctx.services.nodeApi(await nowNode(ctx)).generation('unlock');
      if (shape === 'f379330') return [passwordField];
      const block = modeOf(ctx.args) === 'BlockSync';
      const initial = ctx.args.indexer_url ?? ctx.services.unlockIndexerUrl;
      return [
        passwordField,
        {
          ...indexerField,
          required: true,
          ...(initial ? { initial } : {}),
          hint: `${indexerField.hint} ${initial ? (ctx.args.indexer_url ? 'As given.' : 'Prefilled from UNLOCK_INDEXER_URL.') : 'Set UNLOCK_INDEXER_URL to have it prefilled.'} Announced addresses: ${ctx.args.announce_addresses ?? 'none'}.`,
        },
        ...(block ? [bitcoindPasswordField] : []),
      ];
    },
  },
  async check(ctx) {
    const node = requireNode(ctx);
    const refused = await requireWallet(ctx, node, 'locked', 'unlock');
    if (refused) return refused;
    // The node's generation decides what must be asked: learnt from its image, else from the node.
    const shape = await ctx.services.nodeApi(await nowNode(ctx)).generation('unlock');
    return unlockRefusal(shape, ctx.args, node.name);
  },
  mutates: true,
  async handler(ctx) {
    const node = await nowNode(ctx);
    const api = ctx.services.nodeApi(node);
    const shape = await api.generation('unlock');
    const refused = unlockRefusal(shape, ctx.args, node.name);
    if (refused) throw new UserError('invalid_arguments', refused.reason, refused.next);
    const { node: _n, announce_addresses, ...rest } = ctx.args;
    const bitcoindPassword = ctx.secrets.bitcoind_rpc_password || undefined;
    const mode = modeOf(ctx.args);
    const indexer = rest.indexer_url ?? (shape === '6887cbf' ? ctx.services.unlockIndexerUrl : undefined);
    if (shape === '6887cbf' && !indexer) {
      throw new UserError(
        'invalid_arguments',
        `${node.name} runs an image with the 6887cbf node API: unlocking needs an indexer URL.`,
        `Fill in the indexer URL in the dialog, or run \`node unlock ${node.name} indexer_url=<host:port>\`; UNLOCK_INDEXER_URL sets the default.`,
      );
    }
    if (shape === '6887cbf' && mode === 'BlockSync' && !bitcoindPassword) {
      throw new UserError(
        'invalid_arguments',
        'BlockSync needs the bitcoind RPC password.',
        'Run it again and fill in the bitcoind RPC password in the private dialog.',
      );
    }
    await api.unlock(
      compact({
        password: needSecret(ctx, 'password', 'password'),
        ...rest,
        indexer_url: indexer,
        chain_sync: shape === '6887cbf' ? mode : undefined,
        bitcoind_rpc_password: bitcoindPassword,
        announce_addresses: announce_addresses !== undefined ? splitList(announce_addresses) : undefined,
      }),
    );
    const how =
      shape === '6887cbf'
        ? mode === 'BlockSync'
          ? 'following the chain through bitcoind (BlockSync)'
          : `following the chain through its indexer ${indexer} (TransactionSync)`
        : undefined;
    // After an upgrade: does it answer in the generation its image says? Said either way.
    const answers = await answersIn(api, node);
    return done(node, 'Node unlocked', `${node.name} is unlocked and online${how ? `, ${how}` : ''}.`, answers.blocks, answers.tone);
  },
});

/** Checks that the node answers in its image's generation, after an unlock; a line to say it. */
async function answersIn(api: NodeApiClient, node: HostedNode): Promise<{ blocks: Block[]; tone: 'success' | 'warning' }> {
  const image = imageOf(node);
  try {
    const r = await api.checkGeneration();
    const of = image ? ` (${image})` : '';
    if (!r.expected) return { blocks: [msg.context(`It answers in the ${r.answers} node API (${r.how}).`)], tone: 'success' };
    if (r.answers === r.expected)
      return {
        blocks: [msg.context(`It answers in the ${r.answers} node API, as its image${of} says (${r.how}).`)],
        tone: 'success',
      };
    return {
      blocks: [
        msg.text(
          `⚠️ Its image${of} says the ${r.expected} node API, but it answers in the ${r.answers} one (${r.how}). The bot speaks to it in the ${r.answers} one; check the image with \`node info ${node.name}\`.`,
        ),
      ],
      tone: 'warning',
    };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return {
      blocks: [msg.context(`Which node API it answers in could not be checked (${why}): the next command learns it.`)],
      tone: 'success',
    };
  }
}
