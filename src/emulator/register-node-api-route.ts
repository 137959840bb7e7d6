import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseLossless } from 'lossless-json';
import type { HostedNodes } from './hosted-nodes.js';
import { HttpProblem } from './http-problem.js';
import { parseMultipartFile, type NodeWorld } from './node-api/index.js';
import { requestBody } from './request-body.js';

/**
 * Each node's API at its invoke_url (`/nodes/{userId}/{nodeId}/{endpoint}`): the node API
 * token, a RUNNING node, then the NodeWorld answers.
 */
export function registerNodeApiRoute(
  app: FastifyInstance,
  o: { hosted: HostedNodes; world: NodeWorld; userId: string; nodeApiToken: string },
): void {
  const { hosted, world } = o;
  const nodeApi = async (req: FastifyRequest<{ Params: { userId: string; nodeId: string; endpoint: string } }>, reply: FastifyReply) => {
    const { userId: uid, nodeId, endpoint } = req.params;
    const header = req.headers.authorization;
    if (!requestBody.bearerMatches(header, o.nodeApiToken)) {
      return HttpProblem.sendRln(reply, 401, 'Unauthorized', header ? 'Invalid node API token' : 'Missing bearer token');
    }
    const n = hosted.nodes.get(nodeId);
    if (uid !== o.userId || !n) return HttpProblem.sendRln(reply, 404, 'NodeNotFound', `No node ${nodeId} for this account`);
    if (n.status !== 'RUNNING') {
      return HttpProblem.sendRln(reply, 503, 'NodeNotRunning', `The node is not running (status ${n.status})`);
    }
    const method = req.method === 'GET' ? 'GET' : 'POST';
    let body: unknown;
    const contentType = String(req.headers['content-type'] ?? '');
    if (method === 'POST' && /^multipart\/form-data/i.test(contentType)) {
      body = parseMultipartFile(contentType, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      if (!body)
        return HttpProblem.sendRln(reply, 400, 'MediaFileNotProvided', 'Media file has not been provided (multipart field `file`)');
    } else if (method === 'POST') {
      const raw = requestBody.text(req);
      if (raw.trim() !== '') {
        try {
          // Integers above 2^53 become bigint instead of being rounded (u64 amounts).
          body = parseLossless(raw, null, (text) => requestBody.jsonNumber(text));
        } catch {
          return HttpProblem.sendRln(reply, 400, 'InvalidRequest', 'Failed to parse the request body as JSON');
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
}
