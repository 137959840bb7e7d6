import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createNodeDirectory, KeyCache } from '../../src/webhooks/index.js';
import {
  actor,
  fakeHosting,
  makeNotifier,
  node,
  RecordingPoster,
  slackPlace,
  startReceiver,
  statusPayload,
  textOf,
  type Harness,
} from '../support/notify.js';
import { makeKey, type Kind } from './keys.js';
import { waitFor } from '../support/wait-for.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(opts: { kind?: Kind; header?: string; refetchMs?: number; keyEncoding?: string } = {}) {
  const key = makeKey(opts.kind ?? 'ed25519');
  const hosting = fakeHosting([node('n1', 'alice'), node('n2', 'bob')], key.encodings[opts.keyEncoding ?? 'JSON {publicKey: PEM}']);
  const poster = new RecordingPoster('slack');
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
  const h: Harness = makeNotifier({ posters: { slack: poster }, hosting, logger });
  await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
  h.notifier.start();
  const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey(), refetchIntervalMs: opts.refetchMs ?? 60_000 });
  const nodes = createNodeDirectory({ hosting, minRefreshMs: 0 });
  const rx = await startReceiver(h.notifier, { signatureHeader: opts.header ?? 'X-Service-Signature', keys, nodes }, logger, h.metrics);
  cleanup.push(
    () => h.close(),
    () => rx.close(),
  );
  const signer = Object.values(key.signers)[0];
  const send = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${rx.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body),
    });
  const signed = (path: string, payload: unknown, header = 'x-service-signature') => {
    const body = Buffer.from(JSON.stringify(payload));
    return send(path, body, { [header]: signer(body) });
  };
  const refused = async (reason: string) =>
    (await h.metrics.webhooks.get()).values.find((v) => v.labels.outcome === 'refused' && v.labels.reason === reason)?.value ?? 0;
  return { key, hosting, poster, h, rx, send, signed, signer, refused, lines, keys };
}

describe('webhook receiver', () => {
  it('accepts a signed event, stores it and posts it to the watching channel', async () => {
    const t = await setup();
    const res = await t.signed('/webhooks/service/n1', statusPayload('n1', 'PAUSED'));
    expect(res.status).toBe(202);
    expect(((await res.json()) as { eventId: number }).eventId).toBeGreaterThan(0);
    const [post] = await waitFor(() => t.poster.posts().length > 0 && t.poster.posts());
    expect(post.target.channelId).toBe('C1');
    expect(textOf(post.message)).toContain('alice');
    expect(textOf(post.message)).toContain('PAUSED');
  });

  it('accepts X-ThunderStack-Signature whatever the configured header, and the configured header', async () => {
    const t = await setup({ header: 'X-Custom-Sig' });
    expect((await t.signed('/webhooks/service', statusPayload('n1', 'PAUSED'), 'x-thunderstack-signature')).status).toBe(202);
    expect((await t.signed('/webhooks/service', statusPayload('n1', 'STARTING'), 'x-custom-sig')).status).toBe(202);
    expect((await t.signed('/webhooks/service', statusPayload('n1', 'RUNNING'), 'x-service-signature')).status).toBe(401);
  });

  it('refuses a tampered body, a foreign key, a missing header, an oversized or non-JSON body, a mismatched or unknown node, and posts nothing', async () => {
    const t = await setup();
    const payload = statusPayload('n1', 'FAILED');
    const body = Buffer.from(JSON.stringify(payload));
    const sig = t.signer(body);
    const tampered = Buffer.from(body.toString().replace('FAILED', 'PAUSED'));
    expect((await t.send('/webhooks/service', tampered, { 'x-service-signature': sig })).status).toBe(401);
    const foreign = makeKey('ed25519');
    expect((await t.send('/webhooks/service', body, { 'x-service-signature': Object.values(foreign.signers)[0](body) })).status).toBe(401);
    expect((await t.send('/webhooks/service', body)).status).toBe(401);
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    expect((await t.send('/webhooks/service', big, { 'x-service-signature': t.signer(big) })).status).toBe(413);
    const notJson = Buffer.from('{"nodeId": "n1", ');
    expect((await t.send('/webhooks/service', notJson, { 'x-service-signature': t.signer(notJson) })).status).toBe(400);
    expect((await t.signed('/webhooks/service', { eventType: 'X', details: {} })).status).toBe(400);
    expect((await t.signed('/webhooks/service/n2', payload)).status).toBe(403);
    expect((await t.signed('/webhooks/service', { ...payload, nodeId: 'n1', details: { nodeId: 'n2', status: 'FAILED' } })).status).toBe(
      403,
    );
    expect((await t.signed('/webhooks/service', statusPayload('ghost', 'FAILED'))).status).toBe(404);

    await t.h.notifier.drain(2000);
    expect(t.poster.calls).toHaveLength(0);
    expect(await t.h.notifier.store.countEvents()).toBe(0);
    for (const reason of ['bad_signature', 'missing_signature', 'too_large', 'not_json', 'bad_shape', 'node_mismatch', 'unknown_node']) {
      expect(await t.refused(reason), reason).toBeGreaterThan(0);
    }
    const refusals = t.lines.filter((l) => l.includes('webhook refused'));
    expect(refusals.length).toBeGreaterThanOrEqual(9);
    for (const l of refusals) {
      expect(l).toMatch(/"reason":"/);
      expect(l).not.toContain('FAILED');
    }
  });

  it('acknowledges a redelivery without posting it twice', async () => {
    const t = await setup();
    const payload = statusPayload('n1', 'PAUSED');
    const first = await t.signed('/webhooks/service/n1', payload);
    const again = await t.signed('/webhooks/service/n1', payload);
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });
    await t.h.notifier.drain(2000);
    expect(t.poster.posts()).toHaveLength(1);
    expect(await t.h.notifier.store.countEvents()).toBe(1);
  });

  it('does not take two different events of one node in the same second for a redelivery', async () => {
    const t = await setup();
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000).toISOString().replace('.000Z', 'Z');
    const op = (operation: string) => ({
      eventType: 'OPERATION_COMPLETED',
      eventTimestamp: at,
      nodeId: 'n1',
      details: { nodeId: 'n1', operation },
    });
    expect((await t.signed('/webhooks/service/n1', op('backup'))).status).toBe(202);
    expect((await t.signed('/webhooks/service/n1', op('sync'))).status).toBe(202);
    // The same event again, even with its keys in another order, is still a redelivery.
    const reordered = { nodeId: 'n1', details: { operation: 'sync', nodeId: 'n1' }, eventTimestamp: at, eventType: 'OPERATION_COMPLETED' };
    expect((await t.signed('/webhooks/service/n1', reordered)).status).toBe(200);
    // Another node's event with the same type, time and details is its own event.
    expect(
      (await t.signed('/webhooks/service/n2', { ...op('sync'), nodeId: 'n2', details: { nodeId: 'n2', operation: 'sync' } })).status,
    ).toBe(202);
    expect(await t.h.notifier.store.countEvents()).toBe(3);
  });

  it('stores an unknown event type and shows it as a generic event', async () => {
    const t = await setup();
    const res = await t.signed('/webhooks/service', {
      eventType: 'BACKUP_COMPLETED',
      eventTimestamp: new Date(Date.now() - 60_000).toISOString(),
      nodeId: 'n2',
      details: { nodeId: 'n2', size: 1234 },
    });
    expect(res.status).toBe(202);
    const [post] = await waitFor(() => t.poster.posts().length > 0 && t.poster.posts());
    expect(textOf(post.message)).toContain('BACKUP_COMPLETED');
    expect(textOf(post.message)).toContain('bob');
    expect(textOf(post.message)).toContain('1234');
  });

  it('refetches a rotated key once, and at most once per interval for bad signatures', async () => {
    let now = 1_000_000;
    const t = await setup();
    const keys = new KeyCache({ fetchKey: () => t.hosting.webhookPublicKey(), refetchIntervalMs: 30_000, now: () => now });
    const old = t.key;
    const body = Buffer.from(JSON.stringify(statusPayload('n1', 'PAUSED')));
    expect(await keys.verify(body, Object.values(old.signers)[0](body))).toBe(true);
    expect(t.hosting.keyFetches).toBe(1);

    const rotated = makeKey('p256');
    t.hosting.key = { data: { publicKey: rotated.encodings['raw compressed base64'] } };
    now += 1_000; // the first failure refetches at once
    expect(await keys.verify(body, Object.values(rotated.signers)[0](body))).toBe(true);
    expect(t.hosting.keyFetches).toBe(2);

    // Forged requests right after: no refetch (rate-limited).
    for (let i = 0; i < 5; i++) expect(await keys.verify(body, 'AAAA' + i)).toBe(false);
    expect(t.hosting.keyFetches).toBe(2);
    // After the interval, one bad signature causes exactly one refetch.
    now += 31_000;
    expect(await keys.verify(body, 'AAAA')).toBe(false);
    expect(await keys.verify(body, 'BBBB')).toBe(false);
    expect(t.hosting.keyFetches).toBe(3);
  });

  it('answers 503 when the key cannot be fetched, so the service redelivers', async () => {
    const t = await setup();
    t.hosting.key = new Error('service down');
    const res = await t.signed('/webhooks/service', statusPayload('n1', 'PAUSED'));
    expect(res.status).toBe(503);
    expect(await t.refused('key_unavailable')).toBe(1);
    expect(await t.h.notifier.store.countEvents()).toBe(0);
  });

  it('does not fetch the key for every request while the key cannot be had (a flood gets 503, not a flood of fetches)', async () => {
    let now = 5_000_000;
    const t = await setup();
    t.hosting.key = 'not a key at all';
    const keys = new KeyCache({
      fetchKey: () => t.hosting.webhookPublicKey(),
      refetchIntervalMs: 60_000,
      failedFetchRetryMs: 5_000,
      now: () => now,
    });
    const body = Buffer.from(JSON.stringify(statusPayload('n1', 'PAUSED')));
    for (let i = 0; i < 50; i++) await expect(keys.verify(body, `forged-signature-${i}`)).rejects.toThrow(/not in a known format/);
    expect(t.hosting.keyFetches).toBe(1);
    // Once the retry time has passed, the next request fetches again, and a good key is used at once.
    t.hosting.key = t.key.encodings['JSON {publicKey: PEM}'];
    now += 5_000;
    expect(await keys.verify(body, Object.values(t.key.signers)[0](body))).toBe(true);
    expect(t.hosting.keyFetches).toBe(2);
  });

  it('learns a node created after the node list was cached (refresh on a miss)', async () => {
    const t = await setup();
    expect((await t.signed('/webhooks/service', statusPayload('n1', 'PAUSED'))).status).toBe(202);
    const before = t.hosting.listCalls;
    t.hosting.nodes.push(node('n3', 'carol'));
    expect((await t.signed('/webhooks/service', statusPayload('n3', 'STARTING'))).status).toBe(202);
    expect(t.hosting.listCalls).toBe(before + 1);
    // A body sent without a content type is still read raw and verified.
    const body = Buffer.from(JSON.stringify(statusPayload('n3', 'RUNNING')));
    const res = await fetch(`${t.rx.url}/webhooks/service/n3`, {
      method: 'POST',
      headers: { 'x-service-signature': t.signer(body) },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(202);
  });
});

describe.each(['ed25519', 'p256', 'secp256k1', 'rsa'] as Kind[])('signed deliveries with a %s key', (kind) => {
  it('accepts every signature encoding over HTTP with several key encodings', async () => {
    const enc = kind === 'ed25519' ? 'raw hex' : kind === 'rsa' ? 'JWK' : 'raw uncompressed hex';
    const t = await setup({ kind, keyEncoding: enc });
    let i = 0;
    for (const [name, signer] of Object.entries(t.key.signers)) {
      const body = Buffer.from(JSON.stringify(statusPayload('n1', ++i % 2 ? 'PAUSED' : 'STARTING')));
      const res = await t.send('/webhooks/service/n1', body, { 'x-service-signature': signer(body) });
      expect(res.status, name).toBe(202);
    }
    expect(await t.h.notifier.store.countEvents()).toBe(Object.keys(t.key.signers).length);
  });
});
