import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import {
  createLogger,
  redactText,
  registerSecret,
  registerTypedSecret,
  typedSecretCount,
  MAX_TYPED_SECRETS,
  TYPED_SECRET_TTL_MS,
} from '../src/log.js';

function capture() {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  return { stream, lines };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('log redaction of what HTTP libraries put on their errors', () => {
  it('keeps a Slack request error readable but drops the request it carries (bot token, message body)', async () => {
    const { stream, lines } = capture();
    const log = createLogger({ destination: stream });
    // @slack/web-api: WebAPIRequestError.original is the axios error, whose config holds the request.
    const original = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), {
      code: 'ECONNREFUSED',
      config: {
        headers: { Authorization: 'Bearer xoxb-9999-8888-secretish' },
        data: 'channel=C1&text=abandon%20ability%20able%20about',
      },
    });
    const err = Object.assign(new Error('A request error occurred: connect ECONNREFUSED 10.0.0.1:443'), {
      code: 'slack_webapi_request_error',
      original,
    });
    log.error({ err }, 'could not deliver a reply to Slack');
    await flush();
    const text = lines.join('\n');
    expect(text).not.toContain('xoxb-9999');
    expect(text).not.toContain('abandon');
    const parsed = JSON.parse(lines[0]);
    expect(parsed.err.code).toBe('slack_webapi_request_error');
    expect(parsed.err.original.code).toBe('ECONNREFUSED');
    expect(parsed.err.message).toContain('ECONNREFUSED');
  });

  it('drops a discord.js requestBody (an ephemeral answer with a mnemonic) and a got options object', async () => {
    const { stream, lines } = capture();
    const log = createLogger({ destination: stream });
    const discordErr = Object.assign(new Error('Unknown Webhook'), {
      status: 404,
      requestBody: { files: undefined, json: { content: 'zoo wrist yellow', flags: 64 } },
    });
    const gotErr = Object.assign(new Error('Request failed'), {
      options: { headers: { authorization: 'Token nodetoken-abcdef' }, json: { password: 'hunter2hunter2' } },
    });
    log.error({ err: discordErr }, 'answering a Discord interaction failed');
    log.warn({ err: gotErr, room: 'x' }, 'call failed');
    await flush();
    const text = lines.join('\n');
    for (const s of ['zoo wrist yellow', 'nodetoken-abcdef', 'hunter2hunter2']) expect(text).not.toContain(s);
    expect(JSON.parse(lines[0]).err.status).toBe(404);
  });

  it('masks secret keys and registered secrets at any depth of a logged object', async () => {
    const { stream, lines } = capture();
    const log = createLogger({ destination: stream });
    registerSecret('cfg-token-31415926');
    log.info(
      {
        a: { b: { c: { d: { password: 'deep-password-1' } } } },
        reason: 'the node said cfg-token-31415926 is wrong',
        list: [{ nested: { mnemonic: 'one two three four' } }, 'Bearer abc.def.ghi'],
        e: new Error('boom cfg-token-31415926'),
      },
      'event',
    );
    await flush();
    const text = lines.join('\n');
    for (const s of ['deep-password-1', 'cfg-token-31415926', 'one two three four', 'abc.def.ghi']) expect(text).not.toContain(s);
    expect(JSON.parse(lines[0]).reason).toBe('the node said [redacted] is wrong');
  });
});

describe('secrets typed by users', () => {
  it('are masked while held, and only a bounded number are held for a bounded time', () => {
    const t0 = Date.now();
    registerTypedSecret('typed-secret-value-1', t0);
    expect(redactText('x typed-secret-value-1 y')).toBe('x [redacted] y');
    // Anyone may type into /rln: a flood of values must not grow the list without bound.
    for (let i = 0; i < MAX_TYPED_SECRETS + 500; i++) registerTypedSecret(`flood-value-${i}-padding`, t0);
    expect(typedSecretCount(t0)).toBeLessThanOrEqual(MAX_TYPED_SECRETS);
    // The most recent are the ones kept.
    expect(redactText(`flood-value-${MAX_TYPED_SECRETS + 499}-padding`)).toBe('[redacted]');
    expect(typedSecretCount(t0 + TYPED_SECRET_TTL_MS + 1)).toBe(0);
  });

  it('refused in a command line (anyone can send them) do not push out a password or a mnemonic', () => {
    const t0 = Date.now();
    registerTypedSecret('a-mnemonic-word-list-here', t0);
    for (let i = 0; i < MAX_TYPED_SECRETS * 3; i++) registerTypedSecret(`refused-inline-${i}-zz`, t0, 'refused');
    expect(typedSecretCount(t0, 'refused')).toBeLessThanOrEqual(MAX_TYPED_SECRETS);
    expect(redactText('a-mnemonic-word-list-here')).toBe('[redacted]');
  });

  it('do not displace configured secrets', () => {
    registerSecret('configured-forever-42');
    for (let i = 0; i < MAX_TYPED_SECRETS * 2; i++) registerTypedSecret(`another-flood-${i}-xx`);
    expect(redactText('configured-forever-42')).toBe('[redacted]');
  });
});
