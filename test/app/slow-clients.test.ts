/**
 * Slow clients: a client that sends its headers slowly, or its body at a trickle, gets a
 * timeout and does not tie the server up; other requests are served meanwhile.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/metrics.js';
import { silentLogger } from '../../src/log.js';

describe('slow clients', () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = await createHttpServer({
      logger: silentLogger,
      metrics: createMetrics({ defaults: false }),
      routes: [
        async (f) => {
          f.post('/echo', async (req) => ({ got: (req.body as { n?: number })?.n ?? null }));
        },
      ],
      requestTimeoutMs: 600,
      headersTimeoutMs: 400,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => app.close());

  /** Opens a raw socket and drips `chunks`, one every `everyMs`; resolves when the server closes it. */
  function drip(chunks: string[], everyMs: number): Promise<{ closedAfterChunks: number; response: string }> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let sent = 0;
      let response = '';
      const timer = setInterval(() => {
        if (sent < chunks.length && !socket.destroyed) socket.write(chunks[sent++]);
      }, everyMs);
      socket.on('data', (d) => (response += d.toString()));
      const done = () => {
        clearInterval(timer);
        resolve({ closedAfterChunks: sent, response });
      };
      socket.on('close', done);
      socket.on('error', () => undefined);
    });
  }

  it('headers sent slowly: the server gives up and closes the connection', async () => {
    const header = 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Slow: ' + 'a'.repeat(200) + '\r\n';
    const chunks = header.split('').concat(['\r\n']);
    const served = fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status);
    const result = await drip(chunks, 20);
    // Closed long before the whole header was sent (it would take > 5 s).
    expect(result.closedAfterChunks).toBeLessThan(chunks.length);
    expect(result.response === '' || /^HTTP\/1\.1 408/.test(result.response)).toBe(true);
    expect(await served).toBe(200);
  });

  it('a body at a trickle: the request times out, and others are served meanwhile', async () => {
    const body = JSON.stringify({ n: 1, pad: 'x'.repeat(400) });
    const head = `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const chunks = [head, ...body.split('')];
    const trickle = drip(chunks, 20);
    // While the trickle goes on, a normal request is answered.
    const r = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"n":2}',
    });
    expect(await r.json()).toEqual({ got: 2 });
    const result = await trickle;
    expect(result.closedAfterChunks).toBeLessThan(chunks.length);
    expect(result.response).not.toMatch(/"got":1/);
  });
});
