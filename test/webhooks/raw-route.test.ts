/**
 * The webhook routes are a raw node:http route mounted beside fastify (issue 29): what fastify
 * did for them is done by the route itself. Over loopback sockets, against the real server and
 * notifier: the paths it takes and leaves to fastify, a body over the limit that declares no
 * length, an empty unsigned request, and the 503 while the server closes.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeDirectory, KeyCache } from '../../src/webhooks/index.js';
import { rawRoutingOf } from '../../src/http/index.js';
import { fakeHosting, makeNotifier, node, RecordingPoster, startReceiver, statusPayload, type Harness } from '../support/notify.js';
import { makeKey } from './keys.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(routeOpts: { bodyLimit?: number } = {}) {
  const key = makeKey('ed25519');
  const hosting = fakeHosting([node('n1', 'alice')], key.encodings['JSON {publicKey: PEM}']);
  const h: Harness = makeNotifier({ posters: { slack: new RecordingPoster('slack') }, hosting });
  const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey() });
  const rx = await startReceiver(
    h.notifier,
    { keys, nodes: createNodeDirectory({ hosting, minRefreshMs: 0 }), ...routeOpts },
    undefined,
    h.metrics,
  );
  let closed = false;
  cleanup.push(
    () => h.close(),
    () => (closed ? undefined : rx.close()),
  );
  const signer = Object.values(key.signers)[0];
  const signedBody = (nodeId = 'n1') => {
    const body = Buffer.from(JSON.stringify(statusPayload(nodeId, 'PAUSED', new Date().toISOString())));
    return { body, signature: signer(body) };
  };
  const post = (path: string, body: Buffer, headers: Record<string, string>, method = 'POST') =>
    fetch(`${rx.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
  const refused = async (reason: string) =>
    (await h.metrics.webhooks.get()).values.find((v) => v.labels.outcome === 'refused' && v.labels.reason === reason)?.value ?? 0;
  return { h, rx, port: Number(new URL(rx.url).port), signedBody, post, refused, markClosed: () => (closed = true) };
}

/** A raw socket that collects what the server answers, and the status lines in order. */
function rawSocket(port: number): { socket: Socket; text: () => string; statuses: () => number[] } {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.on('data', (c) => (got += String(c)));
  socket.on('error', () => undefined);
  cleanup.push(() => void socket.destroy());
  return { socket, text: () => got, statuses: () => [...got.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])) };
}

describe('the webhook routes as a raw node:http route', () => {
  it('serves both paths, with a query string and an encoded node id, and leaves other methods and paths to fastify', async () => {
    const t = await setup();
    const a = t.signedBody();
    expect((await t.post('/webhooks/service', a.body, { 'x-service-signature': a.signature })).status).toBe(202);
    const b = t.signedBody();
    expect((await t.post('/webhooks/service/n1?from=test', b.body, { 'x-service-signature': b.signature })).status).toBe(202);
    const c = t.signedBody();
    expect((await t.post('/webhooks/service/n%31', c.body, { 'x-service-signature': c.signature })).status).toBe(202);
    expect(await t.h.notifier.store.countEvents()).toBe(3);
    // Not this route's: fastify answers as it would for any unknown route.
    expect((await fetch(`${t.rx.url}/webhooks/service/n1`)).status).toBe(404);
    const d = t.signedBody();
    expect((await t.post('/webhooks/service/n1/extra', d.body, { 'x-service-signature': d.signature })).status).toBe(404);
    expect((await t.post('/webhooks/servicex', d.body, { 'x-service-signature': d.signature })).status).toBe(404);
    expect((await t.post(`/webhooks/service/${'n'.repeat(101)}`, d.body, { 'x-service-signature': d.signature })).status).toBe(404);
    expect(await t.h.notifier.store.countEvents()).toBe(3);
  });

  it('refuses an empty unsigned POST with 401 missing_signature and a message', async () => {
    const t = await setup();
    const res = await t.post('/webhooks/service/n1', Buffer.alloc(0), {});
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'missing_signature', message: expect.stringMatching(/x-service-signature/) });
    expect(await t.refused('missing_signature')).toBe(1);
  });

  it('refuses a chunked body that grows past the limit with 413 too_large, and closes the connection', async () => {
    const t = await setup({ bodyLimit: 1024 });
    const s = rawSocket(t.port);
    s.socket.write(
      'POST /webhooks/service/n1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\nX-Service-Signature: c2ln\r\n\r\n',
    );
    const chunk = 'x'.repeat(600);
    s.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    s.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    await waitFor(() => s.statuses().length > 0);
    expect(s.statuses()).toEqual([413]);
    expect(s.text()).toMatch(/connection: close/i);
    expect(s.text()).toContain('too_large');
    expect(await t.refused('too_large')).toBe(1);
    expect(await t.h.notifier.store.countEvents()).toBe(0);
  });

  it('while the server closes, answers a request it was reading and refuses the next with 503 and Connection: close', async () => {
    const t = await setup();
    const a = t.signedBody();
    const b = t.signedBody();
    const s = rawSocket(t.port);
    const head = (body: Buffer, signature: string) =>
      `POST /webhooks/service/n1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nX-Service-Signature: ${signature}\r\n\r\n`;
    // The first request's head only: the server is reading it when the close begins.
    const received = new Promise((r) => t.rx.app.server.once('request', r));
    s.socket.write(head(a.body, a.signature));
    await received;
    t.markClosed();
    const closing = t.rx.close();
    await waitFor(() => rawRoutingOf(t.rx.app)?.httpClosing() === true);
    // Its body, then a second request pipelined on the same connection.
    s.socket.write(a.body);
    s.socket.write(head(b.body, b.signature) + b.body.toString());
    await waitFor(() => s.statuses().length === 2);
    expect(s.statuses()).toEqual([202, 503]);
    expect(s.text()).toMatch(/connection: close/i);
    await closing;
    expect(await t.h.notifier.store.countEvents()).toBe(1);
  });
});
