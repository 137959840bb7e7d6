/**
 * A fake Slack on loopback that speaks the wire format the real @slack/bolt 5 talks:
 * - the Web API: POST <apiUrl><method>, form-encoded (object fields as JSON strings) or JSON;
 * - response_url endpoints that record respond() posts;
 * - a Socket Mode WebSocket server: hello, envelopes, acks;
 * - every call, respond, envelope and ack in one ordered timeline, for order assertions.
 * Failures are scripted per method: 429 with Retry-After, 5xx, or `{ok:false, error}`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { waitFor } from '../../support/wait-for.js';
import { messageTableProblems } from './table-blocks.js';

export interface ApiCall {
  method: string;
  args: Record<string, any>;
  seq: number;
  /** When the call arrived (ms since the epoch). */
  at: number;
  /** The client's name when it called through `apiUrlFor(name)` (several bots on one fake). */
  via?: string;
  /** Set once the answer was written: a call left false when its client died was in flight. */
  answered: boolean;
}

export interface RespondCall {
  /** The response_url id (`/respond/<id>`). */
  id: string;
  body: Record<string, any>;
  seq: number;
}

export type TimelineEntry =
  | { kind: 'api'; method: string; seq: number }
  | { kind: 'respond'; id: string; seq: number }
  | { kind: 'envelope'; envelopeId: string; type: string; seq: number }
  | { kind: 'ack'; envelopeId: string; seq: number }
  | { kind: 'http_ack'; status: number; seq: number };

/** A file uploaded through files.getUploadURLExternal → upload URL → files.completeUploadExternal. */
export interface FakeUpload {
  fileId: string;
  filename: string;
  /** The length announced to getUploadURLExternal. */
  length: number;
  altText?: string;
  /** The bytes POSTed to the upload URL (undefined until then). */
  bytes?: Buffer;
  /** Set by completeUploadExternal. */
  title?: string;
  channelId?: string;
  threadTs?: string;
  completed: boolean;
}

export type ScriptedFailure = { status: 429; retryAfter: number | string } | { status: 500 | 502 | 503 } | { error: string };

export interface FakeSlack {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Give this as SLACK_API_URL: `http://127.0.0.1:PORT/api/`. */
  apiUrl: string;
  /** The Web API for one of several clients (replicas): its calls carry `via: name`. */
  apiUrlFor(name: string): string;
  teamId: string;
  botUserId: string;
  calls: ApiCall[];
  responds: RespondCall[];
  timeline: TimelineEntry[];
  /** What usergroups.list answers (include_users). Mutable. */
  userGroups: Array<{ id: string; users: string[] }>;
  /** Views opened (views.open / views.update / response_action update), newest last. */
  views: Array<Record<string, any>>;
  /** Every file upload started, in order; `completed` once shared into a channel. */
  uploads: FakeUpload[];
  /** Channels the bot is not a member of: sharing a file there answers not_in_channel until it joins. */
  notMemberOf: Set<string>;
  /** Private channels: conversations.join answers method_not_supported_for_channel_type. */
  privateChannels: Set<string>;
  /** Resolves with the completed uploads once there are at least `n`. */
  waitForUploads(n?: number, timeoutMs?: number): Promise<FakeUpload[]>;
  /** Makes a response_url answer 404 from now on, as an expired one does. */
  expireResponseUrl(url: string): void;
  /** A fresh response_url pointing at this fake. */
  responseUrl(): string;
  /** The next `times` calls of `method` fail this way. */
  fail(method: string, failure: ScriptedFailure, times?: number): void;
  /**
   * Calls of `method` from now on are carried out (recorded) but not answered until `release()`,
   * as a Slack slow to answer: the client does not know yet whether its post was made.
   */
  hold(method: string): { release(): void };
  callsTo(method: string): ApiCall[];
  respondsTo(url: string): RespondCall[];
  /** Records something that happened on the test's side (an HTTP-mode answer) in the timeline. */
  mark(entry: { kind: 'http_ack'; status: number }): void;
  /** Resolves once a Socket Mode client is connected (hello sent). */
  connected(): Promise<void>;
  /** Sends an envelope to the connected client; resolves with the ack's payload (or undefined). */
  sendEnvelope(type: 'slash_commands' | 'interactive' | 'events_api', payload: Record<string, any>): Promise<any>;
  /** Resolves with the calls of `method` once there are at least `n`. */
  waitForCalls(method: string, n?: number): Promise<ApiCall[]>;
  /** Resolves with the respond() posts to `url` once there are at least `n`. */
  waitForResponds(url: string, n?: number): Promise<RespondCall[]>;
  /** Socket Mode connections accepted so far. */
  readonly connectionCount: number;
  /** Asks the client to reconnect. */
  disconnectClients(): void;
  /** The Socket Mode URL apps.connections.open gives out (default its own): a test puts a relay in front with this. */
  advertiseSocket(wsBase: string): void;
  close(): Promise<void>;
}

function parseForm(raw: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (/^[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v);
        continue;
      } catch {
        /* keep the string */
      }
    }
    out[k] = v;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The file in an upload POST: the raw body, or the `file` part of a multipart form (both are accepted by Slack). */
async function uploadedBytes(raw: Buffer, contentType: string): Promise<Buffer> {
  if (!contentType.startsWith('multipart/form-data')) return raw;
  const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  const part = form.get('file') ?? form.get('filename');
  if (part && typeof part !== 'string') return Buffer.from(await part.arrayBuffer());
  return Buffer.from(String(part ?? ''), 'utf8');
}

/** How long Slack waits for an acknowledgement (slash commands, interactions, options). */
export const SLACK_ACK_DEADLINE_MS = 3_000;

export async function startFakeSlack(
  opts: { teamId?: string; botUserId?: string /** Web API answers wait this long (posts stay in flight). */; answerDelayMs?: number } = {},
): Promise<FakeSlack> {
  const teamId = opts.teamId ?? 'T0TEST';
  const botUserId = opts.botUserId ?? 'UBOT';
  let seq = 0;
  let tsCounter = 1_700_000_000;
  let viewCounter = 0;
  let respondCounter = 0;
  let envelopeCounter = 0;
  const calls: ApiCall[] = [];
  const responds: RespondCall[] = [];
  const timeline: TimelineEntry[] = [];
  const views: Array<Record<string, any>> = [];
  const uploads: FakeUpload[] = [];
  const notMemberOf = new Set<string>();
  const privateChannels = new Set<string>();
  let fileCounter = 0;
  const failures = new Map<string, ScriptedFailure[]>();
  const holds = new Map<string, Promise<void>>();
  const expired = new Set<string>();
  const sockets = new Set<WebSocket>();
  const pendingAcks = new Map<string, (payload: any) => void>();
  let connectedWaiters: Array<() => void> = [];
  let helloSent = false;
  let base = '';
  let socketBase: string | undefined;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  function answer(method: string, args: Record<string, any>): Record<string, any> {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: 'Fake',
          user: 'rln',
          team_id: teamId,
          user_id: botUserId,
          bot_id: 'BBOT',
        };
      case 'chat.postMessage': {
        const invalid = messageTableProblems(args);
        if (invalid.length) return { ok: false, error: 'invalid_blocks', errors: invalid };
        const ts = `${tsCounter++}.000100`;
        return { ok: true, channel: args.channel, ts, message: { text: args.text, blocks: args.blocks, ts, thread_ts: args.thread_ts } };
      }
      case 'chat.update':
        if (messageTableProblems(args).length) return { ok: false, error: 'invalid_blocks', errors: messageTableProblems(args) };
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${tsCounter++}.000200` };
      case 'views.open':
      case 'views.update':
      case 'views.push': {
        const view = { id: `V${++viewCounter}`, ...(args.view as object) } as Record<string, any>;
        views.push(view);
        return { ok: true, view };
      }
      case 'views.publish': {
        const view = { id: `V${++viewCounter}`, user_id: args.user_id, ...(args.view as object) } as Record<string, any>;
        views.push(view);
        return { ok: true, view };
      }
      case 'files.getUploadURLExternal': {
        if (!args.filename || !Number(args.length)) return { ok: false, error: 'invalid_arguments' };
        const fileId = `F${String(++fileCounter).padStart(6, '0')}`;
        uploads.push({ fileId, filename: String(args.filename), length: Number(args.length), altText: args.alt_text, completed: false });
        return { ok: true, upload_url: `${base}/upload/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal': {
        const list = (Array.isArray(args.files) ? args.files : []) as Array<{ id: string; title?: string }>;
        const found = list.map((f) => uploads.find((u) => u.fileId === f.id));
        if (!list.length || found.some((u) => !u || !u.bytes)) return { ok: false, error: 'invalid_arguments' };
        if (args.channel_id && notMemberOf.has(String(args.channel_id))) return { ok: false, error: 'not_in_channel' };
        // A user id is not a channel: a direct message has its own D… id (conversations.open).
        if (/^[UW]/.test(String(args.channel_id ?? ''))) return { ok: false, error: 'channel_not_found' };
        list.forEach((f, i) =>
          Object.assign(found[i]!, { title: f.title, channelId: args.channel_id, threadTs: args.thread_ts, completed: true }),
        );
        return { ok: true, files: list.map((f) => ({ id: f.id, title: f.title })) };
      }
      case 'conversations.open': {
        const user = String(args.users ?? '');
        if (!/^[UW][A-Z0-9]+$/.test(user)) return { ok: false, error: 'user_not_found' };
        return { ok: true, channel: { id: `D${user.slice(1)}` } };
      }
      case 'conversations.join': {
        const channel = String(args.channel ?? '');
        if (/^[UWD]/.test(channel)) return { ok: false, error: 'channel_not_found' };
        if (privateChannels.has(channel)) return { ok: false, error: 'method_not_supported_for_channel_type' };
        notMemberOf.delete(channel);
        return { ok: true, channel: { id: channel } };
      }
      case 'usergroups.list':
        return {
          ok: true,
          usergroups: fake.userGroups.map((g) => ({
            id: g.id,
            handle: g.id.toLowerCase(),
            users: args.include_users ? g.users : undefined,
          })),
        };
      case 'apps.connections.open':
        return { ok: true, url: `${socketBase ?? base.replace(/^http/, 'ws')}/socket` };
      default:
        return { ok: true };
    }
  }

  // node's http does not await a handler; this one answers on every path (404 and 400 included).
  const server: Server = createServer(
    (req, res) =>
      void (async () => {
        try {
          const url = new URL(req.url ?? '/', 'http://x');
          const bytes = await readBody(req);
          if (req.method === 'POST' && url.pathname.startsWith('/upload/')) {
            const upload = uploads.find((u) => u.fileId === url.pathname.slice('/upload/'.length));
            if (!upload) {
              res.writeHead(404, { 'content-type': 'text/plain' });
              return res.end('not found');
            }
            upload.bytes = await uploadedBytes(bytes, String(req.headers['content-type'] ?? ''));
            res.writeHead(200, { 'content-type': 'text/plain' });
            return res.end(`OK - ${upload.bytes.length}`);
          }
          const raw = bytes.toString('utf8');
          const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
          const body = type === 'application/json' ? (raw ? JSON.parse(raw) : {}) : parseForm(raw);
          const api = /^(?:\/via\/([\w-]+))?\/api\/(.+)$/.exec(url.pathname);
          if (req.method === 'POST' && api) {
            const method = api[2];
            const call: ApiCall = { method, args: body, seq: ++seq, at: Date.now(), via: api[1], answered: false };
            res.on('finish', () => (call.answered = true));
            if (opts.answerDelayMs) await new Promise((r) => setTimeout(r, opts.answerDelayMs));
            if (res.destroyed) return;
            calls.push(call);
            timeline.push({ kind: 'api', method, seq: call.seq });
            const held = holds.get(method);
            if (held) await held;
            const queue = failures.get(method);
            const failure = queue?.shift();
            if (failure) {
              if ('error' in failure) return json(res, 200, { ok: false, error: failure.error });
              if (failure.status === 429)
                return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
              return json(res, failure.status, { ok: false, error: 'internal_error' });
            }
            return json(res, 200, answer(method, body));
          }
          if (req.method === 'POST' && url.pathname.startsWith('/respond/')) {
            const id = url.pathname.slice('/respond/'.length);
            if (expired.has(id)) {
              res.writeHead(404, { 'content-type': 'text/plain' });
              return res.end('expired_url');
            }
            // Slack refuses a response with broken table blocks (400 invalid_blocks) and shows nothing.
            const invalid = messageTableProblems(body);
            if (invalid.length) return json(res, 400, { ok: false, error: 'invalid_blocks', errors: invalid });
            const r: RespondCall = { id, body, seq: ++seq };
            responds.push(r);
            timeline.push({ kind: 'respond', id, seq: r.seq });
            return json(res, 200, { ok: true });
          }
          json(res, 404, { ok: false, error: 'unknown_path' });
        } catch (e) {
          json(res, 400, { ok: false, error: 'invalid_request', detail: (e as Error).message });
        }
      })(),
  );

  const wss = new WebSocketServer({ server });
  let connectionCount = 0;
  wss.on('connection', (ws) => {
    connectionCount++;
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      let msg: any;
      try {
        msg = JSON.parse((data as Buffer).toString('utf8'));
      } catch {
        return;
      }
      if (msg && typeof msg.envelope_id === 'string') {
        timeline.push({ kind: 'ack', envelopeId: msg.envelope_id, seq: ++seq });
        const resolve = pendingAcks.get(msg.envelope_id);
        pendingAcks.delete(msg.envelope_id);
        resolve?.(msg.payload);
      }
    });
    ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake' }, connection_info: { app_id: 'AFAKE' } }));
    helloSent = true;
    const waiters = connectedWaiters;
    connectedWaiters = [];
    // Give the client a tick to process the hello before anyone sends envelopes.
    setTimeout(() => waiters.forEach((w) => w()), 20);
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeSlack = {
    url: base,
    apiUrl: `${base}/api/`,
    apiUrlFor: (name) => `${base}/via/${name}/api/`,
    teamId,
    botUserId,
    calls,
    responds,
    timeline,
    views,
    uploads,
    notMemberOf,
    privateChannels,
    waitForUploads(n = 1, timeoutMs = 10_000) {
      const done = () => uploads.filter((u) => u.completed);
      return waitFor(() => done().length >= n && done(), { timeout: timeoutMs, what: `${n} completed file upload(s)` });
    },
    userGroups: [],
    expireResponseUrl(u) {
      expired.add(u.slice(u.lastIndexOf('/') + 1));
    },
    responseUrl: () => `${base}/respond/${++respondCounter}`,
    fail(method, failure, times = 1) {
      const q = failures.get(method) ?? [];
      for (let i = 0; i < times; i++) q.push(failure);
      failures.set(method, q);
    },
    hold(method) {
      let release!: () => void;
      holds.set(method, new Promise<void>((r) => (release = r)));
      return {
        release() {
          holds.delete(method);
          release();
        },
      };
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    respondsTo: (u) => responds.filter((r) => u.endsWith(`/respond/${r.id}`)),
    mark(entry) {
      timeline.push({ ...entry, seq: ++seq });
    },
    connected() {
      if (helloSent && sockets.size) return Promise.resolve();
      return new Promise((r) => connectedWaiters.push(r));
    },
    sendEnvelope(type, payload) {
      const ws = [...sockets].at(-1);
      if (!ws) return Promise.reject(new Error('no Socket Mode client is connected'));
      const envelopeId = `env-${++envelopeCounter}`;
      // Slack gives up on an envelope not acknowledged within 3 s (the user sees an error).
      const acked = new Promise<any>((resolve, reject) => {
        const timer = setTimeout(() => {
          pendingAcks.delete(envelopeId);
          reject(new Error(`fake Slack: envelope ${envelopeId} (${type}) was not acknowledged within ${SLACK_ACK_DEADLINE_MS} ms`));
        }, SLACK_ACK_DEADLINE_MS);
        pendingAcks.set(envelopeId, (p) => {
          clearTimeout(timer);
          resolve(p);
        });
      });
      timeline.push({ kind: 'envelope', envelopeId, type, seq: ++seq });
      ws.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: type !== 'events_api' }));
      return acked;
    },
    waitForCalls(method, n = 1) {
      return waitFor(() => fake.callsTo(method).length >= n && fake.callsTo(method), {
        timeout: 5_000,
        what: `fake Slack: ${n} ${method} call(s)`,
      });
    },
    waitForResponds(url, n = 1) {
      return waitFor(() => fake.respondsTo(url).length >= n && fake.respondsTo(url), {
        timeout: 5_000,
        what: `fake Slack: ${n} respond() post(s)`,
      });
    },
    get connectionCount() {
      return connectionCount;
    },
    advertiseSocket(wsBase) {
      socketBase = wsBase;
    },
    disconnectClients() {
      for (const ws of sockets) ws.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested' }));
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}
