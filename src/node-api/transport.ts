/**
 * How the client reaches a node: its base URL, its bearer token, and its TLS client certificate,
 * from NODE_CREDENTIALS_FILE's files or from the material the service's `generate-cert` gave
 * (kept by the bot, its key sealed in the database: see service-certs.ts).
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { NodeCredentials } from './load-node-credentials.js';

type Https = { certificate: string | Buffer; key: string | Buffer; certificateAuthority?: string | Buffer | Array<string | Buffer> };

function loadTls(credentials: NodeCredentials): { https?: Https; error?: string } {
  if (credentials.kind === 'service-mtls') {
    // The chain is presented with the certificate, and trusted beside the usual roots: the account's
    // own host may show a certificate of the service's CA or a public one.
    return {
      https: {
        certificate: credentials.chain ? `${credentials.certificate.trimEnd()}\n${credentials.chain}` : credentials.certificate,
        key: credentials.key,
        ...(credentials.chain ? { certificateAuthority: [...rootCertificates, credentials.chain] } : {}),
      },
    };
  }
  if (credentials.kind !== 'mtls') return {};
  const read = (what: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new Error(`cannot read the mTLS ${what} file ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`, { cause: e });
    }
  };
  try {
    return {
      https: {
        certificate: read('certificate', credentials.certFile),
        key: read('key', credentials.keyFile),
        ...(credentials.caFile ? { certificateAuthority: read('CA', credentials.caFile) } : {}),
      },
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The got options the client uses for a set of credentials (exported for tests and diagnostics; holds secrets). */
export function buildTransportOptions(opts: { baseUrl: string; credentials: NodeCredentials }) {
  const tls = loadTls(opts.credentials);
  const token = opts.credentials.kind === 'none' ? undefined : opts.credentials.token;
  return {
    tlsError: tls.error,
    options: {
      prefixUrl: opts.baseUrl.replace(/\/+$/, ''),
      // A redirect would re-send a 307/308 body (an init or unlock password) to another place,
      // and keeps the token on an https -> http hop to the same host: the node API never redirects.
      followRedirect: false,
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(tls.https ? { https: tls.https } : {}),
    },
  };
}
