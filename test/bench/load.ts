/**
 * A small loopback load generator: keep-alive HTTP requests, closed loop (fixed
 * concurrency, as fast as the server answers) or open loop (a fixed rate), recording
 * each request's latency. Every loop is bounded in count and time.
 */
import http from 'node:http';

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  /** Failed requests by HTTP status (or `error` when no answer came), e.g. `{ "503": 12 }`. */
  failures: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The p99 of each fifth of the answers, in the order they came: a run's start apart from the rest. */
  p99ByFifthMs: number[];
}

export interface RequestSpec {
  path: string;
  body: Buffer;
  headers: Record<string, string>;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summarise(latencies: number[], failures: Record<string, number>, seconds: number): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const failed = Object.values(failures).reduce((a, n) => a + n, 0);
  return {
    sent: latencies.length + failed,
    ok: latencies.length,
    failed,
    failures,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    p99ByFifthMs: [0, 1, 2, 3, 4].map((k) =>
      Number(
        percentile(
          latencies.slice((k * latencies.length) / 5, ((k + 1) * latencies.length) / 5).sort((a, b) => a - b),
          99,
        ).toFixed(1),
      ),
    ),
  };
}

/** A failed request by its error code (ECONNRESET: a keep-alive socket closed as it was reused...), not just "error". */
function errorName(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return `error ${typeof e?.code === 'string' ? e.code : typeof e?.message === 'string' ? e.message : String(err)}`;
}

function send(agent: http.Agent, base: URL, spec: RequestSpec): Promise<{ status: number; ms: number }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: spec.path,
        headers: { 'content-length': spec.body.length, ...spec.headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/**
 * One keep-alive agent per server. Given several URLs (replicas behind a load balancer), the
 * i-th request goes to `urls[i % n]`: round robin, as a balancer spreads them.
 */
function targets(
  url: string | string[],
  maxSockets: number,
): { pick: (i: number) => { base: URL; agent: http.Agent }; destroy: () => void } {
  const list = (Array.isArray(url) ? url : [url]).map((u) => ({
    base: new URL(u),
    agent: new http.Agent({ keepAlive: true, maxSockets }),
  }));
  if (!list.length) throw new Error('no URL to send to');
  return { pick: (i) => list[i % list.length], destroy: () => list.forEach((t) => t.agent.destroy()) };
}

/** As fast as the servers answer, `concurrency` requests in flight, `count` in all. */
export async function closedLoop(
  url: string | string[],
  make: (i: number) => RequestSpec,
  count: number,
  concurrency = 16,
): Promise<LoadResult> {
  const to = targets(url, concurrency);
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  const fail = (why: string | number) => void (failures[why] = (failures[why] ?? 0) + 1);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        try {
          const { agent, base } = to.pick(i);
          const r = await send(agent, base, make(i));
          if (r.status >= 200 && r.status < 300) latencies.push(r.ms);
          else fail(r.status);
        } catch (err) {
          fail(errorName(err));
        }
      }
    }),
  );
  to.destroy();
  return summarise(latencies, failures, (performance.now() - t0) / 1000);
}

/** `rate` requests per second for `seconds`, whatever the answers (open loop). */
export async function openLoop(
  url: string | string[],
  make: (i: number) => RequestSpec,
  rate: number,
  seconds: number,
): Promise<LoadResult> {
  const to = targets(url, 64);
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  const fail = (why: string | number) => void (failures[why] = (failures[why] ?? 0) + 1);
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const { agent, base } = to.pick(i);
    inflight.push(
      send(agent, base, make(i)).then(
        (r) => void (r.status >= 200 && r.status < 300 ? latencies.push(r.ms) : fail(r.status)),
        (err: unknown) => fail(errorName(err)),
      ),
    );
  }
  await Promise.all(inflight);
  to.destroy();
  return summarise(latencies, failures, (performance.now() - t0) / 1000);
}
