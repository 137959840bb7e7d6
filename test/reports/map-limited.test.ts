import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mapLimited, withTimeout, TimeoutError } from '../../src/reports/map-limited.js';
import { problemFromError, problemFromStatus } from '../../src/reports/describe-node-problem.js';
import { NodeApiError } from '../../src/node-api/index.js';
import type { HostedNode } from '../../src/hosting/index.js';

const node = (over: Partial<HostedNode> = {}): HostedNode => ({
  nodeId: 'n1',
  name: 'alice',
  network: 'regtest',
  status: 'RUNNING',
  invoke_url: 'http://x',
  ...over,
});

// Pure units: vitest's fake timers stand in for the work's delays and the time-out.
describe('mapLimited', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never runs more than the bound at once and keeps the order', async () => {
    let inFlight = 0;
    let peak = 0;
    const running = mapLimited(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 2 + (i % 3)));
        inFlight--;
        return i * 2;
      },
    );
    await vi.runAllTimersAsync();
    const out = await running;
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it('withTimeout rejects with a TimeoutError when the work does not settle', async () => {
    const late = expect(withTimeout(new Promise(() => undefined), 20)).rejects.toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(20);
    await late;
    await expect(withTimeout(Promise.resolve(7), 1_000)).resolves.toBe(7);
  });
});

describe('node problems', () => {
  it('come from the hosting status before the node is asked', () => {
    expect(problemFromStatus(node({ status: 'PAUSED' }))).toMatchObject({
      problem: 'paused',
      hint: expect.stringContaining('node start alice'),
    });
    expect(problemFromStatus(node({ status: 'FAILED' }))?.problem).toBe('failed');
    expect(problemFromStatus(node({ invoke_url: undefined }))?.problem).toMatch(/unreachable/);
    expect(problemFromStatus(node())).toBeUndefined();
  });

  it('come from the node API error with what to do', () => {
    const locked = new NodeApiError({
      endpoint: '/btcbalance',
      kind: 'rln',
      message: 'Node is locked',
      status: 403,
      rlnName: 'LockedNode',
    });
    expect(problemFromError(node(), locked)).toEqual({ problem: 'locked', hint: 'unlock it with /rln node unlock alice' });
    const init = new NodeApiError({ endpoint: '/btcbalance', kind: 'rln', message: 'not init', status: 403, rlnName: 'NotInitialized' });
    expect(problemFromError(node(), init).problem).toBe('not initialised');
    const net = new NodeApiError({ endpoint: '/nodeinfo', kind: 'network', message: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(problemFromError(node(), net).problem).toMatch(/^unreachable/);
    expect(problemFromError(node(), new TimeoutError(1500)).problem).toBe('did not answer within 1.5 s');
  });
});
