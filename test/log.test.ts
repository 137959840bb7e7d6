import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { createLogger, redactText, registerSecret } from '../src/log.js';

function capture() {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  return { stream, lines };
}

describe('logging', () => {
  it('writes JSON lines with a level and never a secret, by key or by value', async () => {
    const { stream, lines } = capture();
    const log = createLogger({ level: 'debug', destination: stream });
    registerSecret('svc-token-7f3a9c1e');
    log.info({ token: 'abc123', user: { password: 'hunter22' }, headers: { authorization: 'Bearer zzz' } }, 'calling the service');
    log.warn('the service echoed svc-token-7f3a9c1e back, and xoxb-1234-abcd leaked');
    log.error({ err: new Error('failed with Bearer qwerty123 and svc-token-7f3a9c1e') }, 'boom');
    log.debug({ mnemonic: 'abandon ability able' }, 'init');
    await new Promise((r) => setImmediate(r));
    expect(lines.length).toBe(4);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.map((p) => p.level)).toEqual(['info', 'warn', 'error', 'debug']);
    const all = lines.join('\n');
    for (const secret of ['abc123', 'hunter22', 'zzz', 'svc-token-7f3a9c1e', 'xoxb-1234-abcd', 'qwerty123', 'abandon ability able']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('[redacted]');
    expect(parsed[0].msg).toBe('calling the service');
  });

  it('masks token-shaped strings in free text', () => {
    expect(redactText('use xapp-1-A0-123 or Bearer abc.def')).toBe('use [redacted] or Bearer [redacted]');
  });
});
