import { describe, expect, it } from 'vitest';
import { problemFromError, problemFromStatus } from '../../src/reports/describe-node-problem.js';
import { NodeApiError, NodeDeadlineError } from '../../src/node-api/index.js';
import type { HostedNode } from '../../src/hosting/index.js';

const node = (over: Partial<HostedNode> = {}): HostedNode => ({
  nodeId: 'n1',
  name: 'alice',
  network: 'regtest',
  status: 'RUNNING',
  invoke_url: 'http://x',
  ...over,
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
    expect(problemFromError(node(), new NodeDeadlineError(1500)).problem).toBe('did not answer within 1.5 s');
  });
});
