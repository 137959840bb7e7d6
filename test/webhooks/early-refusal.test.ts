/**
 * Unauthenticated traffic must not cost memory: the receiver answers an unsigned or oversized
 * request before reading its body, and sheds load when too many bodies are being read at once.
 * Over a raw loopback socket, so the body is provably never sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeDirectory, KeyCache } from '../../src/webhooks/index.js';
import { actor, fakeHosting, makeNotifier, node, RecordingPoster, slackPlace, startReceiver, type Harness } from '../support/notify.js';
import { makeKey } from './keys.js';
import { postHeadOnly } from '../support/raw-http.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(routeOpts: { bodyLimit?: number } = {}) {
  const key = makeKey('ed25519');
  const hosting = fakeHosting([node('n1', 'alice')], key.encodings['JSON {publicKey: PEM}']);
  const h: Harness = makeNotifier({ posters: { slack: new RecordingPoster('slack') }, hosting });
  await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
  const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey() });
  const rx = await startReceiver(
    h.notifier,
    { keys, nodes: createNodeDirectory({ hosting, minRefreshMs: 0 }), ...routeOpts },
    undefined,
    h.metrics,
  );
  cleanup.push(
    () => h.close(),
    () => rx.close(),
  );
  const port = Number(new URL(rx.url).port);
  const signer = Object.values(key.signers)[0];
  return { h, rx, port, signer };
}

function headOnly(port: number, path: string, length: number, headers: Record<string, string> = {}) {
  const r = postHeadOnly(port, path, length, headers);
  cleanup.push(() => void r.socket.destroy());
  return r;
}

describe('early refusal of webhook bodies', () => {
  it('answers an unsigned 1 MB POST with 401 before its body is sent', async () => {
    const t = await setup();
    expect(await headOnly(t.port, '/webhooks/service', 1024 * 1024).status).toBe(401);
  });

  it('answers a signed-looking POST declaring more than the body limit with 413 before its body is sent', async () => {
    const t = await setup({ bodyLimit: 64 * 1024 });
    expect(await headOnly(t.port, '/webhooks/service/n1', 64 * 1024 + 1, { 'X-Service-Signature': 'c2ln' }).status).toBe(413);
  });

  it('sheds bodies beyond the in-flight memory budget (32 of the largest size) with 503 and Retry-After, and accepts again once they end', async () => {
    const t = await setup();
    const held = Array.from({ length: 32 }, () => headOnly(t.port, '/webhooks/service/n1', 64 * 1024, { 'X-Service-Signature': 'c2ln' }));
    // Every held request is being read (its body never comes); wait until the server has them all.
    await new Promise((r) => setTimeout(r, 500));
    const extra = headOnly(t.port, '/webhooks/service/n1', 1000, { 'X-Service-Signature': 'c2ln' });
    expect(await extra.status).toBe(503);
    for (const x of held) x.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const body = Buffer.from(
      JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date().toISOString(),
        nodeId: 'n1',
        details: { nodeId: 'n1', status: 'PAUSED' },
      }),
    );
    const res = await fetch(`${t.rx.url}/webhooks/service/n1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': t.signer(body) },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(202);
  });

  it('answers 503 with Retry-After when the event cannot be stored, and stores nothing', async () => {
    const t = await setup();
    void t.h.db.close();
    const body = Buffer.from(
      JSON.stringify({
        eventType: 'NODE_STATUS_UPDATED',
        eventTimestamp: new Date().toISOString(),
        nodeId: 'n1',
        details: { nodeId: 'n1', status: 'FAILED' },
      }),
    );
    const res = await fetch(`${t.rx.url}/webhooks/service/n1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': t.signer(body) },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
  });
});
