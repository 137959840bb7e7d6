// A tiny loopback HTTP(S) server that serves a NodeWorld at /<nodeId>/<endpoint>, with fault injection for client tests.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { NodeWorld, parseMultipartFile } from '../../src/emulator/node-api/index.js';

export interface Fault {
  /** Only for this endpoint (default: any). */
  endpoint?: string;
  /** How many requests it affects (default 1). */
  times?: number;
  status?: number;
  /** Exact response text. */
  raw?: string;
  /** Announce a longer body than sent, then cut the connection. */
  truncate?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Extra answer headers (`retry-after`). */
  headers?: Record<string, string>;
}

export interface NodeWorldServer {
  world: NodeWorld;
  baseUrl: string;
  urlOf(nodeId: string): string;
  faults: Fault[];
  /** Requests seen, per endpoint. */
  hits: Map<string, number>;
  lastHeaders?: IncomingMessage['headers'];
  /** Client connections open now. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startNodeWorldServer(
  opts: {
    world?: NodeWorld;
    token?: string;
    tls?: { key: string | Buffer; cert: string | Buffer; ca?: string | Buffer; requestCert?: boolean };
    /** How long an idle connection is kept (Node's default 5 s); the server tells clients so. */
    keepAliveMs?: number;
  } = {},
): Promise<NodeWorldServer> {
  const world = opts.world ?? new NodeWorld();
  const faults: Fault[] = [];
  const hits = new Map<string, number>();
  const state = { lastHeaders: undefined as IncomingMessage['headers'] | undefined };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const [, nodeId = '', endpoint = ''] = (req.url ?? '').split('?')[0].split('/');
    hits.set(endpoint, (hits.get(endpoint) ?? 0) + 1);
    state.lastHeaders = req.headers;
    const send = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(text);
    };
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`)
      return send(401, JSON.stringify({ error: 'Unauthorized', code: 401 }));

    const fault = faults.find((f) => (f.endpoint === undefined || f.endpoint === endpoint) && (f.times ?? 1) > 0);
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault.truncate) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"vanilla":{"settled":1');
        setTimeout(() => res.destroy(), 5);
        return;
      }
      if (fault.status !== undefined || fault.raw !== undefined)
        return send(fault.status ?? 200, fault.raw ?? JSON.stringify({ error: 'injected fault', code: fault.status }), fault.headers);
    }

    let body: unknown;
    const contentType = req.headers['content-type'] ?? '';
    if (contentType.startsWith('multipart/form-data')) body = parseMultipartFile(contentType, raw);
    else if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(400, JSON.stringify({ error: 'Failed to parse the request body as JSON', code: 400, name: 'InvalidRequest' }));
      }
    }
    const method = req.method === 'GET' ? 'GET' : 'POST';
    const reply = await world.handle(nodeId, method, endpoint, body);
    send(reply.status, reply.raw ?? JSON.stringify(reply.body));
  };

  // Node ignores a listener's promise; a throw in handler stays an unhandled rejection, as before.
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void handler(req, res);
  };
  const server: Server = opts.tls
    ? createHttpsServer(
        {
          key: opts.tls.key,
          cert: opts.tls.cert,
          ca: opts.tls.ca,
          requestCert: opts.tls.requestCert ?? false,
          rejectUnauthorized: opts.tls.requestCert ?? false,
        },
        listener,
      )
    : createHttpServer(listener);
  if (opts.keepAliveMs !== undefined) server.keepAliveTimeout = opts.keepAliveMs;
  let open = 0;
  server.on('connection', (socket) => {
    open++;
    socket.once('close', () => open--);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `${opts.tls ? 'https' : 'http'}://${opts.tls ? 'localhost' : '127.0.0.1'}:${port}`;
  return {
    world,
    baseUrl,
    faults,
    hits,
    get lastHeaders() {
      return state.lastHeaders;
    },
    urlOf: (nodeId) => `${baseUrl}/${nodeId}`,
    openConnections: () => open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
