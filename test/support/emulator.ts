import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on loopback. `respond` picks the status of each request (default 200). */
export async function startReceiver(respond: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = respond(received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A plain HTTP server answering every request with `handler` (for shapes the emulator does not produce). */
export async function startStub(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A NodeWorld stand-in recording what the emulator asks of it. */
export function recordingWorld() {
  const added: Array<{ nodeId: string; network: string; alias?: string }> = [];
  const removed: string[] = [];
  const calls: Array<{ nodeId: string; method: string; endpoint: string; body: unknown }> = [];
  return {
    added,
    removed,
    calls,
    addNode(nodeId: string, opts: { network: string; alias?: string }) {
      added.push({ nodeId, ...opts });
    },
    removeNode(nodeId: string) {
      removed.push(nodeId);
    },
    async handle(nodeId: string, method: 'GET' | 'POST', endpoint: string, body: unknown) {
      calls.push({ nodeId, method, endpoint, body });
      if (endpoint === 'btcbalance') {
        return { status: 200, body: null, raw: '{"vanilla":{"settled":18446744073709551615,"future":0,"spendable":0}}' };
      }
      if (endpoint === 'nodeinfo') return { status: 200, body: { pubkey: `pk-${nodeId}` } };
      return { status: 403, body: { error: 'Node is locked', code: 403, name: 'LockedNode' } };
    },
  };
}
