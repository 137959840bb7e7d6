/**
 * The database locked by someone else: a webhook is not acknowledged (503 with
 * Retry-After, so the service redelivers), nothing half-stored, and once the lock is gone
 * the redelivery is accepted and posted exactly once.
 */
import { describe, it, expect, afterAll } from 'vitest';
import Database from 'better-sqlite3';
import { startHarness, type Harness } from '../support/harness.js';

describe('the database locked', () => {
  let h: Harness;
  afterAll(async () => h?.close());

  it('refuses the event with 503 while locked, then accepts the redelivery and posts it once', async () => {
    h = await startHarness({ emulator: { seed: 'demo' } });
    // The terminal watches every node: an accepted event gets exactly one outbox row for it.
    h.app.services.watches.add({ place: { platform: 'shell', channelId: 'terminal' }, target: 'all', actor: { platform: 'shell', userId: 'local' } });

    const node = (await h.app.services.hosting.listNodes()).find((n) => n.name === 'alice')!;
    const body = Buffer.from(JSON.stringify({ eventType: 'NODE_STATUS_UPDATED', eventTimestamp: '2026-11-22T03:00:00Z', details: { nodeId: node.nodeId, status: 'FAILED' }, nodeId: node.nodeId }));
    const deliver = () =>
      fetch(`${h.url}/webhooks/service`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) }, body: new Uint8Array(body) });

    const other = new Database(h.dbPath);
    other.exec('BEGIN IMMEDIATE'); // holds the write lock
    const refused = await deliver();
    other.exec('ROLLBACK');
    other.close();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ error: 'store_busy' });
    expect(h.app.db.prepare('SELECT count(*) FROM notify_events').pluck().get()).toBe(0);

    const accepted = await deliver();
    expect(accepted.status).toBe(202);
    const again = await deliver();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect(h.app.db.prepare('SELECT count(*) FROM notify_events').pluck().get()).toBe(1);
    expect(h.app.db.prepare('SELECT count(*) FROM notify_outbox').pluck().get()).toBe(1);
  });
});
