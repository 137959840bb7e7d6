/**
 * The service side of the composition root: which hosting service the bot talks to (the real one at
 * SERVICE_URL, or the in-process emulator with its demo nodes), its client, and the node API client
 * made for each hosted node.
 */
import type { Config } from '../config.js';
import { registerSecret, type Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Db } from '../store/index.js';
import { createHostingClient, type HostedNode, type HostingClient } from '../hosting/index.js';
import { ApiShapes, checkNodeApiUrl, createNodeApiClient, imageOfNode, NodeGates, type NodeApiClient } from '../node-api/index.js';
import type { Emulator } from '../emulator/index.js';
import { UserError, checkUrlTarget, parseAllowList } from '../vocabulary/index.js';
import { nodeCredentialSources } from './node-credentials.js';

/** The demo nodes' wallet password: a documented demo value, not a secret of anyone's. */
export const DEMO_PASSWORD = 'demo-password';

/** Node API clients kept at most (one per node: an account's nodes, with room to spare). */
const NODE_CLIENTS_KEPT = 10_000;

export interface ServiceWiring {
  /** The in-process emulator (demo only). */
  emulator?: Emulator;
  hosting: HostingClient;
  nodeApi: (node: HostedNode) => NodeApiClient;
  credentials: ReturnType<typeof nodeCredentialSources>;
  /** The emulator's indexer, which `node unlock` offers on the demo's 6887cbf nodes. */
  demoIndexer?: string;
  /** The bot's own webhook bases: PUBLIC_URL, and the listening address once known (pushed at start). */
  ownBases: string[];
  /** ALLOW_PRIVATE_URLS, parsed. */
  allowPrivate: ReturnType<typeof parseAllowList>;
}

export async function wireService(opts: {
  config: Config;
  db: Db;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  emulator?: { lifecycleDelayMs?: number };
}): Promise<ServiceWiring> {
  const { config, db, logger, metrics } = opts;
  // The service: the real one, or (no SERVICE_URL) the built-in emulator with demo nodes.
  let emulator: Emulator | undefined;
  let serviceUrl = config.SERVICE_URL;
  let serviceToken = config.SERVICE_API_TOKEN;
  let nodeToken = config.NODE_API_TOKEN;
  let demoIndexer: string | undefined;
  if (config.demo) {
    // Loaded only for the demo: a bot with a SERVICE_URL never loads the emulator.
    const { startEmulator, DEFAULT_INDEXER } = await import('../emulator/index.js');
    demoIndexer = DEFAULT_INDEXER;
    // alice and bob come initialised and unlocked; a block is mined every second.
    emulator = await startEmulator({
      seed: 'demo',
      demoPassword: DEMO_PASSWORD,
      autoMineMs: 1000,
      lifecycleDelayMs: opts.emulator?.lifecycleDelayMs ?? 1500,
    });
    serviceUrl = emulator.url;
    serviceToken = emulator.token;
    nodeToken = emulator.nodeApiToken;
    registerSecret(serviceToken);
    registerSecret(nodeToken);
  }
  const allowPrivate = parseAllowList(config.ALLOW_PRIVATE_URLS);
  // The bot's own webhook URL (under PUBLIC_URL, or the address it listens on) is the admin's to
  // set; any other is refused when it names or resolves to an inside address (ALLOW_PRIVATE_URLS).
  const ownBases = config.PUBLIC_URL ? [config.PUBLIC_URL.replace(/\/+$/, '')] : [];
  const checkWebhookTarget = async (url: string) =>
    ownBases.some((b) => url === b || url.startsWith(`${b}/`)) ? undefined : checkUrlTarget(url, allowPrivate, { what: 'the webhook URL' });
  const hosting = createHostingClient({
    baseUrl: serviceUrl!,
    token: serviceToken!,
    timeoutMs: config.SERVICE_TIMEOUT_MS,
    maxBytes: config.SERVICE_MAX_BYTES,
    checkWebhookTarget,
    onCall: ({ endpoint, outcome }) => metrics.serviceCalls.inc({ endpoint, outcome }),
  });
  const credentials = nodeCredentialSources({ config, db, hosting, nodeToken, now: opts.now, logger: logger.child({ room: 'core' }) });
  // Which API generation each node speaks, per changed endpoint: learnt once, shared by every client of
  // the node, forgotten when its image changes or it answers locked (src/node-api/generations.ts).
  const apiShapes = new ApiShapes();
  // Each node's requests in flight, from every client and caller together (src/node-api/node-gates.ts).
  const gates = new NodeGates(config.NODE_CALLS_PER_NODE);
  // One client per node, reused by every caller (reports, the dashboard, commands, the poller): a client
  // builds its transport once and again only when the node's credentials change (it looks them up at
  // each call), so a report over 2,000 nodes does not build 2,000 transports. A new address, name or
  // image is a new client; the least recently used are dropped past NODE_CLIENTS_KEPT, and a node
  // keeps its two latest (two callers may still hold an older view of it for a while, during a
  // rename or an upgrade, and would otherwise build a transport again at every call). A client
  // dropped lets go of its own connections (a TLS certificate's pool) once its requests end.
  const clients = new Map<string, { nodeId: string; client: NodeApiClient }>();
  const keysOfNode = new Map<string, string[]>();
  const drop = (key: string) => {
    const gone = clients.get(key);
    if (!gone) return;
    clients.delete(key);
    gone.client.close();
    const keys = keysOfNode.get(gone.nodeId)?.filter((k) => k !== key);
    if (keys?.length) keysOfNode.set(gone.nodeId, keys);
    else keysOfNode.delete(gone.nodeId);
  };
  const nodeApi = (node: HostedNode): NodeApiClient => {
    if (!node.invoke_url) {
      throw new UserError('node_error', `${node.name} has no API address yet.`, `Wait until it is RUNNING (\`node info ${node.name}\`).`);
    }
    const image = imageOfNode(node);
    const key = `${node.nodeId}|${node.invoke_url}|${node.name}|${image ?? ''}`;
    const kept = clients.get(key);
    if (kept) {
      clients.delete(key);
      clients.set(key, kept);
      return kept.client;
    }
    const refused = checkNodeApiUrl(node.invoke_url);
    if (refused) {
      throw new UserError(
        'node_error',
        `Not calling ${node.name}: ${refused}.`,
        'Ask the service for an HTTPS node address; nothing was sent.',
      );
    }
    const client = createNodeApiClient({
      baseUrl: node.invoke_url,
      credentials: credentials.credentialsFor(node),
      nodeName: node.name,
      maxBytes: config.NODE_API_MAX_BYTES,
      shapes: apiShapes.of(node.nodeId, image),
      image,
      gate: () => gates.of(node.nodeId),
    });
    clients.set(key, { nodeId: node.nodeId, client });
    const keys = [...(keysOfNode.get(node.nodeId) ?? []), key];
    keysOfNode.set(node.nodeId, keys);
    if (keys.length > 2) drop(keys[0]);
    for (const old of clients.keys()) {
      if (clients.size <= NODE_CLIENTS_KEPT) break;
      drop(old);
    }
    return client;
  };
  return { emulator, hosting, nodeApi, credentials, demoIndexer, ownBases, allowPrivate };
}
