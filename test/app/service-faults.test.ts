/**
 * The service misbehaving: down, slow, 5xx, garbage, and a token revoked. Every case is a
 * clear error in chat (what failed, what to do), no crash, no stack trace; and the bot
 * works again once the service recovers.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { replyText } from '../support/reply-text.js';

const STACK = /\n\s+at .+:\d+:\d+|Error: .*\n\s+at /;

describe('the service misbehaving', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { seed: 'demo' }, env: { SERVICE_TIMEOUT_MS: '400' } });
  });
  afterAll(async () => h.close());
  afterEach(() => {
    Object.assign(h.emulator.faults, { down: false, latencyMs: 0, garbage: false, errorNext: 0, errorRate: 0 });
  });

  const run = (line: string) =>
    h.app.dispatcher.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'local' },
      place: { platform: 'shell', channelId: 'terminal' },
      text: line,
    });

  it('works when the service is healthy (the control case)', async () => {
    const reply = await run('node list');
    expect(replyText(reply)).toMatch(/alice/);
  });

  it('down: says the service cannot be reached, and recovers', async () => {
    h.emulator.faults.down = true;
    const reply = await run('node list');
    expect(reply.kind).toBe('message');
    expect(reply.kind === 'message' && reply.message.tone).toBe('danger');
    expect(replyText(reply)).toMatch(/GET \/api\/nodes|reach|unavailable|network|connect/i);
    expect(replyText(reply)).not.toMatch(STACK);
    h.emulator.faults.down = false;
    expect(replyText(await run('node list'))).toMatch(/alice/);
  });

  it('slow past the timeout: says it timed out', async () => {
    h.emulator.faults.latencyMs = 2_000;
    const reply = await run('node list');
    expect(replyText(reply)).toMatch(/time(d)? ?out|did not answer/i);
    expect(replyText(reply)).not.toMatch(STACK);
  });

  it('5xx on a read: retried, so a passing error never reaches the user', async () => {
    const lists = () => h.emulator.requests.filter((r) => r.method === 'GET' && r.path === '/api/nodes').length;
    const before = lists();
    h.emulator.faults.errorNext = 1;
    expect(replyText(await run('node list'))).toMatch(/alice/);
    // The 503 and the retry that succeeded.
    expect(lists() - before).toBe(2);
  });

  it('5xx on a change: not retried, and the status and message are shown', async () => {
    // node create asks nothing first (node start reads the node's status before), so the next request the service sees is the change.
    const creates = () => h.emulator.requests.filter((r) => r.method === 'POST' && r.path === '/api/nodes').length;
    const before = creates();
    h.emulator.faults.errorNext = 1;
    const reply = await run('node create faulty');
    expect(replyText(reply)).toMatch(/50\d/);
    expect(replyText(reply)).not.toMatch(STACK);
    const after = creates();
    expect(after - before).toBe(1);
  });

  it('garbage: says the answer could not be read, naming the endpoint', async () => {
    h.emulator.faults.garbage = true;
    const reply = await run('node list');
    expect(replyText(reply)).toMatch(/\/api\/nodes/);
    expect(replyText(reply)).toMatch(/not JSON|truncated|malformed|could not (be )?(read|parse)|unexpected/i);
    expect(replyText(reply)).not.toMatch(STACK);
  });

  it('401 after the token is revoked: names the token as the cause, never shows it', async () => {
    const token = h.emulator.token;
    h.emulator.revokeToken();
    const reply = await run('node list');
    const t = replyText(reply);
    expect(t).toMatch(/401/);
    expect(t).toMatch(/SERVICE_API_TOKEN|token/);
    expect(t).not.toContain(token);
  });
});
