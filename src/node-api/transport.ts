/**
 * How the client reaches a node: its base URL, its bearer token, and its TLS client certificate,
 * from NODE_CREDENTIALS_FILE's files or from the material the service's `generate-cert` gave
 * (kept by the bot, its key sealed in the database: see service-certs.ts).
 */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { createRequire } from 'node:module';
import type { Agent as AgentType, Dispatcher, request as requestType } from 'undici';
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

/** The transport options for a set of credentials (exported for tests and diagnostics; holds secrets). */
export function buildTransportOptions(opts: { baseUrl: string; credentials: NodeCredentials }) {
  const tls = loadTls(opts.credentials);
  const token = opts.credentials.kind === 'none' ? undefined : opts.credentials.token;
  const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return {
    tlsError: tls.error,
    options: {
      baseUrl: opts.baseUrl.replace(/\/+$/, ''),
      headers,
      ...(tls.https ? { https: tls.https } : {}),
    },
  };
}

/**
 * What carries the requests: undici's dispatcher. Clients without a TLS client certificate share one
 * (its pool of keep-alive connections per origin, as Node's global agent was), so 2,000 nodes behind
 * one host do not hold 2,000 pools; a client with a certificate has its own, closed when its
 * credentials change. undici never follows a redirect by itself: the node API never redirects (a
 * 307/308 would re-send a body, an init or unlock password, to another place).
 */
let shared: AgentType | undefined;

/**
 * undici, loaded so that it does not become the process's HTTP client. On load it installs an Agent
 * of its own as the global dispatcher when none is set yet, which Node's fetch and the other undici
 * copies (discord.js's) would then use with bodies they build for their own version (a Discord post
 * with a file failed: "action is not a function"). Node's own fetch sets its global dispatcher once,
 * when its HTTP stack first loads, and never again: so that stack is loaded first (a Headers object
 * does it), and its dispatcher is the global one before undici is. Setting the global back to unset
 * after loading undici instead, as was first done, left Node's fetch with none when undici's loading
 * had itself loaded Node's stack: every fetch in the process then failed an assertion. Should undici
 * still have put its own Agent there, the global is set back as it was. The client passes its own
 * dispatcher on every call.
 */
const GLOBAL_DISPATCHERS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];
const globals = globalThis as unknown as Record<symbol, unknown>;
new Headers();
const before = GLOBAL_DISPATCHERS.map((key) => globals[key]);
const undici = createRequire(import.meta.url)('undici') as { Agent: typeof AgentType; request: typeof requestType };
GLOBAL_DISPATCHERS.forEach((key, i) => {
  if (globals[key] !== before[i] && globals[key] instanceof undici.Agent) globals[key] = before[i];
});
const { Agent } = undici;
/** undici's request, with the dispatcher given on each call. */
export const undiciRequest = undici.request;

/**
 * An attempt's abort, as undici's request takes a signal: an EventEmitter that emits `abort`, with
 * `aborted` and the `reason` undici rejects with. Every node call makes one; an AbortController
 * (an EventTarget, and its AbortSignal) took about 4% of a poll's CPU under Node 20, and 4% of
 * its garbage (docs/benchmarks.md, 2026-11-29).
 */
export class AttemptAbort extends EventEmitter {
  aborted = false;
  reason: unknown;
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

export interface Transport {
  /** The node's base URL, without a trailing slash. */
  baseUrl: string;
  /**
   * The same split as undici's dispatcher takes it, once: its `request(url)` parses a URL (and
   * copies the options) at every call, 3 % of a poll's CPU at 2,000 nodes. Absent when the base
   * URL is not an http(s) URL without a query: such a call goes through `request(url)`, which
   * refuses it as before.
   */
  target?: { origin: string; basePath: string };
  headers: Readonly<Record<string, string>>;
  /** The same, for a JSON body. */
  jsonHeaders: Readonly<Record<string, string>>;
  dispatcher: Dispatcher;
  /** Why the credentials' TLS files cannot be used, if they cannot. */
  tlsError?: string;
  /** Lets go of a dispatcher of its own (a shared one stays). */
  close(): void;
}

function targetOf(baseUrl: string): Transport['target'] {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) return undefined;
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

export function buildTransport(opts: { baseUrl: string; credentials: NodeCredentials }): Transport {
  const { tlsError, options } = buildTransportOptions(opts);
  const https = options.https;
  const own = https
    ? new Agent({
        connect: {
          cert: https.certificate,
          key: https.key,
          ...(https.certificateAuthority ? { ca: https.certificateAuthority } : {}),
        },
      })
    : undefined;
  const dispatcher = own ?? (shared ??= new Agent());
  return {
    baseUrl: options.baseUrl,
    target: targetOf(options.baseUrl),
    headers: options.headers,
    jsonHeaders: { ...options.headers, 'content-type': 'application/json' },
    dispatcher,
    tlsError,
    close: () => {
      own?.close().catch(() => undefined);
    },
  };
}
