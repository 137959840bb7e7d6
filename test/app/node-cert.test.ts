/**
 * mTLS from the service (issue 25, item 6), through the whole bot: alice's API sits behind a TLS
 * server on loopback that requires a client certificate of the account's CA. Before `node cert
 * alice` the bot cannot call her; after it, the bot presents the certificate the service's
 * generate-cert gave, and the private key is in no reply, no log line, no audit row, and not in
 * clear in the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { Writable } from 'node:stream';
import { createCertAuthority, type ClientCertMaterial } from '../../src/emulator/index.js';
import { createLogger } from '../../src/log.js';
import type { Reply } from '../../src/engine/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { replyText } from '../support/reply-text.js';

describe('node cert: a client certificate from the service', () => {
  const ca = createCertAuthority();
  const issued: ClientCertMaterial[] = [];
  /** What generate-cert gave, as the test sees it (the bot never shows it). */
  const recording = {
    ...ca,
    issueClient: (cn: string) => {
      const m = ca.issueClient(cn);
      issued.push(m);
      return m;
    },
  };
  /** The client certificates the TLS server accepted, by SHA-256 fingerprint. */
  const accepted: string[] = [];
  let target = '';
  let front: Server;
  let h: Harness;
  let logs = '';
  const actor = { platform: 'shell' as const, userId: 'local' };
  const place = { platform: 'shell' as const, channelId: 'terminal' };
  const typed = (text: string) => h.app.dispatcher.dispatch({ via: 'typed', actor, place, text });
  const click = (r: Reply, label: string) => {
    const id = r.kind === 'message' ? r.message.buttons?.find((b) => b.label === label)?.id : undefined;
    if (!id) throw new Error(`no ${label} button in ${replyText(r)}`);
    return h.app.dispatcher.dispatch({ via: 'button', actor, place, buttonId: id });
  };

  beforeAll(async () => {
    // The account's own host for node APIs: mTLS with the account's CA, then on to the emulator.
    const server = ca.issueServer(['localhost', '127.0.0.1']);
    front = createHttpsServer(
      { key: server.privateKey, cert: server.certificate, ca: ca.certificate, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        accepted.push((req.socket as TLSSocket).getPeerCertificate().fingerprint256);
        const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        upstream.on('error', () => res.writeHead(502).end());
        req.pipe(upstream);
      },
    );
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
    const { port } = front.address() as { port: number };
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += String(chunk);
        done();
      },
    });
    h = await startHarness({
      emulator: { seed: 'demo', demoPassword: 'demo-password-1', nodeApiBaseUrl: `https://localhost:${port}`, certAuthority: recording },
      env: { CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64'), LOG_LEVEL: 'debug' },
      logger: createLogger({ level: 'debug', destination: sink }),
    });
    target = h.emulator.url;
  });
  afterAll(async () => {
    await h.close();
    await new Promise<void>((r) => front.close(() => r()));
  });

  it('is fetched once confirmed, kept, and presented on every call to that node; the key is shown nowhere', async () => {
    // Without a certificate the account's host refuses the bot.
    const before = replyText(await typed('wallet balance alice'));
    expect(before).toMatch(/TLS|reach/);
    expect(accepted).toEqual([]);

    const asked = await typed('node cert alice');
    expect(replyText(asked)).toContain('never shown');
    expect(issued).toHaveLength(0);
    const done = await click(asked, 'Confirm');
    const shown = replyText(done);
    expect(shown).toContain('Client certificate kept');
    expect(issued).toHaveLength(1);
    const fingerprint = new (await import('node:crypto')).X509Certificate(issued[0].certificate).fingerprint256;
    expect(shown).toContain(fingerprint);

    // Now the bot's calls to alice present it, and the account's host lets them through.
    const after = replyText(await typed('wallet balance alice'));
    expect(after).toContain('BTC balance');
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted)).toEqual(new Set([fingerprint]));

    // The private key: in no reply, no log line, no audit row, and not in clear in the database.
    const key = issued[0].privateKey;
    const keyBody = key.split('\n').filter((l) => l && !l.startsWith('-----'));
    const audit = JSON.stringify(await h.app.services.audit.latest({ limit: 50 }));
    expect(audit).toContain('node cert');
    const auditCsv = replyText(await typed('audit csv=true'));
    const database = readFileSync(h.dbPath).toString('latin1');
    for (const [where, text] of Object.entries({ asked: replyText(asked), shown, after, logs, audit, auditCsv, database })) {
      expect(text, where).not.toContain('PRIVATE KEY-----\n');
      for (const line of keyBody) expect(text, where).not.toContain(line);
    }
  }, 60_000);

  it('remove=true, confirmed by an admin, forgets it: the calls to that node present no certificate again; audited', async () => {
    const fingerprint = new (await import('node:crypto')).X509Certificate(issued[0].certificate).fingerprint256;
    expect(replyText(await typed('wallet balance alice'))).toContain('BTC balance');
    const asked = await typed('node cert alice remove=true');
    expect(replyText(asked)).toContain(fingerprint);
    expect(replyText(asked)).toContain('present no client certificate');
    const done = replyText(await click(asked, 'Confirm'));
    expect(done).toContain('Client certificate removed');
    expect(done).toContain(fingerprint);
    expect(await h.app.services.nodeCerts.kept(h.emulator.nodes().find((n) => n.name === 'alice')!.nodeId)).toBeUndefined();

    // The account's host refuses the bot again, as before the certificate; nothing new was issued.
    const seen = accepted.length;
    expect(replyText(await typed('wallet balance alice'))).toMatch(/TLS|reach/);
    expect(accepted).toHaveLength(seen);
    expect(issued).toHaveLength(1);

    const rows = await h.app.services.audit.latest({ limit: 5 });
    expect(rows.find((r) => r.path === 'node cert' && r.outcome === 'ok')?.args).toMatchObject({ remove: 'true' });
    // Nothing left to remove: refused before any confirmation.
    expect(replyText(await typed('node cert alice remove=true'))).toContain('keeps no client certificate for alice');
  }, 60_000);

  it('refuses without a key to seal with, before anything is fetched', async () => {
    const h2 = await startHarness({ emulator: { seed: 'demo' } });
    try {
      const r = replyText(await h2.app.dispatcher.dispatch({ via: 'typed', actor, place, text: 'node cert alice' }));
      expect(r).toContain('CREDENTIALS_KEY');
      expect(h2.emulator.requests.some((q) => q.path.endsWith('/generate-cert'))).toBe(false);
    } finally {
      await h2.close();
    }
  });
});
