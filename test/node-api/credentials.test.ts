import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildTransportOptions,
  createNodeApiClient,
  loadNodeCredentials,
  NodeApiError,
  NodeCredentialsError,
} from '../../src/node-api/index.js';
import { NodeWorld } from '../../src/emulator/node-api/index.js';
import { startNodeWorldServer } from '../support/node-world-server.js';
import { redactText } from '../../src/log.js';
import { waitFor } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'rln-creds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A throwaway CA, a server certificate for localhost and a client certificate, made with the openssl CLI. */
function makePki(): void {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=test-ca');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  for (const who of ['server', 'client']) {
    run('req', ...ec, '-keyout', `${who}.key`, '-out', `${who}.csr`, '-subj', `/CN=${who === 'server' ? 'localhost' : 'rln-chatops'}`);
    run(
      'x509',
      '-req',
      '-in',
      `${who}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${who}.crt`,
      '-days',
      '2',
      '-extfile',
      'san.ext',
    );
  }
}

describe('loadNodeCredentials', () => {
  it('maps node ids and names to tokens or mTLS files (JSON), falling back to the default token', () => {
    const file = join(dir, 'creds.json');
    writeFileSync(file, JSON.stringify({ 'node-id-1': { token: 'tok-1' }, prod: { cert: 'c.pem', key: '/abs/k.pem', ca: 'ca.pem' } }));
    const lookup = loadNodeCredentials({ defaultToken: 'default-tok', file });
    expect(lookup({ nodeId: 'node-id-1', name: 'whatever' })).toEqual({ kind: 'token', token: 'tok-1' });
    expect(lookup({ nodeId: 'x', name: 'prod' })).toEqual({
      kind: 'mtls',
      certFile: join(dir, 'c.pem'),
      keyFile: '/abs/k.pem',
      caFile: join(dir, 'ca.pem'),
    });
    expect(lookup({ nodeId: 'y', name: 'other' })).toEqual({ kind: 'token', token: 'default-tok' });
    expect(loadNodeCredentials({})({ nodeId: 'y', name: 'other' })).toEqual({ kind: 'none' });
  });

  it('reads YAML too', () => {
    const file = join(dir, 'creds.yaml');
    writeFileSync(file, 'staging:\n  token: yaml-token\n');
    expect(loadNodeCredentials({ file })({ nodeId: 'z', name: 'staging' })).toEqual({ kind: 'token', token: 'yaml-token' });
  });

  it('explains a bad file without showing any secret', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ prod: { token: 'very-secret-token', cert: 'only-cert.pem' } }));
    const e = (() => {
      try {
        loadNodeCredentials({ file });
      } catch (x) {
        return x as Error;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(NodeCredentialsError);
    expect(e!.message).toContain('prod');
    expect(e!.message).not.toContain('very-secret-token');
    expect(() => loadNodeCredentials({ file: join(dir, 'missing.json') })).toThrow(/cannot read/);
  });
});

describe('mutual TLS', () => {
  it('builds the https options from the certificate, key and CA files', () => {
    writeFileSync(join(dir, 'a.crt'), 'CERT');
    writeFileSync(join(dir, 'a.key'), 'KEY');
    const { options, tlsError } = buildTransportOptions({
      baseUrl: 'https://node.example/nodes/u/n/',
      credentials: { kind: 'mtls', certFile: join(dir, 'a.crt'), keyFile: join(dir, 'a.key'), token: 't' },
    });
    expect(tlsError).toBeUndefined();
    expect(options.https?.certificate.toString()).toBe('CERT');
    expect(options.https?.key.toString()).toBe('KEY');
    expect(options.headers.authorization).toBe('Bearer t');
    expect(options.baseUrl).toBe('https://node.example/nodes/u/n');
  });

  it('reports unreadable certificate files as a credentials error when called', async () => {
    const client = createNodeApiClient({
      baseUrl: 'https://127.0.0.1:1',
      credentials: { kind: 'mtls', certFile: join(dir, 'nope.crt'), keyFile: join(dir, 'nope.key') },
    });
    const e = await client.nodeinfo().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NodeApiError);
    expect(e).toMatchObject({ kind: 'credentials' });
    // The same before a changed endpoint is shaped, or its generation asked: nothing is sent.
    for (const call of [() => client.unlock({ password: 'p', indexer_url: '127.0.0.1:50001' }), () => client.generation('send')]) {
      const shaped = await call().catch((x: unknown) => x);
      expect(shaped).toBeInstanceOf(NodeApiError);
      expect(shaped).toMatchObject({ kind: 'credentials' });
      expect((shaped as Error).message).toMatch(/cannot read the mTLS certificate file/);
    }
  });

  describe.runIf(hasOpenssl())('against an HTTPS server that requires a client certificate', () => {
    let server: Awaited<ReturnType<typeof startNodeWorldServer>>;
    beforeAll(async () => {
      makePki();
      const world = new NodeWorld();
      world.addNode('n1', { network: 'regtest' });
      await world.seedReadyNode('n1', 'password1');
      server = await startNodeWorldServer({
        world,
        tls: {
          key: readFileSync(join(dir, 'server.key')),
          cert: readFileSync(join(dir, 'server.crt')),
          ca: readFileSync(join(dir, 'ca.crt')),
          requestCert: true,
        },
        // Idle connections kept a minute, as a client is told: only the client's close ends them sooner.
        keepAliveMs: 65_000,
      });
    });
    afterAll(() => server?.close());

    it('connects with the client certificate and the CA', async () => {
      const client = createNodeApiClient({
        baseUrl: server.urlOf('n1'),
        credentials: { kind: 'mtls', certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key'), caFile: join(dir, 'ca.crt') },
      });
      expect((await client.networkinfo()).network).toBe('Regtest');
    });

    it("close() lets go of the client's own connections (its certificate's pool), and a later call connects again", async () => {
      const client = createNodeApiClient({
        baseUrl: server.urlOf('n1'),
        credentials: { kind: 'mtls', certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key'), caFile: join(dir, 'ca.crt') },
      });
      // Other clients' connections (the test before) stay open for the server's minute.
      const before = server.openConnections();
      await client.networkinfo();
      expect(server.openConnections()).toBe(before + 1);
      client.close();
      await waitFor(() => server.openConnections() === before, { what: 'the closed client’s connection to end' });
      expect((await client.networkinfo()).network).toBe('Regtest');
      client.close();
    });

    it('fails with a TLS or network error without the client certificate', async () => {
      const client = createNodeApiClient({ baseUrl: server.urlOf('n1'), credentials: { kind: 'none' }, retries: 0 });
      const e = await client.networkinfo().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(NodeApiError);
      expect(['tls', 'network']).toContain((e as NodeApiError).kind);
    });
  });
});

describe('NODE_CREDENTIALS_FILE tokens', () => {
  it('are registered as secrets, so they are masked in any log line or error text', () => {
    const file = join(dir, 'mask-creds.json');
    writeFileSync(file, JSON.stringify({ alice: { token: 'per-node-biscuit-Zq81x' } }));
    const lookup = loadNodeCredentials({ file });
    expect(lookup({ nodeId: 'n1', name: 'alice' })).toEqual({ kind: 'token', token: 'per-node-biscuit-Zq81x' });
    expect(redactText('the node echoed per-node-biscuit-Zq81x')).toBe('the node echoed [redacted]');
  });
});
