// Shared test helpers of the notify and webhooks rooms: a recording ChatPoster, a fake hosting
// client, a notifier over a temporary SQLite file, and a receiving HTTP server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { PostError, type ChatPoster, type PostTarget } from '../../src/vocabulary/chat.js';
import type { Message } from '../../src/vocabulary/message.js';
import { summaryOf, inlineToPlain } from '../../src/vocabulary/message.js';
import type { Actor, Place, Platform } from '../../src/vocabulary/actors.js';
import type { HostingClient, HostedNode } from '../../src/hosting/index.js';
import { createHttpServer } from '../../src/http/server.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../../src/notify/index.js';
import { openDatabase, type Db } from '../../src/store/index.js';
import { dedupeKeyOf } from '../../src/webhooks/index.js';

export interface PostCall {
  kind: 'post' | 'update';
  target: PostTarget & { messageId?: string };
  message: Message;
  messageId: string;
  at: number;
}

/** A ChatPoster that records every call; failures can be scripted per call. */
export class RecordingPoster implements ChatPoster {
  calls: PostCall[] = [];
  attempts: Array<{ kind: 'post' | 'update'; channelId: string; at: number }> = [];
  private failures: Array<{ err: () => Error; times: number; channelId?: string }> = [];
  private n = 0;
  constructor(readonly platform: Platform = 'slack') {}

  failNext(err: () => Error, times = 1, channelId?: string): void {
    this.failures.push({ err, times, channelId });
  }

  private maybeFail(channelId: string): void {
    const f = this.failures.find((x) => x.times > 0 && (!x.channelId || x.channelId === channelId));
    if (f) {
      f.times--;
      throw f.err();
    }
  }

  async post(target: PostTarget, message: Message) {
    this.attempts.push({ kind: 'post', channelId: target.channelId, at: Date.now() });
    this.maybeFail(target.channelId);
    for (const b of message.buttons ?? []) if (!b.id) throw new Error('button without id');
    const messageId = `m${++this.n}`;
    this.calls.push({ kind: 'post', target, message, messageId, at: Date.now() });
    return { messageId, threadId: target.threadId ?? messageId };
  }

  async update(target: { channelId: string; messageId: string }, message: Message) {
    this.attempts.push({ kind: 'update', channelId: target.channelId, at: Date.now() });
    this.maybeFail(target.channelId);
    this.calls.push({ kind: 'update', target, message, messageId: target.messageId, at: Date.now() });
  }

  posts(channelId?: string) {
    return this.calls.filter((c) => c.kind === 'post' && (!channelId || c.target.channelId === channelId));
  }
  topLevel(channelId?: string) {
    return this.posts(channelId).filter((c) => !c.target.threadId);
  }
  threadPosts(threadId: string) {
    return this.posts().filter((c) => c.target.threadId === threadId);
  }
  updates(messageId?: string) {
    return this.calls.filter((c) => c.kind === 'update' && (!messageId || c.target.messageId === messageId));
  }
}

/** All the text of a message, for assertions. */
export function textOf(m: Message): string {
  const parts: string[] = [m.header ?? '', summaryOf(m)];
  for (const b of m.blocks) {
    if (b.type === 'text' || b.type === 'context') parts.push(inlineToPlain(b.text));
    if (b.type === 'fields') for (const f of b.fields) parts.push(`${f.label}: ${inlineToPlain(f.value)}`);
    if (b.type === 'table') for (const r of b.table.rows) parts.push(r.join(' | '));
    if (b.type === 'code') parts.push(b.text);
  }
  for (const btn of m.buttons ?? []) parts.push(`[${btn.label}]`);
  return parts.join('\n');
}

/** Gives buttons ids, as the core's ButtonIds.prepare does. */
let buttonSeq = 0;
export function prepareMessage(m: Message): Message {
  return m.buttons ? { ...m, buttons: m.buttons.map((b) => ({ ...b, id: b.id ?? `btn${++buttonSeq}` })) } : m;
}

export type FakeHosting = HostingClient & {
  keyFetches: number;
  listCalls: number;
  key: unknown;
  nodes: HostedNode[];
  settings: Array<{ id: string; webhookUrl: string }>;
};

export function fakeHosting(nodes: HostedNode[], key: unknown): FakeHosting {
  const h = {
    keyFetches: 0,
    listCalls: 0,
    key,
    nodes,
    settings: [] as Array<{ id: string; webhookUrl: string }>,
    async listNodes() {
      h.listCalls++;
      return h.nodes.map((n) => ({ ...n }));
    },
    async getNode(id: string) {
      const n = h.nodes.find((x) => x.nodeId === id);
      if (!n) throw new Error('no such node');
      return n;
    },
    async webhookPublicKey() {
      h.keyFetches++;
      if (h.key instanceof Error) throw h.key;
      return h.key;
    },
    async updateSettings(id: string, s: { webhookUrl: string }) {
      h.settings.push({ id, webhookUrl: s.webhookUrl });
      const n = h.nodes.find((x) => x.nodeId === id);
      if (n) n.settings = { ...n.settings, webhookUrl: s.webhookUrl };
      return { message: 'ok' };
    },
  };
  return h as unknown as FakeHosting;
}

export function node(nodeId: string, name: string, status = 'RUNNING', webhookUrl?: string): HostedNode {
  return { nodeId, name, network: 'regtest', status, settings: webhookUrl ? { webhookUrl } : {} };
}

export function tempDbPath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'notify-test-'));
  return { path: join(dir, 'bot.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Harness {
  db: Db;
  notifier: Notifier;
  posters: Partial<Record<Platform, ChatPoster>>;
  metrics: Metrics;
  close(opts?: { keepDb?: boolean }): Promise<void>;
}

export const FAST = {
  pacing: { perChannelIntervalMs: 15, coalesceWindowMs: 10 },
  retry: { baseDelayMs: 10, maxDelayMs: 80, maxAttempts: 5 },
  pollMs: 5,
} satisfies Partial<NotifierOptions>;

export function makeNotifier(opts: {
  dbPath?: string;
  posters: Partial<Record<Platform, ChatPoster>>;
  hosting?: HostingClient;
  logger?: Logger;
  extra?: Partial<NotifierOptions>;
}): Harness {
  const db = openDatabase(opts.dbPath ?? ':memory:');
  const metrics = createMetrics({ defaults: false });
  const notifier = createNotifier({
    db,
    posters: opts.posters,
    buttons: { prepare: async (m) => prepareMessage(m) },
    hosting: opts.hosting ?? fakeHosting([], null),
    logger: opts.logger ?? silentLogger,
    metrics,
    ...FAST,
    ...opts.extra,
  });
  return {
    db,
    notifier,
    posters: opts.posters,
    metrics,
    async close() {
      await notifier.stop();
      void db.close();
    },
  };
}

export const slackPlace = (channelId: string): Place => ({ platform: 'slack', channelId, workspaceId: 'T1' });
export const discordPlace = (channelId: string): Place => ({ platform: 'discord', channelId, workspaceId: 'G1' });
export const actor = (userId = 'U1', platform: Platform = 'slack'): Actor => ({ platform, userId, displayName: 'Ann' });

let tsSeq = 0;
/** Event times start an hour before the test run: recent (older events are refused as stale), never ahead. */
const TS_BASE = Math.floor(Date.now() / 1000) * 1000 - 3600_000;
/** A status event as the service sends it (with a unique timestamp unless given). */
export function statusPayload(nodeId: string, status: string, ts?: string) {
  const eventTimestamp = ts ?? new Date(TS_BASE + ++tsSeq * 1000).toISOString();
  return { eventType: 'NODE_STATUS_UPDATED', eventTimestamp, details: { nodeId, status }, nodeId };
}

/** Ingests a payload directly (as the receiver would after verification). */
export async function ingest(n: Notifier, payload: ReturnType<typeof statusPayload> | Record<string, any>, nodeName?: string) {
  const raw = JSON.stringify(payload);
  const p = payload as Record<string, any>;
  const status = p.details?.status;
  return n.ingestEvent({
    nodeId: p.nodeId,
    nodeName,
    eventType: p.eventType ?? 'UNKNOWN',
    status,
    eventTimestamp: p.eventTimestamp,
    payload: p,
    dedupeKey: dedupeKeyOf(raw, { nodeId: p.nodeId, eventType: p.eventType ?? 'UNKNOWN', status, eventTimestamp: p.eventTimestamp }),
  });
}

export async function startReceiver(
  notifier: Notifier,
  routesOpts: Parameters<Notifier['webhookRoutes']>[0] = {},
  logger: Logger = silentLogger,
  metrics: Metrics = createMetrics({ defaults: false }),
): Promise<{ url: string; app: FastifyInstance; metrics: Metrics; close(): Promise<void> }> {
  const app = await createHttpServer({ logger, metrics, routes: [notifier.webhookRoutes(routesOpts)] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, app, metrics, close: () => app.close() };
}

export const postError = (kind: ConstructorParameters<typeof PostError>[0], retryAfterMs?: number) => () =>
  new PostError(kind, `scripted ${kind}`, retryAfterMs);
