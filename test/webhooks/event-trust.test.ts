/**
 * Events the service signed but that must not be trusted as they are: stamped ahead of our
 * clock, older than the dedupe retention, nested too deep to store. Over the real receiver.
 */
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
  textOf,
  type Harness,
} from '../support/notify.js';
import { waitFor } from '../support/wait-for.js';
import { makeKey } from './keys.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(extra: Parameters<typeof makeNotifier>[0]['extra'] = {}) {
  const key = makeKey('ed25519');
  const hosting = fakeHosting([node('n1', 'alice')], key.encodings['JSON {publicKey: PEM}']);
  const poster = new RecordingPoster('slack');
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
  const h: Harness = makeNotifier({ posters: { slack: poster }, hosting, logger, extra });
  await h.notifier.watches.add({ place: slackPlace('C1'), target: 'all', actor: actor() });
  h.notifier.start();
  const keys = new KeyCache({ fetchKey: () => hosting.webhookPublicKey() });
  const rx = await startReceiver(h.notifier, { keys, nodes: createNodeDirectory({ hosting, minRefreshMs: 0 }) }, logger, h.metrics);
  cleanup.push(
    () => h.close(),
    () => rx.close(),
  );
  const signer = Object.values(key.signers)[0];
  const signedRaw = (body: Buffer) =>
    fetch(`${rx.url}/webhooks/service/n1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signer(body) },
      body: new Uint8Array(body),
    });
  const signed = (payload: unknown) => signedRaw(Buffer.from(JSON.stringify(payload)));
  const status = (s: string, at: Date | string, extraDetails: Record<string, unknown> = {}) => ({
    eventType: 'NODE_STATUS_UPDATED',
    eventTimestamp: typeof at === 'string' ? at : at.toISOString(),
    nodeId: 'n1',
    details: { nodeId: 'n1', status: s, ...extraDetails },
  });
  const counted = async (outcome: string, reason: string) =>
    (await h.metrics.webhooks.get()).values.find((v) => v.labels.outcome === outcome && v.labels.reason === reason)?.value ?? 0;
  return { h, poster, lines, signed, signedRaw, status, counted };
}

describe('an event stamped ahead of the clock', () => {
  for (const [what, aheadMs] of [
    ['5 s', 5_000],
    ['120 s', 120_000],
    ['years', 5 * 365 * 86_400_000],
  ] as const) {
    it(`does not hide a later FAILED when a RUNNING was stamped ${what} ahead: the incident opens`, async () => {
      const t = await setup();
      expect((await t.signed(t.status('RUNNING', new Date(Date.now() + aheadMs)))).status).toBe(202);
      await waitFor(() => t.poster.posts().length === 1, { timeout: 5000, what: 'the RUNNING post' });
      await new Promise((r) => setTimeout(r, 20));
      expect((await t.signed(t.status('FAILED', new Date()))).status).toBe(202);
      await waitFor(async () => (await t.h.notifier.store.incidents()).length === 1, { timeout: 5000, what: 'an incident' });
      const last = t.poster.posts().at(-1)!;
      expect(textOf(last.message)).toContain('FAILED');
      expect(textOf(last.message)).not.toContain('superseded');
    });
  }

  it('is flagged in the log and the metrics when beyond MAX_FUTURE_SKEW_S, and not when within it', async () => {
    const t = await setup({ maxFutureSkewMs: 60_000 });
    await t.signed(t.status('RUNNING', new Date(Date.now() + 5_000)));
    expect(await t.counted('flagged', 'future_timestamp')).toBe(0);
    await t.signed(t.status('PAUSED', new Date(Date.now() + 120_000)));
    expect(await t.counted('flagged', 'future_timestamp')).toBe(1);
    expect(t.lines.some((l) => l.includes('MAX_FUTURE_SKEW_S') && l.includes('"aheadS":12'))).toBe(true);
  });

  it('keeps a whole-second stamp in arrival order against a later whole-second event', async () => {
    const t = await setup();
    const wholeSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    await t.signed(t.status('RUNNING', wholeSecond(Date.now() + 30_000)));
    await waitFor(() => t.poster.posts().length === 1, { timeout: 5000, what: 'the RUNNING post' });
    await t.signed(t.status('FAILED', wholeSecond(Date.now())));
    await waitFor(async () => (await t.h.notifier.store.incidents()).length === 1, { timeout: 5000, what: 'an incident' });
  });
});

describe('freshness', () => {
  it('refuses a correctly signed FAILED dated 2001 with 400, logs and counts it, and opens no incident', async () => {
    const t = await setup();
    const res = await t.signed(t.status('FAILED', '2001-09-09T01:46:40Z'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'stale' });
    expect(await t.counted('refused', 'stale')).toBe(1);
    expect(t.lines.some((l) => l.includes('webhook refused') && l.includes('retention'))).toBe(true);
    expect(await t.h.notifier.store.countEvents()).toBe(0);
    expect(await t.h.notifier.store.incidents()).toHaveLength(0);
  });

  it('refuses a replay once its dedupe key could have been pruned, so it never posts twice', async () => {
    const retentionMs = 2_000;
    const t = await setup({ retentionMs });
    const payload = t.status('PAUSED', new Date());
    expect((await t.signed(payload)).status).toBe(202);
    await waitFor(() => t.poster.posts().length === 1, { timeout: 5000, what: 'the first post' });
    await new Promise((r) => setTimeout(r, retentionMs + 200));
    // The retention has passed: the stored event (and its key) may be pruned at any time now.
    await t.h.notifier.store.prune(Date.now() - retentionMs);
    const replay = await t.signed(payload);
    expect(replay.status).toBe(400);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.poster.posts()).toHaveLength(1);
  });

  it('keeps the dedupe key of an event stamped ahead until its own time is past the retention', async () => {
    const retentionMs = 2_000;
    const t = await setup({ retentionMs });
    const payload = t.status('PAUSED', new Date(Date.now() + 3_600_000));
    expect((await t.signed(payload)).status).toBe(202);
    await waitFor(() => t.poster.posts().length === 1, { timeout: 5000, what: 'the first post' });
    await new Promise((r) => setTimeout(r, retentionMs + 200));
    await t.h.notifier.store.prune(Date.now() - retentionMs);
    const replay = await t.signed(payload);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ duplicate: true });
    expect(t.poster.posts()).toHaveLength(1);
  });
});

describe('deeply nested JSON', () => {
  it('refuses 10,000 levels of nesting in details with 400, never stored, and the receiver keeps working', async () => {
    const t = await setup();
    const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    const body = Buffer.from(
      `{"eventType":"NODE_STATUS_UPDATED","eventTimestamp":"${new Date().toISOString()}","nodeId":"n1","details":{"nodeId":"n1","status":"FAILED","x":${deep}}}`,
    );
    const res = await t.signedRaw(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'too_deep' });
    expect(await t.h.notifier.store.countEvents()).toBe(0);
    expect((await t.signed(t.status('PAUSED', new Date()))).status).toBe(202);
  });

  it('accepts nesting up to 64 levels', async () => {
    const t = await setup();
    const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });
    // The body itself is level 1 and details level 2.
    expect((await t.signed(t.status('PAUSED', new Date(), { x: nest(62) }))).status).toBe(202);
    expect((await t.signed(t.status('RUNNING', new Date(), { x: nest(63) }))).status).toBe(400);
  });

  it('counts only the brackets that nest: hundreds inside strings are not depth', async () => {
    const t = await setup();
    // More opening brackets than the limit, nearly all in strings: the exact scan runs and finds depth 3 (body, details, y).
    expect((await t.signed(t.status('PAUSED', new Date(), { x: '{['.repeat(200), y: ['[{"'] }))).status).toBe(202);
    expect(await t.h.notifier.store.countEvents()).toBe(1);
  });
});
