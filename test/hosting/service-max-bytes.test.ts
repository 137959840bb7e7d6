/**
 * A hostile service that answers more than SERVICE_MAX_BYTES (issue 27, item 2): the answer is
 * cut off as it arrives, and the refusal names the endpoint and the limit, in the client's error
 * and in the chat answer a user gets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createRegistry } from '../../src/engine/index.js';
import { allCommands } from '../../commands/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { replyText } from '../support/reply-text.js';

const LIMIT = 64 * 1024;
/** About 2 MB of nodes: 32 times the limit. */
const HUGE = JSON.stringify({
  nodes: Array.from({ length: 12_000 }, (_, i) => ({ nodeId: `n-${i}`, name: `node-${i}`, status: 'RUNNING', pad: 'x'.repeat(120) })),
});

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunked = req.url?.includes('chunked') || req.headers['x-mode'] === 'chunked';
    // Announced (Content-Length) or not (chunked): both are refused at the limit.
    res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(HUGE)) }) });
    let at = 0;
    const push = () => {
      while (at < HUGE.length) {
        const part = HUGE.slice(at, at + 16 * 1024);
        at += part.length;
        if (!res.write(part)) return void res.once('drain', push);
      }
      res.end();
    };
    push();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('a service answer larger than SERVICE_MAX_BYTES', () => {
  it('is refused with an error naming the endpoint and the limit, announced or not', async () => {
    for (const mode of ['announced', 'chunked']) {
      const hosting = createHostingClient({
        baseUrl: mode === 'chunked' ? `${base}/chunked` : base,
        token: 'service-token',
        maxBytes: LIMIT,
        retry: { limit: 0 },
      });
      const err = await hosting.listNodes().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err, mode).toBeInstanceOf(Error);
      expect(err!.message).toContain('GET /api/nodes');
      expect(err!.message).toContain('64 KiB');
      expect(err!.message).toContain('SERVICE_MAX_BYTES');
    }
  });

  it('tells the user in chat which call was too large and the limit, with no stack trace', async () => {
    const hosting = createHostingClient({ baseUrl: base, token: 'service-token', maxBytes: LIMIT, retry: { limit: 0 } });
    const dispatcher = testDispatcher({
      registry: createRegistry(allCommands),
      admins: ['shell:local'],
      services: {
        hosting,
        nodeApi: (n: HostedNode) => {
          throw new Error(`no node API in this test (${n.name})`);
        },
      },
    });
    const reply = await dispatcher.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'local' },
      place: { platform: 'shell', channelId: 'terminal' },
      text: 'node list',
    });
    const text = reply.kind === 'message' ? replyText(reply.message) : JSON.stringify(reply);
    expect(text).toContain('GET /api/nodes');
    expect(text).toContain('SERVICE_MAX_BYTES');
    expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
