/**
 * URLs that cannot reach inside (issue 27): a webhook URL naming or resolving to a private,
 * loopback, link-local or metadata address is refused before the service is asked to POST there,
 * unless ALLOW_PRIVATE_URLS lists it; the bot's own address is always its admin's to set. A
 * refused URL's password never reaches the audit trail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { replyText } from '../support/reply-text.js';
import { checkUrlTarget, insideAddress, parseAllowList, EMPTY_ALLOW_LIST, type Lookup } from '../../src/vocabulary/url-safety.js';

describe('checkUrlTarget', () => {
  // A resolver of fixed answers, for names this machine cannot resolve without a network.
  const lookup: Lookup = async (host) => {
    const names: Record<string, string[]> = {
      'hooks.corp.example': ['10.1.2.3'],
      'hooks.example': ['93.184.216.34'],
      'twofaced.example': ['93.184.216.34', '127.0.0.1'],
    };
    if (names[host]) return names[host];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };

  it.each([
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://10.0.0.5/hook', 'private'],
    ['https://172.20.1.1/', 'private'],
    ['https://192.168.1.10/', 'private'],
    ['https://100.64.0.1/', 'shared'],
    ['https://127.0.0.1:8080/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'],
    ['https://[fd00:ec2::254]/', 'unique local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://0.0.0.0/', 'this network'],
    ['https://metadata.google.internal/', 'inside this network'],
    ['https://hooks.corp.example/x', 'resolves to a private address (10.1.2.3)'],
    ['https://twofaced.example/x', 'resolves to a loopback address'],
  ])('refuses %s', async (url, why) => {
    const reason = await checkUrlTarget(url, EMPTY_ALLOW_LIST, { lookup, what: 'the webhook URL' });
    expect(reason).toContain(why);
    expect(reason).toContain('ALLOW_PRIVATE_URLS');
  });

  it('resolves a name with the system resolver: localhost is loopback', async () => {
    expect(await checkUrlTarget('https://localhost:5432/', EMPTY_ALLOW_LIST)).toContain('inside this network');
    expect(await checkUrlTarget('https://LOCALHOST./', EMPTY_ALLOW_LIST)).toContain('inside this network');
  });

  it('accepts a public address or name, and what ALLOW_PRIVATE_URLS lists', async () => {
    expect(await checkUrlTarget('https://hooks.example/x', EMPTY_ALLOW_LIST, { lookup })).toBeUndefined();
    expect(await checkUrlTarget('https://93.184.216.34/', EMPTY_ALLOW_LIST, { lookup })).toBeUndefined();
    const allow = parseAllowList('10.0.0.0/8, hooks.corp.example, localhost, fd00::/8');
    expect(await checkUrlTarget('https://10.0.0.5/hook', allow)).toBeUndefined();
    expect(await checkUrlTarget('https://hooks.corp.example/x', allow, { lookup })).toBeUndefined();
    expect(await checkUrlTarget('https://localhost:5432/', allow)).toBeUndefined();
    expect(await checkUrlTarget('https://[fd00:ec2::254]/', allow)).toBeUndefined();
    expect(await checkUrlTarget('https://169.254.169.254/', allow)).toContain('link-local');
  });

  it('refuses a name that does not resolve, and reads IPv4 inside IPv6', async () => {
    expect(await checkUrlTarget('https://nowhere.example/', EMPTY_ALLOW_LIST, { lookup })).toContain('does not resolve');
    expect(insideAddress('::ffff:10.0.0.1')).toContain('private');
    expect(insideAddress('64:ff9b::a9fe:a9fe')).toContain('link-local');
    expect(insideAddress('64:ff9b::169.254.169.254')).toContain('link-local');
    expect(() => parseAllowList('10.0.0.0/99')).toThrow(/CIDR/);
  });
});

describe('webhook URLs in chat', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { seed: 'demo' }, env: { ADMIN_USERS: 'shell:local' } });
  }, 90_000);
  afterAll(async () => h?.close());

  const run = (line: string) =>
    h.app.dispatcher.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'local' },
      place: { platform: 'shell', channelId: 'terminal' },
      text: line,
    });
  const webhookOf = () => h.emulator.nodes().find((n) => n.name === 'alice')!.settings?.webhookUrl;

  it.each(['https://169.254.169.254/latest', 'https://10.0.0.5/hook', 'https://localhost:5432/', 'https://[::1]/x'])(
    'refuses %s before the service is asked',
    async (url) => {
      const before = webhookOf();
      const posts = () => h.emulator.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/settings')).length;
      const sent = posts();
      const text = replyText(await run(`node settings alice webhook=${url}`));
      expect(text).not.toContain('Settings updated');
      expect(text).toMatch(/address|inside this network/);
      expect(text).toContain('ALLOW_PRIVATE_URLS');
      expect(posts()).toBe(sent);
      expect(webhookOf()).toBe(before);
    },
  );

  it("accepts the bot's own address, and keeps a URL's password out of the audit trail", async () => {
    const alice = h.emulator.nodes().find((n) => n.name === 'alice')!.nodeId;
    await h.app.services.hosting.updateSettings(alice, { webhookUrl: `${h.url}/webhooks/service/${alice}` });
    expect(webhookOf()).toBe(`${h.url}/webhooks/service/${alice}`);
    await run('node settings alice webhook=https://hookuser:hook-Pass-881@10.0.0.5/x');
    const audit = JSON.stringify(await h.app.services.audit.query({ action: 'node.settings', limit: 20 }));
    expect(audit).toContain('hookuser:[redacted]@10.0.0.5');
    expect(audit).not.toContain('hook-Pass-881');
  });
});
