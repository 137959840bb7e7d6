/**
 * Command acknowledgement while the service takes 5 s to answer: Slack HTTP mode, signed
 * slash commands; the ack latency (what Slack's 3 s limit is about) and whether every
 * final answer still arrives. The baseline is the same commands against a fast service.
 */
import { startHarness } from '../support/harness.js';
import { startFakeSlack, postSigned, slashCommandPayload } from '../fakes/slack/index.js';
import { percentile } from './load.js';
import type { BenchResult } from './types.js';

const SECRET = 'bench-signing-secret';

async function round(serviceLatencyMs: number, commands: number) {
  const slack = await startFakeSlack();
  const h = await startHarness({
    env: { SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: slack.apiUrl },
    emulator: { seed: 'demo' },
  });
  try {
    h.emulator.faults.latencyMs = serviceLatencyMs;
    const acks: number[] = [];
    const urls: string[] = [];
    await Promise.all(
      Array.from({ length: commands }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 50)); // 20 commands/s
        const responseUrl = slack.responseUrl();
        urls.push(responseUrl);
        const form = slashCommandPayload({ user: { id: `U${i}`, name: `user${i}` }, text: 'node list', responseUrl, teamId: slack.teamId });
        const t0 = performance.now();
        const res = await postSigned(`${h.url}/slack/events`, SECRET, form);
        acks.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`ack was ${res.status}`);
      }),
    );
    // Every final answer arrives (after the service's delay).
    const deadline = performance.now() + serviceLatencyMs * 3 + 10_000;
    let answered = 0;
    while (performance.now() < deadline) {
      answered = urls.filter((u) => slack.respondsTo(u).length > 0).length;
      if (answered === commands) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sorted = acks.sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), answered };
  } finally {
    await h.close();
    await slack.close();
  }
}

export async function commandAck(opts: { commands: number; serviceLatencyMs: number }): Promise<BenchResult> {
  const fast = await round(0, opts.commands);
  const slow = await round(opts.serviceLatencyMs, opts.commands);
  const r2 = (n: number) => Math.round(n * 100) / 100;
  return {
    name: 'command ack while the service is slow',
    figures: {
      commands: opts.commands,
      service_latency_ms: opts.serviceLatencyMs,
      baseline_ack_p99_ms_fast_service: r2(fast.p99),
      ack_p50_ms: r2(slow.p50),
      ack_p99_ms: r2(slow.p99),
      ratio_to_baseline: r2(slow.p99 / fast.p99),
      final_answers_delivered: `${slow.answered}/${opts.commands}`,
    },
    targets: [
      { what: 'p99 ack < 100 ms', met: slow.p99 < 100 },
      { what: 'every final answer delivered', met: slow.answered === opts.commands },
    ],
  };
}
