import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

/** Checks the Prometheus text exposition format line by line. */
function parsePrometheus(text: string): Map<string, { type?: string; samples: number }> {
  const families = new Map<string, { type?: string; samples: number }>();
  const sample =
    /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"(,\s*)?)*\})?\s+(-?[0-9.eE+-]+|NaN|[+-]Inf)(\s+-?\d+)?$/;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = line.match(/^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .*/);
    const type = line.match(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/);
    if (help) continue;
    if (type) {
      families.set(type[1], { type: type[2], samples: 0 });
      continue;
    }
    const m = line.match(sample);
    if (!m) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    const base = m[1].replace(/_(bucket|sum|count|total|created)$/, '');
    const fam = families.get(m[1]) ?? families.get(base) ?? families.get(`${base}_total`);
    if (fam) fam.samples++;
  }
  return families;
}

describe('/metrics and /healthz', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ processMetrics: true });
  });
  afterAll(async () => h.close());

  it('/healthz says the bot is up', async () => {
    const r = await fetch(`${h.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: 'ok', database: 'ok' });
  });

  it("/metrics parses as Prometheus text and has the bot's families", async () => {
    // Make a command and a refused webhook happen, so their counters have samples.
    await h.app.dispatcher.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'local' },
      place: { platform: 'shell', channelId: 't' },
      text: 'node list',
    });
    await fetch(`${h.url}/webhooks/service`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const r = await fetch(`${h.url}/metrics`);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await r.text();
    const families = parsePrometheus(text);
    for (const name of [
      'rln_chatops_commands_total',
      'rln_chatops_webhooks_total',
      'rln_chatops_outbox_depth',
      'rln_chatops_delivery_latency_seconds',
      'rln_chatops_report_runs_total',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    expect(families.get('rln_chatops_commands_total')!.samples).toBeGreaterThan(0);
    expect(families.get('rln_chatops_webhooks_total')!.samples).toBeGreaterThan(0);
    // Process metrics under their standard names (issue 6, 10), and the refusal counted with its reason.
    expect(families.has('process_resident_memory_bytes')).toBe(true);
    expect(families.has('process_cpu_seconds_total')).toBe(true);
    expect(text).toMatch(/rln_chatops_webhooks_total\{outcome="refused",reason="missing_signature"\} 1/);
    expect(text).toMatch(/rln_chatops_commands_total\{command="node list",outcome="ok"\} 1/);
  });
});
