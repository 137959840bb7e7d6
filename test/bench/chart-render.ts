/**
 * What a chart costs a report: the same balance report of one node (a demo node of the emulator,
 * in its own process) made without a chart and with one, alternately, in the same run; the
 * time of each, the ratio, and the memory the chart adds (heap and RSS growth while drawing,
 * and the one-time cost of loading the charting libraries on the first chart).
 */
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { createReports } from '../../src/reports/index.js';
import { openDatabase } from '../../src/store/index.js';
import { silentLogger } from '../../src/log.js';
import type { Services } from '../../commands/services.js';
import { startEmulatorProcess } from './emulator-process.js';
import type { BenchResult } from './types.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

export async function chartRender(opts: { runs: number }): Promise<BenchResult> {
  const emu = await startEmulatorProcess(['--seed', 'demo', '--demo-password', 'bench-password']);
  try {
    const hosting = createHostingClient({ baseUrl: emu.url, token: emu.token, timeoutMs: 30_000 });
    const api = (n: HostedNode) => createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: emu.nodeApiToken } });
    const services = { hosting, nodeApi: api, now: () => Date.now() } as unknown as Services;
    let clock = Date.now() - 6 * 86_400_000;
    // Each report an hour after the previous one: the chart has a history to draw.
    const reports = createReports({
      db: openDatabase(':memory:'),
      services,
      outbox: { enqueue: async () => undefined },
      logger: silentLogger,
      now: () => (clock += 3_600_000),
    });
    const node = (await hosting.listNodes()).find((n) => n.status === 'RUNNING')!.name;
    for (let i = 0; i < 5; i++) await reports.service.balance(node, { chartDays: 0 });

    // The first chart loads Vega and Vega-Lite: measured once, apart.
    const heapCold = process.memoryUsage().heapUsed;
    const rssCold = process.memoryUsage().rss;
    const c0 = performance.now();
    const first = await reports.service.balance(node, { chartDays: 7 });
    const coldMs = performance.now() - c0;
    const loadHeap = process.memoryUsage().heapUsed - heapCold;
    const loadRss = process.memoryUsage().rss - rssCold;
    const png = first.message.files?.[0];

    const without: number[] = [];
    const withChart: number[] = [];
    const heapGrowth: number[] = [];
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
    const rssBefore = process.memoryUsage().rss;
    for (let i = 0; i < opts.runs; i++) {
      let t = performance.now();
      await reports.service.balance(node, { chartDays: 0 });
      without.push(performance.now() - t);
      const h0 = process.memoryUsage().heapUsed;
      t = performance.now();
      await reports.service.balance(node, { chartDays: 7 });
      withChart.push(performance.now() - t);
      heapGrowth.push(process.memoryUsage().heapUsed - h0);
    }
    clearInterval(sampler);
    const base = median(without);
    const charted = median(withChart);
    return {
      name: 'a chart in a report',
      figures: {
        runs: opts.runs,
        report_without_chart_ms: Math.round(base),
        report_with_chart_ms: Math.round(charted),
        chart_ms: Math.round(charted - base),
        ratio_with_to_without: Math.round((charted / base) * 100) / 100,
        first_chart_ms_with_library_load: Math.round(coldMs),
        library_load_heap_mib: mib(loadHeap),
        library_load_rss_mib: mib(loadRss),
        heap_growth_per_chart_mib_median: mib(median(heapGrowth)),
        peak_rss_over_baseline_mib: mib(peakRss - rssBefore),
        png_kib: png ? Math.round(Buffer.from(png.base64, 'base64').length / 1024) : 0,
        png_size: png ? `${png.width}×${png.height}` : 'none',
      },
      targets: [
        { what: 'a chart was drawn', met: Boolean(png) },
        { what: 'one chart adds < 1 s to a report', met: charted - base < 1_000 },
      ],
    };
  } finally {
    await emu.close();
  }
}
