/**
 * Admission before the body is read, by count and by bytes: a burst of small signed events is
 * let in far past the old 32-request cap, while large bodies are still held to the same memory
 * budget (32 of the largest size) and the rest answered 503 with Retry-After.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { request } from 'node:http';
import { admitBodies } from '../../src/http/index.js';
import { waitFor } from '../support/wait-for.js';

const LIMIT = 64 * 1024;

describe('admitting bodies by count and by bytes', () => {
  const app = Fastify();
  let release!: () => void;
  let held = new Promise<void>((r) => (release = r));
  afterAll(() => app.close());

  /** Starts a POST with a declared length; resolves with its status once answered. */
  const post = (base: string, length: number) =>
    new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => {
      const req = request(
        `${base}/in`,
        { method: 'POST', headers: { 'content-length': String(length), 'x-sig': 's', 'content-type': 'application/octet-stream' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
        },
      );
      req.on('error', reject);
      req.end(Buffer.alloc(length));
    });

  it('lets 200 small events in at once, and holds large ones to 32 × the limit in bytes', async () => {
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMIT }, (_r, body, done) => done(null, body));
    app.addHook(
      'onRequest',
      admitBodies({
        bodyLimit: LIMIT,
        maxInFlight: 2_048,
        maxBytesInFlight: 32 * LIMIT,
        signed: (req) => typeof req.headers['x-sig'] === 'string',
        refuse: (_req, reply, code, reason) => reply.code(code).send({ error: reason }),
      }),
    );
    let inside = 0;
    app.post('/in', async () => {
      inside++;
      await held;
      return { ok: true };
    });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });

    const small = Array.from({ length: 200 }, () => post(base, 300));
    // All in at once (the old cap was 32): every handler is entered while none has answered.
    await waitFor(() => inside === 200, { what: () => `200 handlers entered, ${inside} so far` });
    release();
    expect((await Promise.all(small)).every((r) => r.status === 200)).toBe(true);

    held = new Promise<void>((r) => (release = r));
    inside = 0;
    let answered = 0;
    const large = Array.from({ length: 40 }, () => post(base, LIMIT).finally(() => answered++));
    // Held ones never answer before the release, so once 32 are inside and the other 8 answered,
    // every request has been admitted or refused.
    await waitFor(() => inside === 32 && answered === 8, { what: () => `32 inside and 8 answered: ${inside} and ${answered}` });
    expect(inside).toBe(32);
    release();
    const answers = await Promise.all(large);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(32);
    const shed = answers.filter((r) => r.status === 503);
    expect(shed).toHaveLength(8);
    expect(shed.every((r) => r.retryAfter === '1')).toBe(true);
  });

  it('gives a slot back when its response has finished, and when its client leaves mid-body', async () => {
    const one = Fastify();
    one.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: LIMIT }, (_r, body, done) => done(null, body));
    one.addHook(
      'onRequest',
      admitBodies({
        bodyLimit: LIMIT,
        maxInFlight: 1,
        signed: () => true,
        refuse: (_req, reply, code, reason) => reply.code(code).send({ error: reason }),
      }),
    );
    one.post('/in', async () => ({ ok: true }));
    const base = await one.listen({ port: 0, host: '127.0.0.1' });
    try {
      // One slot: each of these gets in only if the one before gave its slot back.
      for (let i = 0; i < 5; i++) expect((await post(base, 300)).status).toBe(200);
      // A client that declares 1,000 bytes, sends 10 and goes away.
      await new Promise<void>((resolve) => {
        const req = request(`${base}/in`, {
          method: 'POST',
          headers: { 'content-length': '1000', 'content-type': 'application/octet-stream' },
        });
        req.on('error', () => {});
        req.write(Buffer.alloc(10), () => setTimeout(() => (req.destroy(), resolve()), 100));
      });
      await new Promise((r) => setTimeout(r, 100));
      expect((await post(base, 300)).status).toBe(200);
    } finally {
      await one.close();
    }
  });
});
