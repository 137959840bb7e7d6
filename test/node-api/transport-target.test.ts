/**
 * The transport splits a node's base URL once into the origin and path undici's dispatcher takes
 * (undici's `request(url)` parsed a URL at every call). A base URL it does not split (not
 * http(s), or with a query) goes through `request(url)` as before, and its refusal is still a
 * NodeApiError naming the endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { buildTransport } from '../../src/node-api/transport.js';
import { createNodeApiClient, NodeApiError } from '../../src/node-api/index.js';

const target = (baseUrl: string) => buildTransport({ baseUrl, credentials: { kind: 'none' } }).target;

let server: Server;
let base: string;
const paths: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"network":"Regtest","height":7}'));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe("the node's base URL, as the transport sends to it", () => {
  it('is split once into origin and path, without a trailing slash', () => {
    expect(target('http://127.0.0.1:3001/nodes/u1/n1/')).toEqual({ origin: 'http://127.0.0.1:3001', basePath: '/nodes/u1/n1' });
    expect(target('https://node.example.com')).toEqual({ origin: 'https://node.example.com', basePath: '' });
    expect(target('https://[::1]:8443/a%20b')).toEqual({ origin: 'https://[::1]:8443', basePath: '/a%20b' });
    for (const notSplit of ['ftp://node.example.com/x', 'http://node.example.com/x?y=1', 'not a url'])
      expect(target(notSplit)).toBeUndefined();
  });

  it('reaches the endpoint under the base path', async () => {
    const client = createNodeApiClient({ baseUrl: `${base}/nodes/u1/n1/`, credentials: { kind: 'none' }, retries: 0 });
    expect((await client.networkinfo()).height).toBe(7);
    expect(paths.at(-1)).toBe('/nodes/u1/n1/networkinfo');
    client.close();
  });

  it('that is not http(s) is refused as an error of the call, naming the endpoint', async () => {
    const client = createNodeApiClient({ baseUrl: 'ftp://127.0.0.1/nodes/u1/n1', credentials: { kind: 'none' }, retries: 0 });
    const e = await client.networkinfo().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NodeApiError);
    expect((e as NodeApiError).message).toContain('networkinfo');
  });
});
