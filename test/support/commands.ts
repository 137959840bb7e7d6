/**
 * Command tests at the neutral layer: the real emulator (management API + node API over loopback),
 * the real hosting and node API clients, and a CommandContext built by hand (no dispatcher).
 */
import { messageText } from './reply-text.js';
import type { z } from 'zod';
import type { Message } from '../../src/vocabulary/message.js';
import type { Services } from '../../commands/services.js';
import type { CommandDefinition, HandlerResult, Reply } from '../../src/engine/types.js';
import type { CommandContext } from '../../commands/define-command.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createNodeApiClient, imageOfNode, type NodeApiClient } from '../../src/node-api/index.js';
import { logPolling } from '../../commands/node.js';
import { waitFor } from './wait-for.js';
import { createRoleService } from '../../src/access/index.js';
import { openDatabase } from '../../src/store/index.js';

export interface TestEnv {
  emulator: Emulator;
  world: NodeWorld;
  services: Services;
  /** A node API client for a node (what handlers get from services.nodeApi). */
  api(node: HostedNode): NodeApiClient;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery';
/** The indexer the emulator's nodes are unlocked with (nothing is contacted). */
export const INDEXER_URL = '127.0.0.1:50001';

export async function startEnv(opts: { lifecycleDelayMs?: number } = {}): Promise<TestEnv> {
  logPolling.delayMs = 20;
  logPolling.attempts = 10;
  const world = new NodeWorld({ fundingSat: 10_000_000 });
  const emulator = await startEmulator({ port: 0, lifecycleDelayMs: opts.lifecycleDelayMs ?? 20, world });
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token, retry: { limit: 0 } });
  const api = (node: HostedNode) => {
    if (!node.invoke_url) throw new Error(`node ${node.name} has no invoke_url`);
    return createNodeApiClient({
      baseUrl: node.invoke_url,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
      image: imageOfNode(node),
    });
  };
  // Node-operation handlers use only hosting, nodeApi, now and publicUrl; the other rooms' services are absent here,
  // but for roles: a list of the nodes asks which the actor (the terminal's own, an admin) may read.
  const rolesDb = openDatabase(':memory:');
  const access = createRoleService(rolesDb);
  const services = { hosting, nodeApi: api, now: Date.now, access } as Partial<Services> as Services;
  return {
    emulator,
    world,
    services,
    api,
    async close() {
      world.close();
      await emulator.close();
      await rolesDb.close();
    },
  };
}

/** A context as the dispatcher would build it, for a node already resolved. */
export function makeContext<S extends z.ZodObject<z.ZodRawShape>>(
  env: TestEnv,
  def: CommandDefinition<S, Services>,
  args: z.infer<S>,
  opts: { node?: HostedNode; secrets?: Record<string, string> } = {},
): CommandContext<z.infer<S>> {
  return {
    args,
    actor: { platform: 'shell', userId: 'local' },
    place: { platform: 'shell', channelId: 'test' },
    node: opts.node,
    services: env.services,
    secrets: opts.secrets ?? {},
  };
}

/** Finds a definition by path in a group's list. */
export function findCommand(list: CommandDefinition<any, Services>[], path: string): CommandDefinition<any, Services> {
  const def = list.find((d) => d.path === path);
  if (!def) throw new Error(`no command ${path}`);
  return def;
}

/**
 * Parses raw (string) arguments with the definition's schema, resolves `node` by name or id
 * against the service, and runs the handler.
 */
export async function runCommand(
  env: TestEnv,
  def: CommandDefinition<any>,
  rawArgs: Record<string, string>,
  opts: { secrets?: Record<string, string> } = {},
): Promise<HandlerResult> {
  const args = def.args.parse(rawArgs);
  const nodeKey = def.nodeArg === false ? undefined : (def.nodeArg ?? ('node' in def.args.shape ? 'node' : undefined));
  let node: HostedNode | undefined;
  if (nodeKey && typeof args[nodeKey] === 'string') {
    const nodes = await env.services.hosting.listNodes();
    node = nodes.find((n) => n.name === args[nodeKey] || n.nodeId === args[nodeKey]);
    if (!node) throw new Error(`unknown node ${args[nodeKey]}`);
  }
  return def.handler(makeContext(env, def, args, { node, secrets: opts.secrets }));
}

export function isReply(r: HandlerResult): r is Reply {
  return 'kind' in r;
}

/** The message of a result, and whether it is private. */
export function messageOf(r: HandlerResult): { message: Message; private: boolean } {
  if (isReply(r)) {
    if (r.kind !== 'message') throw new Error(`expected a message, got a ${r.kind}`);
    return { message: r.message, private: r.visibility === 'private' };
  }
  return { message: r, private: false };
}

/** Everything a person would read in a message, as plain text (see test/support/reply-text.ts). */
export function textOf(r: HandlerResult): string {
  return messageText(messageOf(r).message);
}

/** The rows of the first table of a message. */
export function tableOf(r: HandlerResult): { headers: string[]; rows: string[][] } {
  const { message } = messageOf(r);
  const t = message.blocks.find((b) => b.type === 'table');
  if (!t || t.type !== 'table') throw new Error('no table in the message');
  return { headers: t.table.columns.map((c) => c.header), rows: t.table.rows };
}

/** Waits until the service reports the node with this status. */
export async function waitForStatus(env: TestEnv, nodeId: string, status: string): Promise<HostedNode> {
  return waitFor(
    async () => {
      const n = await env.services.hosting.getNode(nodeId);
      return n.status === status ? n : undefined;
    },
    { timeout: 2_000, what: `status ${status}` },
  );
}

/** Creates a node through the service and waits for RUNNING. */
export async function createRunningNode(env: TestEnv, name: string): Promise<HostedNode> {
  const { node } = await env.services.hosting.createNode({ name, network: 'regtest' });
  return waitForStatus(env, node.nodeId, 'RUNNING');
}

/** A RUNNING, initialized, unlocked node with colored UTXOs ready for RGB. */
export async function createReadyNode(env: TestEnv, name: string, opts: { utxos?: boolean } = {}): Promise<HostedNode> {
  const node = await createRunningNode(env, name);
  const api = env.api(node);
  await api.init({ password: PASSWORD });
  // An indexer URL: a node on the latest image (6887cbf) needs one; f379330 takes it too.
  await api.unlock({ password: PASSWORD, indexer_url: INDEXER_URL });
  if (opts.utxos) {
    await api.createutxos({ num: 5, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    env.world.mine(1);
  }
  return node;
}
