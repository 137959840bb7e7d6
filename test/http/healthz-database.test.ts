/**
 * /healthz and a database that stops answering: a real PostgreSQL server reached through a
 * loopback TCP relay that the test cuts (every connection dropped, new ones closed at once) and
 * restores. Not ready (503, database: unreachable) while cut, ready again after; the database is
 * asked at most about once a second however often the probes come.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { createHttpServer, cachedCheck } from '../../src/http/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { openPostgres, type AnyDb } from '../../src/store/index.js';
import { newPostgresUrl } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';
import { tcpRelay as relay } from '../support/tcp-relay.js';

describe('/healthz: ready only while the database answers', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  });

  it('503 with database: unreachable while the connection is cut, 200 again once it answers; pings cached ~1 s', async () => {
    const url = new URL(await newPostgresUrl('healthz'));
    const r = await relay(Number(url.port));
    closers.push(r.close);
    url.port = String(r.port);
    const db: AnyDb = await openPostgres(url.toString(), { onError: () => undefined });
    closers.push(() => db.close());
    let pings = 0;
    const answers = cachedCheck(() => (pings++, db.ping()), { ttlMs: 1_000, timeoutMs: 2_000 });
    const http = await createHttpServer({
      logger: silentLogger,
      metrics: createMetrics({ defaults: false }),
      routes: [],
      health: async () => {
        const database = (await answers()) ? 'ok' : 'unreachable';
        return { ok: database === 'ok', checks: { database } };
      },
    });
    closers.push(() => http.close());
    const base = await http.listen({ port: 0, host: '127.0.0.1' });
    const probe = async () => {
      const res = await fetch(`${base}/healthz`);
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };

    expect(await probe()).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    // A burst of probes within the second: served from the one answer.
    const before = pings;
    await Promise.all(Array.from({ length: 20 }, probe));
    expect(pings - before).toBeLessThanOrEqual(1);

    r.cut();
    const down = await waitFor(
      async () => {
        const p = await probe();
        return p.status === 503 && p;
      },
      { timeout: 6_000, interval: 100, what: '/healthz to report the database unreachable' },
    );
    expect(down.body).toEqual({ status: 'degraded', database: 'unreachable' });

    r.restore();
    await waitFor(async () => (await probe()).status === 200, { timeout: 6_000, interval: 100, what: '/healthz to be ready again' });
    expect((await probe()).body.database).toBe('ok');
  });
});

describe('cachedCheck', () => {
  it('shares one check among concurrent callers, counts a failure or a slow check as not ready, and asks again after ttl', async () => {
    let t = 0;
    let calls = 0;
    let answer: () => Promise<boolean> = async () => true;
    const check = cachedCheck(() => (calls++, answer()), { ttlMs: 1_000, timeoutMs: 50, now: () => t });
    expect(await Promise.all([check(), check(), check()])).toEqual([true, true, true]);
    expect(calls).toBe(1);
    t = 999;
    expect(await check()).toBe(true);
    expect(calls).toBe(1);
    t = 1_000;
    answer = () => Promise.reject(new Error('connection refused'));
    expect(await check()).toBe(false);
    t = 2_000;
    answer = () => new Promise((r) => setTimeout(() => r(true), 200));
    expect(await check()).toBe(false); // too slow for a probe
    await new Promise((r) => setTimeout(r, 250));
    expect(await check()).toBe(true); // its late answer was kept
  });
});
