/**
 * The HTTP receiver answers for a listener that has not acked in time, with the empty answer
 * each request type needs; listeners' own budgets end before that fallback.
 */
import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../src/http/server.js';
import { silentLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { FastifyReceiver, SLACK_ACK_FALLBACK_MS, SLACK_LISTENER_BUDGET_MS } from '../../../src/chat/slack/fastify-receiver.js';
import { SLACK_SUGGESTION_BUDGET_MS, SLACK_VIEW_SUBMISSION_BUDGET_MS } from '../../../src/chat/slack/adapter.js';
import { blockSuggestionPayload, blockActionsPayload, postSigned } from '../../fakes/slack/index.js';

const SECRET = 'fallback-signing-secret-0123456789';
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function receiverWithHangingListeners() {
  const receiver = new FastifyReceiver({ signingSecret: SECRET, logger: silentLogger, ackTimeoutMs: 100 });
  const bolt = new App({ receiver, authorize: async () => ({ botToken: 'xoxb-fallback', botId: 'B1', botUserId: 'UB' }) });
  const never = new Promise<void>(() => undefined);
  bolt.options(/.*/, async () => never);
  bolt.action(/.*/, async () => never);
  const http = await createHttpServer({ logger: silentLogger, metrics: createMetrics({ defaults: false }), routes: [receiver.routes] });
  await http.listen({ port: 0, host: '127.0.0.1' });
  cleanup.push(() => http.close());
  return `http://127.0.0.1:${(http.server.address() as AddressInfo).port}/slack/events`;
}

describe('the Slack receiver’s fallback ack', () => {
  it('answers an external-select options request with {"options":[]} when its listener has not acked', async () => {
    const url = await receiverWithHangingListeners();
    const payload = blockSuggestionPayload({ user: { id: 'U1', name: 'ann' }, actionId: 'node', value: 'al' });
    const res = await postSigned(url, SECRET, { payload: JSON.stringify(payload) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ options: [] });
  });

  it('answers a button click with an empty 200 when its listener has not acked', async () => {
    const url = await receiverWithHangingListeners();
    const payload = blockActionsPayload({ user: { id: 'U1', name: 'ann' }, actionId: 'b_1', responseUrl: 'http://127.0.0.1:9/unused' });
    const res = await postSigned(url, SECRET, { payload: JSON.stringify(payload) });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('leaves the listeners a margin: their budgets end before the fallback fires', () => {
    expect(SLACK_LISTENER_BUDGET_MS).toBeLessThan(SLACK_ACK_FALLBACK_MS);
    expect(SLACK_SUGGESTION_BUDGET_MS).toBeLessThanOrEqual(SLACK_LISTENER_BUDGET_MS);
    expect(SLACK_VIEW_SUBMISSION_BUDGET_MS).toBeLessThanOrEqual(SLACK_LISTENER_BUDGET_MS);
  });
});
