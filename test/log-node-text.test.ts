/** Node logs are masked with the bot's own rules before anyone sees them. */
import { describe, expect, it } from 'vitest';
import { redactLogText, registerSecret } from '../src/log.js';

describe('redactLogText', () => {
  it('masks the value of a secret-named key in a text line and keeps the rest of the line', () => {
    expect(redactLogText('INFO unlock password=hunter2-long ok')).toBe('INFO unlock password=[redacted] ok');
    expect(redactLogText('body={"old_password": "a b c", "x": 1}')).toBe('body={"old_password": [redacted], "x": 1}');
    expect(redactLogText('Authorization: Bearer abc.def.ghi')).toBe('Authorization: [redacted]');
  });

  it('sanitises a JSON line as a logged object, at any depth', () => {
    const out = JSON.parse(redactLogText('{"msg":"init","req":{"mnemonic":"abandon ability able"}}'));
    expect(out).toEqual({ msg: 'init', req: { mnemonic: '[redacted]' } });
  });

  it('masks registered secrets and token shapes anywhere in a line', () => {
    registerSecret('configured-token-123456');
    expect(redactLogText('peer said configured-token-123456 and xoxb-1-2-3')).toBe('peer said [redacted] and [redacted]');
  });

  it('leaves lines without secrets as they are', () => {
    const line = '2026-11-22T10:00:00Z INFO lightning::ln::peer_handler: peer 03ab… ping ok';
    expect(redactLogText(`${line}\n${line}`)).toBe(`${line}\n${line}`);
  });
});
