import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeApiClient, NodeApiError } from '../../src/node-api/index.js';

const TOKEN = 'node-token-7d1e44';
const received: Array<{ url: string; auth?: string; body: string }> = [];
let elsewhere: Server;
let redirecting: Server;
let elsewhereUrl = '';
let nodeUrl = '';

const listen = (s: Server) =>
  new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));

beforeAll(async () => {
  elsewhere = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  elsewhereUrl = await listen(elsewhere);
  // A node API that redirects every call, keeping the method and body (307).
  redirecting = createServer((req, res) => {
    req.resume();
    res.statusCode = 307;
    res.setHeader('location', `${elsewhereUrl}${req.url}`);
    res.end();
  });
  nodeUrl = await listen(redirecting);
});
afterAll(() => {
  elsewhere.close();
  redirecting.close();
});

describe('node API client and redirects', () => {
  it('never follows a redirect, so a password in the body goes nowhere else', async () => {
    const client = createNodeApiClient({ baseUrl: `${nodeUrl}/nodes/u/n1`, credentials: { kind: 'token', token: TOKEN }, timeoutMs: 2000 });
    const e = await client.unlock({ password: 'the-node-password-1' } as any).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(NodeApiError);
    expect((e as NodeApiError).status).toBe(307);
    expect((e as NodeApiError).hint).toContain('redirect');
    expect(received).toEqual([]);
  });
});
