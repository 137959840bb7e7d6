/**
 * A fake Discord on loopback, speaking the wire format discord.js 14.28 uses (see
 * ../chat-platform-fakes.md): REST under /api/v10 and a gateway
 * WebSocket (hello, identify → READY, heartbeat ACKs, INTERACTION_CREATE). Every REST call is
 * recorded in order; failures (429, 5xx, JSON error codes) can be scripted. A message payload
 * Discord would refuse (./message-payload.ts: a V2 card with content, too many components…) is
 * answered 400 Invalid Form Body (code 50035), as Discord answers it, and listed in `rejected`.
 *
 * A create-message `nonce` is checked as Discord checks it (an integer or a string of at most 25
 * characters, else 400 50035), and with `enforce_nonce: true` a nonce the same author used in the
 * last NONCE_WINDOW_MS returns the message made then, and makes none (discord-api-types:
 * "that message will be returned and no new message will be created"). `hold` lets a test have
 * the fake make a message but keep its answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { messagePayloadProblems, requestFileNames, type PayloadContext } from './message-payload.js';
import {
  messageObject,
  NONCE_MAX,
  NONCE_WINDOW_MS,
  snowflake,
  fakeUser,
  type FakeDiscord,
  type GatewayOp,
  type RecordedCall,
  type ScriptedFailure,
} from './records.js';

export { NONCE_WINDOW_MS, snowflake, fakeUser } from './records.js';
export type { FakeDiscord, GatewayOp, HeldAnswers, RecordedCall, ScriptedFailure } from './records.js';

export async function startFakeDiscord(
  opts: {
    applicationId?: string;
    botUserId?: string;
    /** The bot token an identify must carry; the fake records `tokenOk` on the identify op. */
    expectedToken?: string;
  } = {},
): Promise<FakeDiscord> {
  const applicationId = opts.applicationId ?? snowflake();
  const botUserId = opts.botUserId ?? applicationId;
  const bot = { ...fakeUser(botUserId, 'rln-bot'), bot: true };
  const calls: RecordedCall[] = [];
  const gatewayOps: GatewayOp[] = [];
  /** Registered command names by scope: 'global' or a guild id. */
  const registered = new Map<string, string[]>();
  const failures: ScriptedFailure[] = [];
  const goneChannels = new Set<string>();
  /** message id → channel id, for messages the fake created. */
  const messages = new Map<string, string>();
  /** Flags and attached file names of messages the fake created, for edits. */
  const messageState = new Map<string, { flags: number; files: string[] }>();
  /** Interaction id → flags of the message its component was clicked on. */
  const clickedFlags = new Map<string, number>();
  const rejected: FakeDiscord['rejected'] = [];
  /** `author id:nonce` → the message made with it (enforce_nonce), and when. */
  const nonces = new Map<string, { at: number; message: ReturnType<typeof messageObject> }>();
  const holds: Array<{ method: string; path: RegExp; held: Array<() => void>; released: boolean }> = [];
  const threads = new Set<string>();
  const waiters: Array<() => void> = [];
  const sockets = new Set<WebSocket>();
  const identifiedSockets = new Set<WebSocket>();
  let identifyWaiters: Array<() => void> = [];
  let seq = 0;
  let gatewaySeq = 1;

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    });
    res.end(text);
  };

  const unknownChannel = (res: ServerResponse) => send(res, 404, { message: 'Unknown Channel', code: 10003 });

  function route(method: string, path: string, body: any, res: ServerResponse, files: RecordedCall['files']): void {
    let m: RegExpMatchArray | null;
    /** False (and a 400 sent) when Discord would refuse the payload. */
    const valid = (payload: unknown, ctx: Partial<PayloadContext> = {}): boolean => {
      const problems = messagePayloadProblems(payload, { ...ctx, files: [...requestFileNames(payload, files), ...(ctx.files ?? [])] });
      if (!problems.length) return true;
      rejected.push({ seq, method, path, problems });
      send(res, 400, {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { _errors: problems.map((message) => ({ code: 'BASE_TYPE_INVALID', message })) },
      });
      return false;
    };
    if (method === 'GET' && path === '/gateway/bot') {
      return send(res, 200, {
        url: gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/gateway') return send(res, 200, { url: gatewayUrl });
    if (method === 'GET' && path === '/users/@me') return send(res, 200, bot);
    if (method === 'POST' && (m = path.match(/^\/interactions\/([^/]+)\/([^/]+)\/callback$/))) {
      // 4: a reply; 7: an update of the message clicked, which keeps a V2 flag it has.
      if (body?.type === 4 && !valid(body.data)) return;
      if (body?.type === 7 && !valid(body.data, { editedFlags: clickedFlags.get(m[1]) })) return;
      return send(res, 204);
    }
    if ((m = path.match(/^\/webhooks\/([^/]+)\/([^/]+)\/messages\/([^/]+)$/))) {
      const id = m[3] === '@original' ? snowflake() : m[3];
      if (method === 'PATCH' && !valid(body)) return;
      if (method === 'PATCH' || method === 'GET') return send(res, 200, messageObject('0', id, body, bot, m[1]));
      if (method === 'DELETE') return send(res, 204);
    }
    if (method === 'POST' && (m = path.match(/^\/webhooks\/([^/]+)\/([^/]+)$/))) {
      if (!valid(body)) return;
      return send(res, 200, messageObject('0', snowflake(), body, bot, m[1]));
    }
    if (method === 'POST' && (m = path.match(/^\/channels\/([^/]+)\/messages\/([^/]+)\/threads$/))) {
      const [, channelId, messageId] = m;
      if (goneChannels.has(channelId)) return unknownChannel(res);
      if (messages.get(messageId) !== channelId) return send(res, 404, { message: 'Unknown Message', code: 10008 });
      if (threads.has(messageId)) return send(res, 400, { message: 'A thread has already been created for this message', code: 160004 });
      threads.add(messageId);
      return send(res, 201, { id: messageId, type: 11, parent_id: channelId, name: body?.name ?? '', guild_id: '1' });
    }
    if ((m = path.match(/^\/channels\/([^/]+)\/messages$/)) && method === 'POST') {
      const channelId = m[1];
      // A message id is a channel only once a thread was started from it.
      if (goneChannels.has(channelId) || (messages.has(channelId) && !threads.has(channelId))) return unknownChannel(res);
      const nonce = body?.nonce;
      if (nonce !== undefined && nonce !== null) {
        const bad =
          typeof nonce === 'string'
            ? nonce.length > NONCE_MAX
              ? `Must be ${NONCE_MAX} or fewer in length.`
              : undefined
            : Number.isInteger(nonce)
              ? undefined
              : 'Value must be a string or an integer.';
        if (bad) {
          rejected.push({ seq, method, path, problems: [`nonce: ${bad}`] });
          return send(res, 400, {
            message: 'Invalid Form Body',
            code: 50035,
            errors: { nonce: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: bad }] } },
          });
        }
      }
      if (!valid(body)) return;
      const nonceKey = body?.enforce_nonce === true && nonce !== undefined && nonce !== null ? `${bot.id}:${String(nonce)}` : undefined;
      const earlier = nonceKey ? nonces.get(nonceKey) : undefined;
      if (earlier && Date.now() - earlier.at < NONCE_WINDOW_MS) return send(res, 200, earlier.message);
      const id = snowflake();
      messages.set(id, channelId);
      messageState.set(id, { flags: Number(body?.flags ?? 0), files: requestFileNames(body, files) });
      const made = { ...messageObject(channelId, id, body, bot), ...(nonce !== undefined ? { nonce } : {}) };
      if (nonceKey) nonces.set(nonceKey, { at: Date.now(), message: made });
      return send(res, 200, made);
    }
    if ((m = path.match(/^\/channels\/([^/]+)\/messages\/([^/]+)$/)) && method === 'PATCH') {
      const [, channelId, messageId] = m;
      if (goneChannels.has(channelId)) return unknownChannel(res);
      if (messages.get(messageId) !== channelId) return send(res, 404, { message: 'Unknown Message', code: 10008 });
      const state = messageState.get(messageId) ?? { flags: 0, files: [] };
      if (!valid(body, { editedFlags: state.flags, files: state.files })) return;
      if (body?.flags !== undefined) state.flags = Number(body.flags) | (state.flags & (1 << 15));
      messageState.set(messageId, state);
      return send(res, 200, messageObject(channelId, messageId, { ...body, flags: state.flags }, bot));
    }
    if (method === 'PUT' && (m = path.match(/^\/applications\/([^/]+)(?:\/guilds\/([^/]+))?\/commands$/))) {
      const list = Array.isArray(body) ? body : [];
      // Bulk overwrite, as Discord does: the list replaces every command of that scope.
      registered.set(
        m[2] ?? 'global',
        list.map((c: any) => String(c.name)),
      );
      return send(
        res,
        200,
        list.map((c: any) => ({ ...c, id: snowflake(), application_id: m![1], version: snowflake() })),
      );
    }
    send(res, 404, { message: `the fake Discord has no route ${method} ${path}`, code: 0 });
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // Node ignores the listener's promise: a throw while answering stays an unhandled rejection, which fails the test run.
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://fake');
        const raw = url.pathname.replace(/^\/api\/v\d+/, '');
        const path = raw
          .split('/')
          .map((s) => decodeURIComponent(s))
          .join('/');
        const contentType = String(req.headers['content-type'] ?? '');
        let files: RecordedCall['files'];
        let text = Buffer.concat(chunks).toString('utf8');
        if (contentType.startsWith('multipart/form-data')) {
          // As Discord reads it: the message in payload_json, each file in its own part.
          const form = await new Response(new Uint8Array(Buffer.concat(chunks)), { headers: { 'content-type': contentType } }).formData();
          const payload = form.get('payload_json');
          text = typeof payload === 'string' ? payload : '';
          files = [];
          for (const [field, v] of form.entries()) {
            if (typeof v === 'string') continue;
            files.push({ field, name: v.name, contentType: v.type, bytes: Buffer.from(await v.arrayBuffer()) });
          }
        }
        let body: any = undefined;
        if (text) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        const method = req.method ?? 'GET';
        calls.push({ seq: ++seq, method, path, body, authorization: req.headers.authorization, ...(files ? { files } : {}) });
        for (const w of waiters.splice(0)) w();
        const f = failures.find((x) => (!x.method || x.method === method) && x.path.test(path));
        if (f) {
          f.times = (f.times ?? 1) - 1;
          if (f.times <= 0) failures.splice(failures.indexOf(f), 1);
          return send(res, f.status, f.body ?? { message: `scripted failure ${f.status}`, code: 0 }, f.headers);
        }
        const hold = holds.find((h) => !h.released && h.method === method && h.path.test(path));
        if (!hold) return route(method, path, body, res, files);
        // The call is carried out; its answer waits for release.
        let answer: { status: number; headers: Record<string, unknown>; text?: string } | undefined;
        const deferred = {
          writeHead(status: number, headers: Record<string, unknown>) {
            answer = { status, headers };
            return deferred;
          },
          end(text?: string) {
            if (answer) answer.text = text;
          },
        } as unknown as ServerResponse;
        route(method, path, body, deferred, files);
        hold.held.push(() => {
          if (!answer || res.destroyed) return;
          res.writeHead(answer.status, answer.headers as Record<string, string>);
          res.end(answer.text);
        });
      })();
    });
  });

  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => {
      sockets.delete(ws);
      identifiedSockets.delete(ws);
    });
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 }, s: null, t: null }));
    ws.on('message', (data) => {
      let p: { op: number; d?: any };
      try {
        p = JSON.parse(
          (Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? Buffer.from(data) : data).toString('utf8'),
        );
      } catch {
        return;
      }
      if (p.op === 2) {
        // The token itself is never kept, only whether it was the one expected.
        const tokenOk = opts.expectedToken === undefined ? undefined : p.d?.token === opts.expectedToken;
        gatewayOps.push({ op: p.op, d: { ...p.d, token: '[redacted]' }, ...(tokenOk === undefined ? {} : { tokenOk }) });
      } else {
        gatewayOps.push({ op: p.op, d: p.d });
      }
      if (p.op === 1) ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      // A resume (after a dropped connection) is answered as Discord does, with RESUMED.
      if (p.op === 6) {
        ws.send(JSON.stringify({ op: 0, t: 'RESUMED', s: gatewaySeq++, d: {} }));
        identifiedSockets.add(ws);
      }
      if (p.op === 2) {
        ws.send(
          JSON.stringify({
            op: 0,
            t: 'READY',
            s: gatewaySeq++,
            d: {
              v: 10,
              user: { ...bot, verified: true, mfa_enabled: false, flags: 0 },
              guilds: [],
              session_id: `session-${snowflake()}`,
              resume_gateway_url: gatewayUrl,
              application: { id: applicationId, flags: 0 },
              shard: [0, 1],
            },
          }),
        );
        identifiedSockets.add(ws);
        for (const w of identifyWaiters) w();
        identifyWaiters = [];
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let gatewayUrl = `ws://127.0.0.1:${port}`;

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    get gatewayUrl() {
      return gatewayUrl;
    },
    advertiseGateway(url) {
      gatewayUrl = url;
    },
    applicationId,
    botUserId,
    calls,
    rejected,
    gatewayOps,
    goneChannels,
    channelMessages: (channelId) => [...messages].filter(([, c]) => c === channelId).map(([id]) => id),
    hold(method, path) {
      const h = { method, path, held: [] as Array<() => void>, released: false };
      holds.push(h);
      return {
        release() {
          h.released = true;
          for (const answer of h.held.splice(0)) answer();
        },
      };
    },
    registeredCommands: (guildId) => [...(registered.get(guildId ?? 'global') ?? [])],
    fail: (f) => failures.push({ ...f }),
    async sendInteraction(d) {
      const payload = {
        version: 1,
        application_id: applicationId,
        entitlements: [],
        authorizing_integration_owners: {},
        locale: 'en-US',
        app_permissions: '0',
        attachment_size_limit: 8_388_608,
        ...d,
      };
      const clicked = (d as { id?: string; message?: { flags?: number } }).message;
      if (typeof d.id === 'string' && clicked) clickedFlags.set(d.id, Number(clicked.flags ?? 0));
      const frame = JSON.stringify({ op: 0, t: 'INTERACTION_CREATE', s: gatewaySeq++, d: payload });
      if (!identifiedSockets.size) throw new Error('no gateway client has identified yet');
      for (const ws of identifiedSockets) ws.send(frame);
    },
    waitForCall(pred, o = {}) {
      const from = o.from ?? 0;
      // At least 30 s, as test/support/wait-for.ts: the wait ends when the call comes, and on a busy
      // machine a shorter bound failed tests that were right.
      const timeoutMs = Math.max(o.timeoutMs ?? 0, 30_000);
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = calls.find((c) => c.seq > from && pred(c));
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
            return true;
          }
          return false;
        };
        const loop = () => {
          if (!check()) waiters.push(loop);
        };
        const timer = setTimeout(() => {
          const i = waiters.indexOf(loop);
          if (i >= 0) waiters.splice(i, 1);
          reject(
            new Error(
              `no matching Discord call after ${timeoutMs} ms; calls: ${calls
                .slice(-10)
                .map((c) => `${c.method} ${c.path}`)
                .join(', ')}`,
            ),
          );
        }, timeoutMs);
        loop();
      });
    },
    gatewaySessions() {
      return identifiedSockets.size;
    },
    identified() {
      if (identifiedSockets.size) return Promise.resolve();
      return new Promise((resolve) => identifyWaiters.push(resolve));
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
