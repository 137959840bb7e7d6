import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import { checkWebhookUrl } from '../hosting/index.js';
import { nodeLogLines } from './node-log-lines.js';
import type { Build, HostedNode, NodeStatus } from '../hosting/index.js';
import { createSigningKey } from './create-signing-key.js';
import { NodeWorld, parseMultipartFile } from './node-api/index.js';
import type { Delivery, Emulator, EmulatorOptions, FailableOperation, Faults } from './types.js';
import { WebhookSender } from './webhook-sender.js';

interface NodeRecord {
  nodeId: string;
  name: string;
  network: 'regtest' | 'testnet';
  status: NodeStatus;
  settings: { webhookUrl?: string };
  builds: Build[];
  imageVersion: string;
  createdAt: string;
  /** Set once /init (or /restore) succeeded through the node API. */
  initialized: boolean;
  /** The pending lifecycle step (STARTING->RUNNING, IN_PROGRESS->RUNNING), cancelled by the next operation. */
  pending?: NodeJS.Timeout;
}

interface LogTask {
  taskId: string;
  nodeId: string;
  readyAt: number;
  polled?: boolean;
  files: Map<string, string>;
}

/** Secret-looking values an emulated node prints in its log, for tests of masking. Not real credentials. */
export const EMULATOR_LEAKED_SECRETS = {
  password: 'emu-node-password-Zq81x',
  token: 'emu-leaked-bearer-7f3a9c2e',
  mnemonic: 'abandon ability able about above absent absorb abstract absurd abuse access accident',
};

const NETWORKS = new Set(['regtest', 'testnet']);
/** Entries kept in `requests` and `deliveries` (the oldest half is dropped beyond this). */
const MAX_LOG = 20_000;
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Thrown inside handlers; answered as `{ statusCode, error, message }`. */
class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function defaultFaults(): Faults {
  return {
    latencyMs: 0,
    errorRate: 0,
    garbage: false,
    webhookDuplicate: 0,
    webhookDrop: 0,
    failNext: new Set<FailableOperation>(),
    down: false,
    rateLimitNext: 0,
    retryAfterSec: 1,
    errorNext: 0,
  };
}

/**
 * Starts an in-memory hosting service on loopback: the management API of
 * service-interface.md §4.1, each node's API at its invoke_url (served by the NodeWorld),
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
  const nodes = new Map<string, NodeRecord>();
  const tasks = new Map<string, LogTask>();
  const timers = new Set<NodeJS.Timeout>();
  let token = opts.token ?? `emu_${randomBytes(18).toString('base64url')}`;
  const nodeApiToken = opts.nodeApiToken ?? `node_${randomBytes(18).toString('base64url')}`;
  const userId = opts.userId ?? `user-${randomBytes(4).toString('hex')}`;
  let latestImage = opts.latestImage ?? 'v0.2.1';
  let baseUrl = '';

  const later = (ms: number, fn: () => void): NodeJS.Timeout => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };
  const cancelPending = (n: NodeRecord): void => {
    if (n.pending) {
      clearTimeout(n.pending);
      timers.delete(n.pending);
      n.pending = undefined;
    }
  };

  const invokeUrl = (n: NodeRecord): string => `${baseUrl}/nodes/${userId}/${n.nodeId}`;
  const view = (n: NodeRecord): HostedNode => ({
    nodeId: n.nodeId,
    name: n.name,
    network: n.network,
    status: n.status,
    initialized: n.initialized,
    invoke_url: invokeUrl(n),
    settings: { ...n.settings },
    builds: n.builds.map((b) => ({ ...b })),
    // Extra fields the public API reference shows: clients must keep, not reject, them.
    imageVersion: n.imageVersion,
    createdAt: n.createdAt,
    port: 443,
    protocol: 'https',
    peerDNS: `${n.nodeId}.peer.emulator.invalid`,
    peerPort: 9735,
  });

  const emit = (n: NodeRecord, payload: object): void => {
    if (n.settings.webhookUrl) sender.send(n.nodeId, n.settings.webhookUrl, payload);
  };
  const setStatus = (n: NodeRecord, status: NodeStatus): void => {
    n.status = status;
    emit(n, {
      eventType: 'NODE_STATUS_UPDATED',
      eventTimestamp: new Date().toISOString(),
      details: { nodeId: n.nodeId, status },
      nodeId: n.nodeId,
    });
  };
  const takeFailure = (op: FailableOperation): boolean => faults.failNext.delete(op);

  /** STARTING (or IN_PROGRESS) now, then RUNNING, or FAILED when the fault says so. */
  const runTransition = (n: NodeRecord, first: NodeStatus, failed: boolean, onEnd?: (ok: boolean) => void): void => {
    cancelPending(n);
    setStatus(n, first);
    n.pending = later(delay, () => {
      n.pending = undefined;
      if (!nodes.has(n.nodeId)) return;
      onEnd?.(!failed);
      setStatus(n, failed ? 'FAILED' : 'RUNNING');
    });
  };

  const newBuild = (n: NodeRecord, action: string, extra: Partial<Build> = {}): Build => {
    const build: Build = {
      buildNumber: n.builds.length + 1,
      buildStatus: 'IN_PROGRESS',
      buildComplete: false,
      timestamp: new Date().toISOString(),
      id: randomUUID(),
      action,
      currentPhase: 'BUILD',
      imageVersion: latestImage,
      ...extra,
    };
    n.builds.push(build);
    return build;
  };
  const finishBuild = (b: Build, ok: boolean): void => {
    b.buildStatus = ok ? 'SUCCESS' : 'FAILED';
    b.buildComplete = true;
    b.currentPhase = 'COMPLETED';
  };

  const addNode = (name: string, network: 'regtest' | 'testnet', webhookUrl?: string): NodeRecord => {
    const n: NodeRecord = {
      nodeId: randomUUID(),
      name,
      network,
      status: 'STARTING',
      settings: webhookUrl ? { webhookUrl } : {},
      builds: [],
      imageVersion: latestImage,
      createdAt: new Date().toISOString(),
      initialized: false,
    };
    nodes.set(n.nodeId, n);
    world.addNode(n.nodeId, { network, alias: name });
    return n;
  };

  const findNode = (id: string): NodeRecord => {
    const n = nodes.get(id);
    if (!n) throw new HttpProblem(404, `Node ${JSON.stringify(id)} not found`);
    return n;
  };

  const parseJsonBody = (req: FastifyRequest, required: boolean): Record<string, unknown> => {
    const raw = bodyText(req);
    if (raw.trim() === '') {
      if (required) throw new HttpProblem(400, 'A JSON body is required');
      return {};
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new HttpProblem(400, 'The body is not valid JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpProblem(400, 'The body must be a JSON object');
    return parsed as Record<string, unknown>;
  };
  const requireWebhookUrl = (value: unknown): string => {
    const problem = checkWebhookUrl(value);
    if (problem) throw new HttpProblem(400, problem);
    return value as string;
  };

  // ---- HTTP -------------------------------------------------------------------------------

  const app = Fastify({ logger: false, bodyLimit: 2 * 1024 * 1024 });
  // Bodies are parsed by the handlers, so a non-JSON body is answered with our own 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const sendProblem = (reply: FastifyReply, status: number, message: string): FastifyReply =>
    reply.code(status).send({ statusCode: status, error: STATUS_TEXT[status] ?? 'Error', message });
  const isNodeApi = (url: string): boolean => url.startsWith('/nodes/');
  const sendRln = (reply: FastifyReply, status: number, name: string, error: string): FastifyReply =>
    reply.code(status).send({ error, code: status, name });

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? req.url;
    requests.push({ method: req.method, path });
    // Bounded, so a benchmark's load does not grow memory without end.
    if (requests.length > MAX_LOG) requests.splice(0, requests.length - MAX_LOG / 2);
    if (deliveries.length > MAX_LOG) deliveries.splice(0, deliveries.length - MAX_LOG / 2);
    if (path.startsWith('/downloads/')) return;
    if (faults.down) {
      reply.hijack();
      req.raw.socket.destroy();
      return reply;
    }
    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    if (faults.rateLimitNext > 0) {
      faults.rateLimitNext--;
      reply.header('retry-after', String(faults.retryAfterSec));
      return isNodeApi(path)
        ? sendRln(reply, 429, 'TooManyRequests', 'Too many requests')
        : sendProblem(reply, 429, 'Too many requests, slow down');
    }
    if (faults.errorNext > 0 || (faults.errorRate > 0 && Math.random() < faults.errorRate)) {
      const status = faults.errorNext > 0 ? 503 : 500;
      if (faults.errorNext > 0) faults.errorNext--;
      return isNodeApi(path)
        ? sendRln(reply, status, 'Unexpected', 'Injected fault')
        : sendProblem(reply, status, 'Injected fault: the service failed');
    }
    if (path.startsWith('/api/')) {
      const header = req.headers.authorization;
      if (!header || !safeEqual(header, `Bearer ${token}`)) {
        return sendProblem(reply, 401, header ? 'Invalid or revoked API token' : 'Missing bearer token');
      }
    }
  });

  app.addHook('onSend', async (req, reply, payload) => {
    if (!faults.garbage || (req.url.split('?')[0] ?? '').startsWith('/downloads/')) return payload;
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    reply.header('content-type', 'application/json; charset=utf-8');
    if (text.length < 2) return '{"nodes": [';
    return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof HttpProblem) return sendProblem(reply, err.status, err.message);
    const status = typeof (err as { statusCode?: number }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    if (isNodeApi(req.url)) return sendRln(reply, status, 'Unexpected', (err as Error).message);
    return sendProblem(reply, status, status >= 500 ? 'Internal error' : (err as Error).message);
  });
  app.setNotFoundHandler((req, reply) => {
    if (isNodeApi(req.url)) return sendRln(reply, 404, 'NotFound', `No such endpoint ${req.method} ${req.url.split('?')[0]}`);
    return sendProblem(reply, 404, `No route ${req.method} ${req.url.split('?')[0]}`);
  });

  app.get('/api/nodes', async () => ({ nodes: [...nodes.values()].map(view) }));

  app.post('/api/nodes', async (req, reply) => {
    const body = parseJsonBody(req, true);
    const { name, network } = body;
    if (typeof name !== 'string' || name.trim() === '') throw new HttpProblem(400, 'Missing field: name (string)');
    if (network === undefined) throw new HttpProblem(400, 'Missing field: network (regtest or testnet)');
    if (typeof network !== 'string' || !NETWORKS.has(network)) {
      throw new HttpProblem(400, `Invalid network ${JSON.stringify(network)}: must be regtest or testnet`);
    }
    let webhookUrl: string | undefined;
    const settings = body.settings;
    if (settings !== undefined && settings !== null) {
      if (typeof settings !== 'object' || Array.isArray(settings)) throw new HttpProblem(400, 'settings must be an object');
      const w = (settings as Record<string, unknown>).webhookUrl;
      if (w !== undefined && w !== null) webhookUrl = requireWebhookUrl(w);
    }
    if ([...nodes.values()].some((n) => n.name === name)) {
      throw new HttpProblem(409, `A node named ${JSON.stringify(name)} already exists`);
    }
    const n = addNode(name, network as 'regtest' | 'testnet', webhookUrl);
    const build = newBuild(n, 'CREATE');
    runTransition(n, 'STARTING', takeFailure('create'), (ok) => finishBuild(build, ok));
    reply.code(201);
    const v = view(n);
    return { data: { ...v }, message: `Node ${name} is being created` };
  });

  app.delete('/api/nodes', async (req) => {
    const body = parseJsonBody(req, true);
    const id = body.destroyNodeId;
    if (typeof id !== 'string' || id === '') throw new HttpProblem(400, 'Missing field: destroyNodeId (string)');
    const n = findNode(id);
    cancelPending(n);
    nodes.delete(id);
    world.removeNode(id);
    for (const [taskId, t] of tasks) if (t.nodeId === id) tasks.delete(taskId);
    return { message: `Node ${n.name} destroyed` };
  });

  app.get('/api/nodes/latest-rln-image', async () => ({ version: latestImage }));

  app.get('/api/webhook-public-key', async () => ({ publicKey: key.publicKeyPem, algorithm: key.algorithm, keyType: key.type }));

  app.get<{ Params: { id: string } }>('/api/nodes/:id', async (req) => ({ data: view(findNode(req.params.id)) }));

  app.post<{ Params: { id: string } }>('/api/nodes/:id/settings', async (req) => {
    const n = findNode(req.params.id);
    const body = parseJsonBody(req, true);
    const settings = body.settings;
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) throw new HttpProblem(400, 'Missing field: settings (object)');
    const w = (settings as Record<string, unknown>).webhookUrl;
    if (w === undefined) throw new HttpProblem(400, 'Missing field: settings.webhookUrl');
    n.settings = { ...n.settings, webhookUrl: requireWebhookUrl(w) };
    return { message: 'Settings updated', data: { nodeId: n.nodeId, settings: { ...n.settings } } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/start', async (req) => {
    const n = findNode(req.params.id);
    if (n.status === 'RUNNING' || n.status === 'STARTING') throw new HttpProblem(409, `Node ${n.name} is already ${n.status.toLowerCase()}`);
    if (n.status === 'IN_PROGRESS') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    runTransition(n, 'STARTING', takeFailure('start'));
    return { message: `Node ${n.name} is starting`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/stop', async (req) => {
    const n = findNode(req.params.id);
    if (n.status === 'PAUSED') throw new HttpProblem(409, `Node ${n.name} is already paused`);
    if (n.status === 'IN_PROGRESS') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    cancelPending(n);
    setStatus(n, takeFailure('stop') ? 'FAILED' : 'PAUSED');
    return { message: `Node ${n.name} is stopped`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/upgrade', async (req) => {
    const n = findNode(req.params.id);
    if (n.status === 'IN_PROGRESS' || n.status === 'STARTING') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    const target = latestImage;
    const build = newBuild(n, 'UPGRADE', { imageVersion: target });
    runTransition(n, 'IN_PROGRESS', takeFailure('upgrade'), (ok) => {
      finishBuild(build, ok);
      if (ok) n.imageVersion = target;
    });
    return { message: `Node ${n.name} is being upgraded to ${target}`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/logs', async (req) => {
    const n = findNode(req.params.id);
    const taskId = randomUUID();
    const files = new Map<string, string>();
    const lines = nodeLogLines({
      name: n.name,
      nodeId: n.nodeId,
      status: n.status,
      imageVersion: String(n.imageVersion),
      builds: n.builds,
      leaked: { password: EMULATOR_LEAKED_SECRETS.password, token: EMULATOR_LEAKED_SECRETS.token, mnemonic: EMULATOR_LEAKED_SECRETS.mnemonic },
    });
    files.set('rln.log', `${lines.join('\n')}\n`);
    files.set('service.log', `${new Date().toISOString()} log export ${taskId} for ${n.name}\n`);
    tasks.set(taskId, { taskId, nodeId: n.nodeId, readyAt: Date.now() + delay, files });
    return { taskId, message: 'Log export started' };
  });

  app.get<{ Params: { id: string }; Querystring: { taskId?: string } }>('/api/nodes/:id/logs', async (req) => {
    const n = findNode(req.params.id);
    const taskId = req.query.taskId;
    if (!taskId) throw new HttpProblem(400, 'Missing query parameter: taskId');
    const task = tasks.get(taskId);
    if (!task || task.nodeId !== n.nodeId) throw new HttpProblem(404, `Log export task ${JSON.stringify(taskId)} not found`);
    // Pending on the first poll whatever the timing, then ready once the delay has passed.
    const firstPoll = !task.polled;
    task.polled = true;
    if (firstPoll || Date.now() < task.readyAt) return { data: { taskId, status: 'PENDING', urls: [] } };
    const urls = [...task.files.keys()].map((f) => `${baseUrl}/downloads/${taskId}/${f}`);
    return { data: { taskId, status: 'COMPLETED', urls } };
  });

  // Download URLs act like pre-signed links: no bearer token, the task id is the secret.
  app.get<{ Params: { taskId: string; file: string } }>('/downloads/:taskId/:file', async (req, reply) => {
    const content = tasks.get(req.params.taskId)?.files.get(req.params.file);
    if (content === undefined) throw new HttpProblem(404, 'No such log file');
    return reply.type('text/plain; charset=utf-8').send(content);
  });

  const nodeApi = async (req: FastifyRequest<{ Params: { userId: string; nodeId: string; endpoint: string } }>, reply: FastifyReply) => {
    const { userId: uid, nodeId, endpoint } = req.params;
    const header = req.headers.authorization;
    if (!header || !safeEqual(header, `Bearer ${nodeApiToken}`)) {
      return sendRln(reply, 401, 'Unauthorized', header ? 'Invalid node API token' : 'Missing bearer token');
    }
    const n = nodes.get(nodeId);
    if (uid !== userId || !n) return sendRln(reply, 404, 'NodeNotFound', `No node ${nodeId} for this account`);
    if (n.status !== 'RUNNING') {
      return sendRln(reply, 503, 'NodeNotRunning', `The node is not running (status ${n.status})`);
    }
    const method = req.method === 'GET' ? 'GET' : 'POST';
    let body: unknown;
    const contentType = String(req.headers['content-type'] ?? '');
    if (method === 'POST' && /^multipart\/form-data/i.test(contentType)) {
      body = parseMultipartFile(contentType, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      if (!body) return sendRln(reply, 400, 'MediaFileNotProvided', 'Media file has not been provided (multipart field `file`)');
    } else if (method === 'POST') {
      const raw = bodyText(req);
      if (raw.trim() !== '') {
        try {
          // Integers above 2^53 become bigint instead of being rounded (u64 amounts).
          body = parseLossless(raw, null, parseJsonNumber);
        } catch {
          return sendRln(reply, 400, 'InvalidRequest', 'Failed to parse the request body as JSON');
        }
      }
    }
    const res = await world.handle(nodeId, method, endpoint, body);
    if (res.status === 200 && (endpoint === 'init' || endpoint === 'restore')) n.initialized = true;
    reply.code(res.status);
    if (res.raw !== undefined) return reply.type('application/json').send(res.raw);
    return reply.send(res.body);
  };
  app.get('/nodes/:userId/:nodeId/:endpoint', nodeApi);
  app.post('/nodes/:userId/:nodeId/:endpoint', nodeApi);

  // ---- seed -------------------------------------------------------------------------------

  if (opts.seed === 'demo') {
    const seedNode = async (name: string, network: 'regtest' | 'testnet', status: NodeStatus, image: string, ready: boolean): Promise<void> => {
      const n = addNode(name, network);
      n.imageVersion = image;
      finishBuild(newBuild(n, 'CREATE', { imageVersion: image }), true);
      n.status = status;
      if (ready && opts.demoPassword && ownWorld) {
        await ownWorld.seedReadyNode(n.nodeId, opts.demoPassword);
        n.initialized = true;
      }
    };
    // The seeded nodes run an image older than the latest, so `node upgrade` has something to do.
    await seedNode('alice', 'regtest', 'RUNNING', previousVersion(latestImage), true);
    await seedNode('bob', 'regtest', 'RUNNING', previousVersion(latestImage), true);
    await seedNode('carol', 'testnet', 'PAUSED', previousVersion(latestImage), false);
  }

  await app.listen({ port: opts.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port ?? 0;
  baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closed = false;
  const emulator: Emulator = {
    url: baseUrl,
    get token() {
      return token;
    },
    nodeApiToken,
    userId,
    faults,
    world,
    publicKey: { pem: key.publicKeyPem, type: key.type },
    deliveries,
    requests,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await sender.close();
      await app.close();
      ownWorld?.close();
    },
    revokeToken(newToken) {
      token = newToken ?? `emu_${randomBytes(18).toString('base64url')}`;
    },
    setStatus(nodeId, status) {
      const n = nodes.get(nodeId);
      if (!n) throw new Error(`emulator: no node ${nodeId}`);
      cancelPending(n);
      setStatus(n, status);
    },
    restartNode(nodeId) {
      const n = nodes.get(nodeId);
      if (!n) throw new Error(`emulator: no node ${nodeId}`);
      // The process goes down at once: its wallet is locked until someone unlocks it again.
      if (ownWorld?.hasNode(nodeId)) ownWorld.lockNode(nodeId);
      runTransition(n, 'STARTING', false);
    },
    emitEvent(nodeId, payload) {
      const n = nodes.get(nodeId);
      if (!n) throw new Error(`emulator: no node ${nodeId}`);
      emit(n, payload);
    },
    sign: (body) => key.sign(body),
    nodes: () => [...nodes.values()].map(view),
    settled: () => sender.settled(),
    setLatestImage(version) {
      latestImage = version;
    },
  };
  return emulator;
}

function bodyText(req: FastifyRequest): string {
  const b = req.body;
  if (Buffer.isBuffer(b)) return b.toString('utf8');
  return typeof b === 'string' ? b : '';
}

function parseJsonNumber(text: string): number | bigint {
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** v0.2.1 -> v0.2.0, v0.3.0 -> v0.2.9: an older image for a seeded node, so upgrade has work to do. */
function previousVersion(v: string): string {
  const m = /^(v?)(\d+)\.(\d+)\.(\d+)(.*)$/.exec(v);
  if (!m) return `${v}-old`;
  const [, pre, a, b, c] = m;
  if (Number(c) > 0) return `${pre}${a}.${b}.${Number(c) - 1}`;
  if (Number(b) > 0) return `${pre}${a}.${Number(b) - 1}.9`;
  return `${v}-old`;
}
