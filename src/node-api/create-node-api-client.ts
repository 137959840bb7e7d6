import {
  CannotSay,
  type EndpointDef,
  type EndpointName,
  endpoints,
  isShaped,
  type RequestOf,
  type ResponseOf,
  SHAPED,
  type ShapedBody,
} from './endpoints.js';
import { type ApiShape, type Capability, NodeShapes, PROBES, shapeFromProbe, shapeFromRefusal } from './generations.js';
import { NodeApiError } from './node-api-error.js';
import { stringifyJson } from './json.js';
import type { NodeCredentials } from './load-node-credentials.js';
import { NODE_API_MAX_BYTES, readBounded, sizeText } from './bounded-read.js';
import { currentDeadline, secondsText, sleep } from '../vocabulary/index.js';
import { AttemptTimeout, CutOff, DEADLINE_SLACK_MS, HttpStatusError, MIN_RETRY_MS, retryDelay, translate } from './call-errors.js';
import { AttemptAbort, buildTransport, type Transport, undiciRequest as request } from './transport.js';
import { withEndpointMethods } from './endpoint-methods.js';
import { decode, encode, invalid } from './body-codec.js';
import { GateWaitTimeout, type NodeGate } from './node-gates.js';

/** One method per endpoint, named exactly as the path: `client.btcbalance({ skip_sync: false })`, `client.listchannels()`. */
export type NodeApiClient = { [E in EndpointName]: (body?: RequestOf<E>) => Promise<ResponseOf<E>> } & {
  /**
   * The generation this node takes for a changed endpoint: remembered, else its image's, else asked of
   * the node (a request it refuses before acting). A command asks this when its questions depend on it.
   */
  generation(cap: Capability): Promise<ApiShape>;
  /**
   * Asks the node, afresh, which generation it answers in (after an upgrade and its unlock): a read
   * whose body its image's generation takes and the other refuses. `expected` is the image's word.
   */
  checkGeneration(): Promise<GenerationCheck>;
  /**
   * Lets go of the client's own connections (a client with a TLS certificate has its own pool):
   * requests in flight end first. A call made after it builds them again.
   */
  close(): void;
};

export interface GenerationCheck {
  /** What the node's image says (a known RLN commit), if it says. */
  expected?: ApiShape;
  /** What the node answered in. */
  answers: ApiShape;
  /** How it was asked, in words. */
  how: string;
}

export interface NodeApiClientOptions {
  /** The node's invoke_url, e.g. `https://host/nodes/<userId>/<nodeId>`. */
  baseUrl: string;
  /**
   * How to authenticate, or where to look it up at each call (the app's: NODE_CREDENTIALS_FILE, then a
   * certificate kept from the service, then NODE_API_TOKEN), so a certificate fetched later is used.
   */
  credentials: NodeCredentials | (() => NodeCredentials | Promise<NodeCredentials>);
  /** The node's name, as errors say it ("alice did not answer in 10 s"). Default "the node". */
  nodeName?: string;
  /**
   * Per-attempt timeout; default 15000 ms. Under a deadline (`withDeadline`: every chat interaction,
   * a poll, a report) an attempt gets no more than what is left of it.
   */
  timeoutMs?: number;
  /** Retries of idempotent reads on network errors and 5xx, when the deadline allows; default 2. Writes are never retried. */
  retries?: number;
  /** First retry delay, doubled each time (capped at 2 s); default 200 ms. */
  retryBaseMs?: number;
  /** The most an answer may hold (NODE_API_MAX_BYTES, default 16 MiB): a longer one is refused as it arrives. */
  maxBytes?: number;
  /** What is known of this node's API generation (shared by every client of the node); default: this client's own. */
  shapes?: NodeShapes;
  /** The node's image as the service gives it (`rln_commit_id`); a known commit tells the generation. */
  image?: string;
  /** Unix seconds now (expiries given as durations); default the clock. */
  nowSec?: () => number;
  /**
   * The node's turns (node-gates.ts), asked for at each request: every client of the node shares
   * them, so its requests in flight stay within NODE_CALLS_PER_NODE whoever sends them. Default: none.
   */
  gate?: () => NodeGate;
}

export function createNodeApiClient(opts: NodeApiClientOptions): NodeApiClient {
  /**
   * The transport for the current credentials: built again only when they change. At once when the
   * credentials are known at once (most calls): each promise and await of a node call is garbage,
   * and under Node 20's async hooks (AsyncLocalStorage) it costs more (docs/benchmarks.md, 2026-11-29).
   */
  let built: { creds: NodeCredentials; t: Transport } | undefined;
  function transport(): Transport | Promise<Transport> {
    const creds = typeof opts.credentials === 'function' ? opts.credentials() : opts.credentials;
    return creds instanceof Promise ? creds.then(transportFor) : transportFor(creds);
  }
  function transportFor(creds: NodeCredentials): Transport {
    if (built?.creds !== creds) {
      built?.t.close();
      built = { creds, t: buildTransport({ baseUrl: opts.baseUrl, credentials: creds }) };
    }
    return built.t;
  }
  const retries = opts.retries ?? 2;
  const baseDelay = opts.retryBaseMs ?? 200;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const maxBytes = opts.maxBytes ?? NODE_API_MAX_BYTES;
  const who = opts.nodeName ?? 'the node';

  const shapes = opts.shapes ?? new NodeShapes();
  shapes.seenImage(opts.image);
  const nowSec = opts.nowSec ?? (() => Math.floor(Date.now() / 1000));

  /**
   * One request, its answer read up to maxBytes; `attemptMs` bounds it, the answer's reading
   * included. Rejects with AttemptTimeout, HttpStatusError (4xx, 5xx), CutOff (the answer began and
   * the connection failed), a network error, or a NodeApiError (a redirect, an answer too long).
   */
  async function once(
    name: EndpointName,
    method: 'GET' | 'POST',
    path: string,
    requestBody: string | FormData | undefined,
    attemptMs: number,
  ): Promise<string> {
    const pending = transport();
    const t = pending instanceof Promise ? await pending : pending;
    if (t.tlsError) throw new NodeApiError({ endpoint: name, kind: 'credentials', message: `node API /${name}: ${t.tlsError}` });
    let headers = requestBody === undefined ? t.headers : t.jsonHeaders;
    let body: string | Buffer | undefined;
    if (requestBody instanceof FormData) {
      // The multipart form as bytes, with its boundary (uploads are rare and small).
      const form = new Response(requestBody);
      body = Buffer.from(await form.arrayBuffer());
      headers = { ...t.headers, 'content-type': form.headers.get('content-type') ?? 'multipart/form-data' };
    } else body = requestBody;
    const abort = new AttemptAbort();
    const timer = setTimeout(() => abort.abort(new AttemptTimeout(attemptMs)), attemptMs);
    try {
      const res = await (t.target
        ? t.dispatcher.request({ origin: t.target.origin, path: t.target.basePath + path, method, headers, body, signal: abort })
        : request(t.baseUrl + path, { dispatcher: t.dispatcher, method, headers, body, signal: abort }));
      let text: string | undefined;
      try {
        text = await readBounded(res.body, res.headers['content-length'], maxBytes);
      } catch (e) {
        throw e instanceof AttemptTimeout ? e : new CutOff(e);
      }
      if (text === undefined) {
        throw new NodeApiError({
          endpoint: name,
          kind: 'malformed',
          message: `node API /${name} answered more than ${sizeText(maxBytes)} (NODE_API_MAX_BYTES); the answer was refused unread`,
        });
      }
      if (res.statusCode >= 400) throw new HttpStatusError(res.statusCode, res.statusText, res.headers, text);
      if (res.statusCode >= 300) {
        throw new NodeApiError({
          endpoint: name,
          kind: 'http',
          status: res.statusCode,
          message: `node API /${name} answered a redirect (${res.statusCode}), which is not followed`,
        });
      }
      return text;
    } catch (e) {
      // undici rejects with the abort's reason.
      if (abort.aborted && !(e instanceof NodeApiError)) throw abort.reason;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A request, with its retries (idempotent reads only, on network errors and 5xx). Under a deadline
   * (`currentDeadline`: a command's interaction, a poll, a report) no attempt gets more than what is
   * left of it, and a retry starts only when at least MIN_RETRY_MS would be left for it after its delay.
   */
  async function send(
    name: EndpointName,
    method: 'GET' | 'POST',
    path: string,
    idempotent: boolean,
    requestBody: string | FormData | undefined,
  ): Promise<string> {
    const deadline = currentDeadline();
    const timedOut = (ms: number) =>
      new NodeApiError({ endpoint: name, kind: 'timeout', message: `${who} did not answer in ${secondsText(ms)} (node API /${name})` });
    for (let attempt = 1; ; attempt++) {
      let left = deadline ? deadline.left() : Number.POSITIVE_INFINITY;
      if (left <= 0) throw timedOut(deadline!.ms);
      // A turn among the node's requests in flight, waited for no longer than an attempt may last.
      const turn = opts.gate && turnAt(opts.gate(), name, Math.min(timeoutMs, left), deadline);
      const release = turn instanceof Promise ? await turn : turn;
      if (release && deadline) left = deadline.left();
      const attemptMs = Math.max(1, Math.ceil(Math.min(timeoutMs, left)));
      let delay: number;
      try {
        return await once(name, method, path, requestBody, attemptMs);
      } catch (e) {
        if (e instanceof NodeApiError) throw e;
        // The deadline cut the attempt: the node's name and the deadline, as the person waited for it.
        if (e instanceof AttemptTimeout && deadline && deadline.left() < DEADLINE_SLACK_MS) throw timedOut(deadline.ms);
        const err = e instanceof AttemptTimeout ? timedOut(attemptMs) : translate(name, e);
        // A locked node was restarted or upgraded: what was learnt of its API may be stale.
        if (err.rlnName === 'LockedNode') shapes.forget();
        const retryIn = idempotent && attempt <= retries ? retryDelay(e, attempt, baseDelay) : undefined;
        if (retryIn === undefined) throw err;
        if (deadline && deadline.left() - retryIn < MIN_RETRY_MS) throw err;
        delay = retryIn;
      } finally {
        // Given back before a retry's delay, which holds none.
        release?.();
      }
      await sleep(delay);
    }
  }

  /**
   * A turn at the node's gate within `waitMs` (at once when one is free: no promise); else the
   * node's timeout, saying why nothing was sent.
   */
  function turnAt(
    gate: NodeGate,
    name: EndpointName,
    waitMs: number,
    deadline: ReturnType<typeof currentDeadline>,
  ): (() => void) | Promise<() => void> {
    const turn = gate.acquire(waitMs);
    if (typeof turn === 'function') return turn;
    return turn.catch((e: unknown) => {
      if (!(e instanceof GateWaitTimeout)) throw e;
      const ms = deadline && deadline.left() < DEADLINE_SLACK_MS ? deadline.ms : e.waitedMs;
      throw new NodeApiError({
        endpoint: name,
        kind: 'timeout',
        message: `${who} did not answer in ${secondsText(ms)}: its ${e.limit} earlier requests from this bot were still unanswered, so this one was not sent (node API /${name})`,
      });
    });
  }

  /** Asks the node which shape a capability takes, with a request it refuses before acting. */
  async function probe(cap: Capability): Promise<ApiShape> {
    const p = PROBES[cap];
    const name = p.path.slice(1) as EndpointName;
    let status: number;
    let text: string;
    try {
      text = await send(name, 'POST', p.path, false, stringifyJson(p.body));
      status = 200;
    } catch (e) {
      if (!(e instanceof NodeApiError) || e.status === undefined) throw e;
      status = e.status;
      text = `${e.rlnName ?? ''} ${e.serviceMessage ?? e.message}`;
    }
    const shape = shapeFromProbe(cap, status, text);
    if (!shape) {
      throw new NodeApiError({
        endpoint: name,
        kind: 'http',
        status,
        message: `node API ${p.path}: cannot tell which API generation the node speaks (it answered ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''})`,
      });
    }
    shapes.set(cap, shape);
    return shape;
  }

  async function generation(cap: Capability): Promise<ApiShape> {
    return shapes.get(cap) ?? probe(cap);
  }

  /** A changed endpoint: the neutral request in the node's shape; a refusal that shows the other shape is sent again once in it. */
  async function callShaped(name: EndpointName & keyof typeof SHAPED, def: EndpointDef, body: unknown): Promise<unknown> {
    const neutral = encode(name, def.request, body).data;
    const spec = SHAPED[name] as { cap: Capability; build(shape: ApiShape, r: unknown, now: number): ShapedBody };
    const attempt = async (shape: ApiShape): Promise<unknown> => {
      let shaped: ShapedBody;
      try {
        shaped = spec.build(shape, neutral, nowSec());
      } catch (reason) {
        if (!(reason instanceof CannotSay)) throw reason;
        throw invalid(name, '(body)', reason.message);
      }
      const { requestBody } = encode(name, shaped.request, shaped.body);
      const text = await send(name, 'POST', shaped.path, def.idempotent, requestBody);
      return decode(name, shaped.response ?? def.response, text);
    };
    const shape = await generation(spec.cap);
    try {
      return await attempt(shape);
    } catch (e) {
      if (!(e instanceof NodeApiError)) throw e;
      const other = shapeFromRefusal(spec.cap, shape, e.status, e.serviceMessage ?? e.message);
      if (!other) throw e;
      // Refused before the node acted (a missing path or field): the node was upgraded, or the guess was wrong.
      shapes.set(spec.cap, other);
      return attempt(other);
    }
  }

  async function call(name: EndpointName, def: EndpointDef, body: unknown): Promise<unknown> {
    if (isShaped(name)) return callShaped(name, def, body);
    const requestBody = def.method === 'POST' ? encode(name, def.request, body).requestBody : undefined;
    const text = await send(name, def.method, def.path, def.idempotent, requestBody);
    return decode(name, def.response, text);
  }

  async function checkGeneration(): Promise<GenerationCheck> {
    const expected = shapes.imageShape();
    shapes.forget();
    if (!expected) return { answers: await generation('send'), how: 'asked /sendrgb, which only 6887cbf has' };
    // A read the image's generation takes: on a node of the other, it is refused for the other's field,
    // which the client learns (and sends again in that shape, or cannot).
    const [cap, name, body, how]: [Capability, EndpointName, unknown, string] =
      expected === '6887cbf'
        ? ['listtransfers', 'listtransfers', {}, 'asked /listtransfers of every asset, which f379330 cannot']
        : ['listunspents', 'listunspents', { skip_sync: true }, 'asked /listunspents without settled_only, which 6887cbf refuses'];
    try {
      await call(name, endpoints[name], body);
    } catch (e) {
      if (shapes.get(cap) === expected) throw e;
    }
    return { expected, answers: shapes.get(cap) ?? expected, how };
  }

  function close(): void {
    built?.t.close();
    built = undefined;
  }

  return Object.assign(withEndpointMethods(call), { generation, checkGeneration, close }) as unknown as NodeApiClient;
}
