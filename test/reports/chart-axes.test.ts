/**
 * The axes of the balance chart (P12): an asset whose balance stays 0 gets a 0 axis, not `NaN`,
 * and reports minutes or seconds apart get ticks that read apart.
 */
import { describe, expect, it } from 'vitest';
import { balanceChartSpec } from '../../src/reports/charts/history-charts.js';
import { chartSvg } from '../../src/reports/charts/render-chart.js';
import type { BalanceSnapshot } from '../../src/reports/balance-report.js';

const snap = (usdt: string): BalanceSnapshot => ({
  values: { 'btc.vanilla.settled': '100000', 'ln.local': '5000', 'asset:rgb:usdt:spendable': usdt },
  labels: { 'asset:rgb:usdt:spendable': { label: 'USDT spendable', precision: 2 } },
});

/** The text of every axis label of the SVG (vega draws each as a <text>). */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('balance chart axes (P12)', () => {
  it('draws a 0 axis, not NaN, for an asset whose balance is 0', async () => {
    const t0 = Date.parse('2026-11-27T01:00:00Z');
    const history = [0, 1, 2].map((i) => ({ takenAt: new Date(t0 + i * 3_600_000), data: snap('0') }));
    const svg = await chartSvg(balanceChartSpec('alice', history, { unit: 'sat', days: 7 })!);
    expect(texts(svg)).not.toContain('NaN');
    expect(svg).not.toContain('NaN');
    expect(texts(svg)).toContain('0');
  });

  it('gives distinct ticks for reports a few seconds apart, and for a 30-day window over a few hours', async () => {
    for (const [gapMs, days] of [
      [7_000, 7],
      [20 * 60_000, 7],
      [3_600_000, 30],
    ] as const) {
      const t0 = Date.parse('2026-11-27T01:31:00Z');
      const history = [0, 1, 2].map((i) => ({ takenAt: new Date(t0 + i * gapMs), data: snap(String(100 * (i + 1))) }));
      const svg = await chartSvg(balanceChartSpec('alice', history, { unit: 'sat', days })!);
      // The x ticks of the first panel: the labels that read as times.
      const ticks = texts(svg).filter((s) => /\d\d:\d\d|Nov \d\d/.test(s));
      const firstPanel = ticks.slice(0, ticks.length / 2);
      expect(firstPanel.length, `gap ${gapMs} ms`).toBeGreaterThan(1);
      expect(new Set(firstPanel).size, `gap ${gapMs} ms: ${firstPanel.join(' | ')}`).toBe(firstPanel.length);
    }
  });
});
