import type { FastifyInstance } from 'fastify';
import { HttpProblem } from './http-problem.js';
import { requestBody } from './request-body.js';
import type { Delivery, Faults } from './types.js';

/** Entries kept in `requests` and `deliveries` (the oldest half is dropped beyond this). */
const MAX_LOG = 20_000;

/** Node API requests in flight per node (`/nodes/<user>/<node>/<endpoint>`), and the most seen at once. */
export class NodeRequestsInFlight {
  private readonly now = new Map<string, number>();
  private readonly peaks = new Map<string, number>();

  /** Counts a request to `path` (a node API path; undefined for any other) until the returned end is called. */
  track(path: string): (() => void) | undefined {
    const parts = path.split('/');
    if (parts[1] !== 'nodes' || parts.length < 5) return undefined;
    const node = parts[3];
    const n = (this.now.get(node) ?? 0) + 1;
    this.now.set(node, n);
    if (n > (this.peaks.get(node) ?? 0)) this.peaks.set(node, n);
    return () => {
      const left = (this.now.get(node) ?? 1) - 1;
      if (left > 0) this.now.set(node, left);
      else this.now.delete(node);
    };
  }

  peak(nodeId: string): number {
    return this.peaks.get(nodeId) ?? 0;
  }
}

/**
 * What every request goes through before and after its route: the request log, fault
 * injection (down, latency, 429, 5xx, truncated bodies), the management API's bearer token,
 * and the error and not-found answers (RLN-shaped on the node API).
 */
export function installServiceHooks(
  app: FastifyInstance,
  o: {
    faults: Faults;
    requests: Array<{ method: string; path: string }>;
    deliveries: Delivery[];
    nodeRequests?: NodeRequestsInFlight;
    token: () => string;
  },
): void {
  const { faults, requests, deliveries } = o;

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? req.url;
    requests.push({ method: req.method, path });
    // Until its answer is written or the client goes away, whichever comes first.
    const end = o.nodeRequests?.track(path);
    if (end) reply.raw.once('close', end);
    // Bounded, so a benchmark's load does not grow memory without end.
    if (requests.length > MAX_LOG) requests.splice(0, requests.length - MAX_LOG / 2);
    if (deliveries.length > MAX_LOG) deliveries.splice(0, deliveries.length - MAX_LOG / 2);
    if (path.startsWith('/downloads/')) return;
    if (faults.down) {
      reply.hijack();
      req.raw.socket.destroy();
      return reply;
    }
    // Which fault a request meets is decided when it arrives, before any latency: a request
    // still sleeping out an earlier latency must not take the 429 or 5xx meant for the next one.
    const rateLimited = faults.rateLimitNext > 0;
    if (rateLimited) faults.rateLimitNext--;
    const failing = !rateLimited && (faults.errorNext > 0 || (faults.errorRate > 0 && Math.random() < faults.errorRate));
    const status = faults.errorNext > 0 ? 503 : 500;
    if (failing && faults.errorNext > 0) faults.errorNext--;
    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    if (rateLimited) {
      reply.header('retry-after', String(faults.retryAfterSec));
      return HttpProblem.isNodeApi(path)
        ? HttpProblem.sendRln(reply, 429, 'TooManyRequests', 'Too many requests')
        : HttpProblem.send(reply, 429, 'Too many requests, slow down');
    }
    if (failing) {
      return HttpProblem.isNodeApi(path)
        ? HttpProblem.sendRln(reply, status, 'Unexpected', 'Injected fault')
        : HttpProblem.send(reply, status, 'Injected fault: the service failed');
    }
    if (path.startsWith('/api/')) {
      const header = req.headers.authorization;
      if (!requestBody.bearerMatches(header, o.token())) {
        return HttpProblem.send(reply, 401, header ? 'Invalid or revoked API token' : 'Missing bearer token');
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
    if (err instanceof HttpProblem) return HttpProblem.send(reply, err.status, err.message);
    const status = typeof (err as { statusCode?: number }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    if (HttpProblem.isNodeApi(req.url)) return HttpProblem.sendRln(reply, status, 'Unexpected', (err as Error).message);
    return HttpProblem.send(reply, status, status >= 500 ? 'Internal error' : (err as Error).message);
  });
  app.setNotFoundHandler((req, reply) => {
    if (HttpProblem.isNodeApi(req.url))
      return HttpProblem.sendRln(reply, 404, 'NotFound', `No such endpoint ${req.method} ${req.url.split('?')[0]}`);
    return HttpProblem.send(reply, 404, `No route ${req.method} ${req.url.split('?')[0]}`);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
