import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { checkWebhookUrl } from '../hosting/index.js';
import type { SigningKey } from './create-signing-key.js';
import { EMULATOR_LEAKED_SECRETS } from './emulator-leaked-secrets.js';
import type { HostedNodes } from './hosted-nodes.js';
import { HttpProblem } from './http-problem.js';
import { nodeLogLines } from './node-log-lines.js';
import { requestBody } from './request-body.js';
import type { CertAuthority } from './generate-cert.js';

const NETWORKS = new Set(['regtest', 'testnet']);

/**
 * The management API of docs/reference/service-interface.md §4.1 (`/api/...`, bearer token checked by the
 * service hooks) and the log downloads; shapes are listed at startEmulator.
 */
export function registerManagementRoutes(
  app: FastifyInstance,
  o: { hosted: HostedNodes; key: SigningKey; delayMs: number; ca: CertAuthority },
): void {
  const { hosted, key } = o;

  app.get('/api/nodes', async () => ({ nodes: hosted.views() }));

  app.post('/api/nodes', async (req, reply) => {
    const body = requestBody.jsonObject(req, true);
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
    if ([...hosted.nodes.values()].some((n) => n.name === name)) {
      throw new HttpProblem(409, `A node named ${JSON.stringify(name)} already exists`);
    }
    const n = hosted.add(name, network as 'regtest' | 'testnet', webhookUrl);
    const build = hosted.newBuild(n, 'CREATE');
    hosted.runTransition(n, 'STARTING', hosted.takeFailure('create'), (ok) => hosted.finishBuild(build, ok));
    reply.code(201);
    const v = hosted.view(n);
    return { data: { ...v }, message: `Node ${name} is being created` };
  });

  app.delete('/api/nodes', async (req) => {
    const body = requestBody.jsonObject(req, true);
    const id = body.destroyNodeId;
    if (typeof id !== 'string' || id === '') throw new HttpProblem(400, 'Missing field: destroyNodeId (string)');
    const n = hosted.find(id);
    if (n.status === 'DESTROING') throw new HttpProblem(409, `Node ${n.name} is already being destroyed`);
    hosted.destroy(n);
    return { message: `Node ${n.name} is being destroyed` };
  });

  // As the service's published description shows: `{ data: "<version>" }`, `{ data: "<PEM>" }`, a bare node.
  app.get('/api/nodes/latest-rln-image', async () => ({ data: hosted.latestImage }));

  app.get('/api/webhook-public-key', async () => ({ data: key.publicKeyPem }));

  app.get<{ Params: { id: string } }>('/api/nodes/:id', async (req) => hosted.view(hosted.find(req.params.id)));

  // mTLS material for the node API (the private key is a secret of whoever asked).
  app.post<{ Params: { id: string } }>('/api/nodes/:id/generate-cert', async (req) => {
    const n = hosted.find(req.params.id);
    return o.ca.issueClient(`${n.name}.${n.nodeId}`);
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/settings', async (req) => {
    const n = hosted.find(req.params.id);
    const body = requestBody.jsonObject(req, true);
    const settings = body.settings;
    if (!settings || typeof settings !== 'object' || Array.isArray(settings))
      throw new HttpProblem(400, 'Missing field: settings (object)');
    const w = (settings as Record<string, unknown>).webhookUrl;
    if (w === undefined) throw new HttpProblem(400, 'Missing field: settings.webhookUrl');
    n.settings = { ...n.settings, webhookUrl: requireWebhookUrl(w) };
    return { message: 'Settings updated', data: { nodeId: n.nodeId, settings: { ...n.settings } } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/start', async (req) => {
    const n = hosted.find(req.params.id);
    if (n.status === 'RUNNING' || n.status === 'STARTING')
      throw new HttpProblem(409, `Node ${n.name} is already ${n.status.toLowerCase()}`);
    if (n.status === 'IN_PROGRESS') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    // A start restarts the RLN process (of a stopped node, or a FAILED one: the incident's Restart): it comes back locked.
    hosted.processStopped(n);
    hosted.runTransition(n, 'STARTING', hosted.takeFailure('start'));
    return { message: `Node ${n.name} is starting`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/stop', async (req) => {
    const n = hosted.find(req.params.id);
    if (n.status === 'PAUSED') throw new HttpProblem(409, `Node ${n.name} is already paused`);
    if (n.status === 'IN_PROGRESS') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    hosted.cancelPending(n);
    // The RLN process stops with the node: when it is started again it is locked (P23).
    hosted.processStopped(n);
    hosted.setStatus(n, hosted.takeFailure('stop') ? 'FAILED' : 'PAUSED');
    return { message: `Node ${n.name} is stopped`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/upgrade', async (req) => {
    const n = hosted.find(req.params.id);
    if (n.status === 'IN_PROGRESS' || n.status === 'STARTING') throw new HttpProblem(409, `Node ${n.name} has an operation in progress`);
    const target = hosted.latestImage;
    const build = hosted.newBuild(n, 'UPGRADE', { imageVersion: target });
    // The node is locked while it upgrades and stays locked after it (the service's docs); a failed
    // upgrade leaves it on its image, restarted, so locked too.
    hosted.runTransition(n, 'IN_PROGRESS', hosted.takeFailure('upgrade'), (ok) => {
      hosted.finishBuild(build, ok);
      hosted.moveToImage(n, ok ? target : n.imageVersion);
    });
    return { message: `Node ${n.name} is being upgraded to ${target}`, data: { nodeId: n.nodeId, status: n.status } };
  });

  app.post<{ Params: { id: string } }>('/api/nodes/:id/logs', async (req) => {
    const n = hosted.find(req.params.id);
    const taskId = randomUUID();
    const files = new Map<string, string>();
    const lines = nodeLogLines({
      name: n.name,
      nodeId: n.nodeId,
      status: n.status,
      imageVersion: String(n.imageVersion),
      builds: n.builds,
      leaked: EMULATOR_LEAKED_SECRETS,
    });
    files.set('rln.log', `${lines.join('\n')}\n`);
    files.set('service.log', `${new Date().toISOString()} log export ${taskId} for ${n.name}\n`);
    hosted.tasks.set(taskId, { taskId, nodeId: n.nodeId, readyAt: Date.now() + o.delayMs, files });
    return { taskId, message: 'Log export started' };
  });

  app.get<{ Params: { id: string }; Querystring: { taskId?: string } }>('/api/nodes/:id/logs', async (req) => {
    const n = hosted.find(req.params.id);
    const taskId = req.query.taskId;
    if (!taskId) throw new HttpProblem(400, 'Missing query parameter: taskId');
    const task = hosted.tasks.get(taskId);
    if (!task || task.nodeId !== n.nodeId) throw new HttpProblem(404, `Log export task ${JSON.stringify(taskId)} not found`);
    // Pending on the first poll whatever the timing, then ready once the delay has passed.
    const firstPoll = !task.polled;
    task.polled = true;
    if (firstPoll || Date.now() < task.readyAt) return { data: { taskId, status: 'PENDING', urls: [] } };
    const urls = [...task.files.keys()].map((f) => `${hosted.baseUrl}/downloads/${taskId}/${f}`);
    return { data: { taskId, status: 'COMPLETED', urls } };
  });

  // Download URLs act like pre-signed links: no bearer token, the task id is the secret.
  app.get<{ Params: { taskId: string; file: string } }>('/downloads/:taskId/:file', async (req, reply) => {
    const content = hosted.tasks.get(req.params.taskId)?.files.get(req.params.file);
    if (content === undefined) throw new HttpProblem(404, 'No such log file');
    return reply.type('text/plain; charset=utf-8').send(content);
  });
}

function requireWebhookUrl(value: unknown): string {
  const problem = checkWebhookUrl(value);
  if (problem) throw new HttpProblem(400, problem);
  return value as string;
}
