// The request path's synchronous fast paths (a cached key, a cached node list) and the refusals
// of its asynchronous steps (the node list, the store), each with its status, reason and metric.
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHttpServer } from '../../src/http/index.js';
import { createMetrics } from '../../src/metrics.js';
import { createHash } from 'node:crypto';
import {
  createNodeDirectory,
  dedupeKeyOf,
  KeyCache,
  webhookRoutes,
  type IngestResult,
  type IngestWith,
  type NodeDirectory,
  type ServiceEvent,
} from '../../src/webhooks/index.js';
import { silentLogger } from '../../src/log.js';
import { fakeHosting, node, statusPayload, type FakeHosting } from '../support/notify.js';
import { makeKey } from './keys.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe('dedupeKeyOf', () => {
  it('keeps the keys already stored: SHA-256 hex of the same text, with and without a timestamp', () => {
    const body = Buffer.from('{"nodeId":"n1","eventType":"NODE_STATUS_UPDATED"}');
    const sha = (...parts: Array<string | Buffer>) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex');
    const f = {
      nodeId: 'n1',
      eventType: 'NODE_STATUS_UPDATED',
      status: 'RUNNING',
      eventTimestamp: '2026-01-02T03:04:05Z',
      details: { status: 'RUNNING', nodeId: 'n1', n: [1, { b: 2, a: 1 }] },
    };
    expect(dedupeKeyOf(body, f)).toBe(
      sha(
        [
          'v2',
          'n1',
          'NODE_STATUS_UPDATED',
          'RUNNING',
          '2026-01-02T03:04:05Z',
          '{"n":[1,{"a":1,"b":2}],"nodeId":"n1","status":"RUNNING"}',
        ].join('\u0000'),
      ),
    );
    expect(dedupeKeyOf(body, { ...f, status: undefined, details: undefined })).toBe(
      sha(['v2', 'n1', 'NODE_STATUS_UPDATED', '', '2026-01-02T03:04:05Z', '{}'].join('\u0000')),
    );
    expect(dedupeKeyOf(body, { nodeId: 'n1', eventType: 'NODE_STATUS_UPDATED' })).toBe(sha('body\u0000', body));
  });
});

describe('KeyCache.verify', () => {
  it('answers a plain boolean once the key is cached, and a promise only when it must fetch', async () => {
    const key = makeKey('ed25519');
    const hosting = fakeHosting([], key.encodings['JSON {publicKey: PEM}']);
    let now = 1_000_000;
    const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey(), refetchIntervalMs: 60_000, now: () => now });
    const body = Buffer.from('{"nodeId":"n1"}');
    const sign = Object.values(key.signers)[0];

    const first = keys.verify(body, sign(body));
    expect(first).toBeInstanceOf(Promise); // the first use fetches the key
    expect(await first).toBe(true);
    expect(keys.verify(body, sign(body))).toBe(true);
    // A bad signature after start refetches once (a key rotated while the bot was down): a promise.
    const refetch = keys.verify(body, 'AAAAAAAAAAAA');
    expect(refetch).toBeInstanceOf(Promise);
    expect(await refetch).toBe(false);
    // Within the refetch interval a bad signature is decided by the cached key at once.
    expect(keys.verify(body, 'BBBBBBBBBBBB')).toBe(false);
    expect(hosting.keyFetches).toBe(2);
    now += 60_000;
    expect(keys.verify(body, 'CCCCCCCCCCCC')).toBeInstanceOf(Promise);
  });
});

describe('NodeDirectory', () => {
  /** A hosting fake whose listNodes answers only when the test lets it (`release`), or fails (`fail`). */
  function gatedHosting() {
    const hosting = fakeHosting([node('n1', 'alice')], undefined);
    const list = hosting.listNodes.bind(hosting);
    const gate = { waiting: 0, release: () => undefined as void, fail: (_e: Error) => undefined as void };
    let gated = false;
    hosting.listNodes = () => {
      if (!gated) return list();
      gate.waiting++;
      return new Promise((resolve, reject) => {
        gate.release = () => void list().then(resolve);
        gate.fail = reject;
      });
    };
    return { hosting, gate, close: (on: boolean) => void (gated = on) };
  }

  it('gives a node of the list it holds without waiting, and leaves unknown ones to lookup', async () => {
    const hosting = fakeHosting([node('n1', 'alice')], undefined);
    const nodes = createNodeDirectory({ hosting, ttlMs: 30_000, now: () => 1_000_000 });
    expect(nodes.cached('n1')).toBeUndefined(); // no list yet: lookup fetches it
    expect(hosting.listCalls).toBe(0);
    expect((await nodes.lookup('n1'))?.name).toBe('alice');
    expect(nodes.cached('n1')?.name).toBe('alice');
    expect(nodes.cached('n9')).toBeUndefined();
    expect(hosting.listCalls).toBe(1);
  });

  it('answers from a stale list while it refreshes it in the background, then from the new list', async () => {
    const { hosting, gate, close } = gatedHosting();
    let now = 1_000_000;
    const nodes = createNodeDirectory({ hosting, ttlMs: 30_000, now: () => now });
    await nodes.lookup('n1');
    close(true);
    now += 30_000;
    hosting.nodes = [node('n1', 'alice-renamed')];
    // Past its TTL: still answered at once, from the list held, while one refresh runs.
    expect(nodes.cached('n1')?.name).toBe('alice');
    expect(await nodes.lookup('n1')).toMatchObject({ name: 'alice' });
    expect(nodes.cached('n1')?.name).toBe('alice');
    expect(gate.waiting).toBe(1);
    expect(hosting.listCalls).toBe(1); // the gated call has not reached the list yet
    gate.release();
    await vi.waitFor(() => expect(nodes.cached('n1')?.name).toBe('alice-renamed'));
    expect(gate.waiting).toBe(1);
  });

  it('keeps a list whose refresh fails for maxStaleMs past its TTL, reports the failure once, then waits for a fresh one', async () => {
    const { hosting, gate, close } = gatedHosting();
    let now = 1_000_000;
    const failures: unknown[] = [];
    const nodes = createNodeDirectory({
      hosting,
      ttlMs: 30_000,
      maxStaleMs: 60_000,
      minRefreshMs: 2_000,
      now: () => now,
      onRefreshFailed: (err) => failures.push(err),
    });
    await nodes.lookup('n1');
    close(true);
    now += 30_000;
    expect(nodes.cached('n1')?.name).toBe('alice');
    gate.fail(new Error('service down'));
    await vi.waitFor(() => expect(failures).toHaveLength(1));
    // Tried again at most every minRefreshMs, and a failure that goes on is not reported again.
    expect(nodes.cached('n1')?.name).toBe('alice');
    expect(gate.waiting).toBe(1);
    now += 2_000;
    expect(nodes.cached('n1')?.name).toBe('alice');
    expect(gate.waiting).toBe(2);
    gate.fail(new Error('still down'));
    await new Promise((r) => setImmediate(r)); // the failure settles (in microtasks)
    // Past ttl + maxStale the list no longer answers: lookup waits for a fresh one and throws when it cannot be had.
    now += 58_000;
    expect(nodes.cached('n1')).toBeUndefined();
    const waited = nodes.lookup('n1');
    await vi.waitFor(() => expect(gate.waiting).toBe(3));
    gate.fail(new Error('down for good'));
    await expect(waited).rejects.toThrow('down for good');
    expect(failures).toHaveLength(1);
  });

  it('waits for a refresh for a node the list does not hold (a new node), at most once per minRefreshMs', async () => {
    const hosting = fakeHosting([node('n1', 'alice')], undefined);
    let now = 1_000_000;
    const nodes = createNodeDirectory({ hosting, ttlMs: 30_000, minRefreshMs: 2_000, now: () => now });
    await nodes.lookup('n1');
    hosting.nodes.push(node('n2', 'bob'));
    now += 2_000;
    expect(nodes.cached('n2')).toBeUndefined();
    expect((await nodes.lookup('n2'))?.name).toBe('bob');
    expect(await nodes.lookup('n3')).toBeUndefined(); // within minRefreshMs: no second fetch
    expect(hosting.listCalls).toBe(2);
  });
});

describe('the webhook route around its asynchronous steps', () => {
  async function setup(
    ingest: (e: ServiceEvent & { nodeName?: string }) => IngestResult | Promise<IngestResult>,
    listNodes?: () => Promise<never>,
    ingestWith?: IngestWith,
    directory: (hosting: FakeHosting) => NodeDirectory = (hosting) => createNodeDirectory({ hosting, minRefreshMs: 0 }),
  ) {
    const key = makeKey('ed25519');
    const hosting = fakeHosting([node('n1', 'alice')], key.encodings['JSON {publicKey: PEM}']);
    if (listNodes) hosting.listNodes = listNodes;
    const metrics = createMetrics({ defaults: false });
    const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey() });
    const nodes = directory(hosting);
    const app = await createHttpServer({
      logger: silentLogger,
      metrics,
      routes: [webhookRoutes({ keys, nodes, ingest, ingestWith, logger: silentLogger, metrics })],
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanup.push(() => app.close());
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const sign = Object.values(key.signers)[0];
    const send = (payload: unknown, signal?: AbortSignal) => {
      const body = Buffer.from(JSON.stringify(payload));
      return fetch(`${url}/webhooks/service/n1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
        body: new Uint8Array(body),
        signal,
      });
    };
    const counted = async (outcome: string, reason: string) =>
      (await metrics.webhooks.get()).values.find((v) => v.labels.outcome === outcome && v.labels.reason === reason)?.value ?? 0;
    return { send, counted };
  }

  it('hands the event with its node name to a synchronous or an asynchronous store, and answers after it', async () => {
    const seen: Array<ServiceEvent & { nodeName?: string }> = [];
    let n = 0;
    const t = await setup((e) => {
      seen.push(e);
      return ++n === 2
        ? Promise.resolve({ duplicate: true })
        : n === 3
          ? Promise.resolve({ duplicate: false, eventId: 7 })
          : { duplicate: false, eventId: 5 };
    });
    const first = await t.send(statusPayload('n1', 'PAUSED'));
    expect(first.status).toBe(202);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await first.json()).toEqual({ ok: true, eventId: 5 });
    const second = await t.send(statusPayload('n1', 'RUNNING'));
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ ok: true, duplicate: true });
    const third = await t.send(statusPayload('n1', 'STARTING'));
    expect(third.status).toBe(202);
    expect(await third.json()).toEqual({ ok: true, eventId: 7 });
    expect(seen.map((e) => [e.nodeId, e.nodeName, e.status])).toEqual([
      ['n1', 'alice', 'PAUSED'],
      ['n1', 'alice', 'RUNNING'],
      ['n1', 'alice', 'STARTING'],
    ]);
    expect(await t.counted('accepted', 'ok')).toBe(2);
    expect(await t.counted('duplicate', 'redelivery')).toBe(1);
  });

  it('answers 503 store_failed with Retry-After when the store rejects or throws, and counts it', async () => {
    let calls = 0;
    const t = await setup(() => {
      if (++calls === 1) throw new Error('disk on fire');
      return Promise.reject(new Error('constraint'));
    });
    for (let i = 0; i < 2; i++) {
      const res = await t.send(statusPayload('n1', 'PAUSED'));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ error: 'store_failed' });
    }
    expect(await t.counted('refused', 'store_failed')).toBe(2);
  });

  it('with ingestWith, stores through it instead of ingest and answers only when it calls back: stored, a duplicate, busy or failed', async () => {
    const calls: Array<{ status?: string; nodeName?: string; done: (n: number) => void }> = [];
    const t = await setup(
      () => {
        throw new Error('ingest must not be called when ingestWith is given');
      },
      undefined,
      (event, onStored, onError) => {
        // Called back later (as after a commit), each in its own way.
        const done = (n: number) => {
          if (n === 0) onStored({ duplicate: false, eventId: 9 });
          else if (n === 1) onStored({ duplicate: true });
          else if (n === 2) onError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
          else onError(new Error('constraint'));
        };
        calls.push({ status: event.status, nodeName: event.nodeName, done });
      },
    );
    const answers: Array<Promise<Response>> = [];
    for (const [i, status] of ['PAUSED', 'RUNNING', 'STARTING', 'FAILED'].entries()) {
      const answer = t.send(statusPayload('n1', status));
      answers.push(answer);
      await expect.poll(() => calls.length).toBe(i + 1);
      // Not answered before the store calls back.
      expect(await Promise.race([answer.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 50))])).toBe('waiting');
      calls[i].done(i);
    }
    const [stored, duplicate, busy, failed] = await Promise.all(answers);
    expect([stored.status, await stored.json()]).toEqual([202, { ok: true, eventId: 9 }]);
    expect([duplicate.status, await duplicate.json()]).toEqual([200, { ok: true, duplicate: true }]);
    expect([busy.status, busy.headers.get('retry-after'), (await busy.json()).error]).toEqual([503, '5', 'store_busy']);
    expect([failed.status, failed.headers.get('retry-after'), (await failed.json()).error]).toEqual([503, '5', 'store_failed']);
    expect(calls.map((c) => [c.status, c.nodeName])).toEqual([
      ['PAUSED', 'alice'],
      ['RUNNING', 'alice'],
      ['STARTING', 'alice'],
      ['FAILED', 'alice'],
    ]);
    expect(await t.counted('accepted', 'ok')).toBe(1);
    expect(await t.counted('duplicate', 'redelivery')).toBe(1);
    expect(await t.counted('refused', 'store_busy')).toBe(1);
    expect(await t.counted('refused', 'store_failed')).toBe(1);
  });

  it('answers 503 store_busy when the store is locked (the error handler), and 500 for an unexpected failure after it', async () => {
    let calls = 0;
    const t = await setup(() => {
      if (++calls === 1) return Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
      return Promise.resolve(null as unknown as IngestResult); // a broken store result: reading it throws
    });
    const busy = await t.send(statusPayload('n1', 'PAUSED'));
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(await busy.json()).toMatchObject({ error: 'store_busy' });
    expect(await t.counted('refused', 'store_busy')).toBe(1);
    const broken = await t.send(statusPayload('n1', 'RUNNING'));
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: 'internal' });
    expect(await t.counted('error', 'internal')).toBe(1);
  });

  it('answers an event of a known node while the stale node list is being fetched again, however long that takes', async () => {
    let now = 1_000_000;
    let listing: Promise<never> | undefined;
    let gated = false;
    const t = await setup(
      () => ({ duplicate: false, eventId: 7 }),
      undefined,
      undefined,
      (hosting) => {
        const list = hosting.listNodes.bind(hosting);
        hosting.listNodes = () => (gated ? (listing ??= new Promise<never>(() => undefined)) : list());
        return createNodeDirectory({ hosting, ttlMs: 30_000, now: () => now });
      },
    );
    expect((await t.send(statusPayload('n1', 'PAUSED'))).status).toBe(202);
    gated = true; // from now on the service never answers the list
    now += 60_000;
    // (A bound for failing, not a timing: a local answer held 10 s waited for the list, which never comes.)
    const res = await t.send(statusPayload('n1', 'RUNNING'), AbortSignal.timeout(10_000)).catch((err: Error) => {
      throw new Error(`the event was not answered while the node list was being fetched (${err.name})`);
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ ok: true, eventId: 7 });
    expect(listing).toBeDefined(); // the refresh was asked for, and is still running
  });

  it('answers 503 node_lookup_failed when the node list cannot be fetched, and counts it', async () => {
    const t = await setup(
      () => ({ duplicate: false, eventId: 1 }),
      () => Promise.reject(new Error('service down')),
    );
    const res = await t.send(statusPayload('n1', 'PAUSED'));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'node_lookup_failed' });
    expect(await t.counted('refused', 'node_lookup_failed')).toBe(1);
  });
});
