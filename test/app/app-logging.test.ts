/**
 * Each room binds its own `room` to the logger it is given, once: the notifier ("notify") and
 * the webhook routes under it ("webhooks") must not inherit a room app.ts bound already.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/log.js';

const lines: string[] = [];
let h: Harness;

beforeAll(async () => {
  const out = new PassThrough();
  out.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
  h = await startHarness({ logger: createLogger({ level: 'warn', destination: out }) });
});
afterAll(async () => h?.close());

describe('log rooms', () => {
  it('a refused webhook is logged with room "webhooks" only', async () => {
    const res = await fetch(`${h.url}/webhooks/service/no-such-node`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    await new Promise((r) => setImmediate(r));
    const line = lines.find((l) => l.includes('webhook refused'));
    expect(line).toBeDefined();
    expect(line!.match(/"room":"[^"]*"/g)).toEqual(['"room":"webhooks"']);
  });
});
