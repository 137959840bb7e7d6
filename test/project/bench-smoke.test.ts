/**
 * The benchmarks run, at a tiny size: nothing in `npm test` ran them, and three broke without
 * anyone seeing (the storm bench read a digest as text after digests became native tables, the
 * reports bench unlocked nodes as the old image did, the footprint bench waited for a line the
 * demo no longer prints). Only what a bench counts is asserted, never its timings: every node's
 * last status shown after a storm, every node answered in a report.
 */
import { describe, expect, it } from 'vitest';
import { storm } from '../bench/storm.js';
import { reportsManyNodes } from '../bench/reports-many-nodes.js';

describe('the benchmarks, at a tiny size', () => {
  it('storm: every node’s last status is shown, and no webhook is refused', async () => {
    const r = await storm({ events: 200, nodes: 40, seconds: 1 });
    expect(r.figures.webhooks_refused).toBe(0);
    expect(r.figures.nodes_last_status_not_visible).toBe(0);
    expect(r.figures.chat_messages).toBeGreaterThan(0);
  });

  it('reports over many nodes: every node answers', async () => {
    const r = await reportsManyNodes({ nodes: 4, latencyMs: 0 });
    expect(r.figures).toMatchObject({ nodes: 4, nodes_answered: 4, nodes_failed: 0 });
  });
});
