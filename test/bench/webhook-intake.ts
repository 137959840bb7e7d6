/**
 * Webhook intake: signed events per second accepted and durably stored by the bot,
 * against the bare verify-and-parse baseline; then the 2xx latency at 1,000 events/s.
 */
import { createPublicKey } from 'node:crypto';
import { startHarness } from '../support/harness.js';
import { startBaselineServer } from './baseline-webhook-server.js';
import { closedLoop, openLoop, type RequestSpec } from './load.js';
import type { BenchResult } from './types.js';

export async function webhookIntake(opts: { events: number; rate: number; seconds: number }): Promise<BenchResult> {
  const h = await startHarness({ emulator: { seed: 'demo' } });
  try {
    const nodes = (await h.app.services.hosting.listNodes()).map((n) => n.nodeId);
    const key = createPublicKey(h.emulator.publicKey.pem);
    const baseline = await startBaselineServer(key);
    let seq = 0;
    const make = (path: (nodeId: string) => string) => (): RequestSpec => {
      const i = seq++;
      const nodeId = nodes[i % nodes.length]!;
      const body = Buffer.from(
        JSON.stringify({
          eventType: 'NODE_STATUS_UPDATED',
          eventTimestamp: new Date(1_700_000_000_000 + i).toISOString(),
          details: { nodeId, status: i % 2 ? 'RUNNING' : 'STARTING' },
          nodeId,
        }),
      );
      return { path: path(nodeId), body, headers: { 'content-type': 'application/json', 'x-service-signature': h.emulator.sign(body) } };
    };
    // Warm both up (JIT, SQLite statements, key cache), then measure.
    await closedLoop(baseline.url, make(() => '/'), 300, 8);
    await closedLoop(h.url, make(() => '/webhooks/service'), 300, 8);
    const base = await closedLoop(baseline.url, make(() => '/'), opts.events, 16);
    const bot = await closedLoop(h.url, make(() => '/webhooks/service'), opts.events, 16);
    const paced = await openLoop(h.url, make((id) => `/webhooks/service/${id}`), opts.rate, opts.seconds);
    await baseline.close();
    const stored = h.app.db.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='notify_events'").pluck().get()
      ? (h.app.db.prepare('SELECT count(*) FROM notify_events').pluck().get() as number)
      : NaN;
    return {
      name: 'webhook intake',
      figures: {
        baseline_events_per_s: round(base.perSecond),
        bot_events_per_s: round(bot.perSecond),
        ratio_to_baseline: round(bot.perSecond / base.perSecond, 2),
        [`p50_ms_at_${opts.rate}_per_s`]: round(paced.p50Ms, 2),
        [`p99_ms_at_${opts.rate}_per_s`]: round(paced.p99Ms, 2),
        failed: bot.failed + paced.failed,
        events_stored: stored,
      },
      targets: [
        { what: 'ratio to baseline ≥ 0.8', met: bot.perSecond / base.perSecond >= 0.8 },
        { what: `p99 < 10 ms at ${opts.rate}/s`, met: paced.p99Ms < 10 },
        { what: 'no request failed', met: bot.failed + paced.failed === 0 },
      ],
    };
  } finally {
    await h.close();
  }
}

const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;
