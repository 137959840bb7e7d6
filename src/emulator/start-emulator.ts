import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { createSigningKey } from './create-signing-key.js';
import { defaultFaults } from './default-faults.js';
import { createCertAuthority } from './generate-cert.js';
import { HostedNodes } from './hosted-nodes.js';
import { installServiceHooks, NodeRequestsInFlight } from './install-service-hooks.js';
import { NODE_FAULTS, NodeWorld } from './node-api/index.js';
import { SERVICE_FAULTS, injectServiceFault, isServiceFault } from './service-faults.js';
import { registerManagementRoutes } from './register-management-routes.js';
import { registerNodeApiRoute } from './register-node-api-route.js';
import { seedDemoNodes, seedManyNodes } from './seed-demo-nodes.js';
import type { Delivery, Emulator, EmulatorOptions, Faults } from './types.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * Starts an in-memory hosting service on loopback: the management API of
 * docs/reference/service-interface.md §4.1, each node's API at its invoke_url (served by the NodeWorld),
 * signed webhooks and fault injection.
 *
 * Response shapes where the interface leaves them open (the client accepts both a bare
 * object and `{ data }`, so both are exercised):
 * - GET /api/nodes                -> `{ nodes: [Node] }` (documented)
 * - POST /api/nodes               -> 201 `{ data: Node, message }` (documented)
 * - GET /api/nodes/{id}           -> `{ data: Node }`
 * - DELETE /api/nodes             -> `{ message }`
 * - POST .../settings|start|stop|upgrade -> `{ message, data: { nodeId, status } }`
 * - GET /api/nodes/latest-rln-image -> `{ version }`
 * - GET /api/webhook-public-key   -> `{ publicKey: "<SPKI PEM>", algorithm, keyType }`
 * - POST /api/nodes/{id}/logs     -> `{ taskId, message }`
 * - GET /api/nodes/{id}/logs?taskId -> `{ data: { taskId, status: "PENDING", urls: [] } }`, later
 *   `{ data: { taskId, status: "COMPLETED", urls: [...] } }`
 * - errors                        -> `{ statusCode, error, message }`
 * Node API errors are RLN-shaped `{ error, code, name }`.
 */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const host = opts.host ?? '127.0.0.1';
  const delay = opts.lifecycleDelayMs ?? 1500;
  const faults: Faults = { ...defaultFaults(), ...opts.faults, failNext: new Set(opts.faults?.failNext ?? []) };
  const key = createSigningKey(opts.keyType ?? 'ed25519');
  const deliveries: Delivery[] = [];
  const requests: Array<{ method: string; path: string }> = [];
  const nodeRequests = new NodeRequestsInFlight();
  const sender = new WebhookSender({
    key,
    faults,
    deliveries,
    attempts: Math.max(1, opts.webhookRetry?.attempts ?? 5),
    baseDelayMs: opts.webhookRetry?.baseDelayMs ?? 200,
  });
  const ownWorld = opts.world ? undefined : new NodeWorld({ fundingSat: opts.fundingSat, autoMineMs: opts.autoMineMs });
  // A world given in the options (tests) stands in for the NodeWorld; it only needs NodeWorldLike.
  const world = (ownWorld ?? opts.world) as NodeWorld;
  let token = opts.token ?? `emu_${randomBytes(18).toString('base64url')}`;
  const nodeApiToken = opts.nodeApiToken ?? `node_${randomBytes(18).toString('base64url')}`;
  const userId = opts.userId ?? `user-${randomBytes(4).toString('hex')}`;
  const hosted = new HostedNodes({ world, sender, faults, userId, delayMs: delay, latestImage: opts.latestImage ?? 'v0.2.1' });

  // Closing ends every connection, as a service going away does. Fastify's default ends only idle
  // ones and waits for the others: a client gone quiet mid-request (a bot stopped during a call)
  // held the close until node:http's own timeouts ended it: 70 s in the Slack end-to-end tests' teardown.
  const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024, forceCloseConnections: true });
  // Bodies are parsed by the handlers, so a non-JSON body is answered with our own 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  installServiceHooks(app, { faults, requests, deliveries, nodeRequests, token: () => token });
  const ca = opts.certAuthority ?? createCertAuthority();
  registerManagementRoutes(app, { hosted, key, delayMs: delay, ca });
  registerNodeApiRoute(app, { hosted, world, userId, nodeApiToken });

  if (opts.seed === 'demo') await seedDemoNodes(hosted, ownWorld, opts.demoPassword);
  if (opts.seedNodes) await seedManyNodes(hosted, ownWorld, opts.seedNodes, opts.demoPassword ?? 'seed-password');

  await app.listen({ port: opts.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // invoke_url: the emulator's own address, or the one given (a TLS server in front of it, in a test).
  hosted.baseUrl = baseUrl;
  hosted.nodeApiBaseUrl = opts.nodeApiBaseUrl?.replace(/\/+$/, '');

  const nodeById = (nodeId: string) => {
    const n = hosted.nodes.get(nodeId);
    if (!n) throw new Error(`emulator: no node ${nodeId}`);
    return n;
  };
  let closed = false;
  const emulator: Emulator = {
    nodeFaults: { ...NODE_FAULTS, ...SERVICE_FAULTS },
    fault(nodeId, fault) {
      return isServiceFault(fault) ? injectServiceFault(nodeById(nodeId), fault) : world.fault(nodeId, fault);
    },
    url: baseUrl,
    get token() {
      return token;
    },
    nodeApiToken,
    userId,
    faults,
    world,
    publicKey: { pem: key.publicKeyPem, type: key.type },
    certAuthority: ca,
    deliveries,
    requests,
    peakNodeRequests: (nodeId) => nodeRequests.peak(nodeId),
    async close() {
      if (closed) return;
      closed = true;
      hosted.clearTimers();
      await sender.close();
      await app.close();
      ownWorld?.close();
    },
    revokeToken(newToken) {
      token = newToken ?? `emu_${randomBytes(18).toString('base64url')}`;
    },
    setStatus(nodeId, status) {
      const n = nodeById(nodeId);
      hosted.cancelPending(n);
      hosted.setStatus(n, status);
    },
    restartNode(nodeId) {
      const n = nodeById(nodeId);
      // The process goes down at once: its wallet is locked until someone unlocks it again.
      if (ownWorld?.hasNode(nodeId)) ownWorld.lockNode(nodeId);
      hosted.runTransition(n, 'STARTING', false);
    },
    emitEvent(nodeId, payload) {
      hosted.emit(nodeById(nodeId), payload);
    },
    sign: (body) => key.sign(body),
    nodes: () => hosted.views(),
    settled: () => sender.settled(),
    setLatestImage(version) {
      hosted.latestImage = version;
    },
  };
  return emulator;
}
