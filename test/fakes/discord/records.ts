/**
 * What the fake Discord records and gives out (./start-fake-discord.ts): the recorded calls, the
 * scripted failures, its public interface, and the message objects it answers with.
 */
export interface RecordedCall {
  seq: number;
  method: string;
  /** Decoded path without the /api/v10 prefix, e.g. `/webhooks/1/tok/messages/@original`. */
  path: string;
  body: any;
  authorization?: string;
  /** Files of a multipart request (`files[n]` parts), with the JSON of `payload_json` as `body`. */
  files?: Array<{ field: string; name: string; contentType: string; bytes: Buffer }>;
}

export interface ScriptedFailure {
  method?: string;
  /** Matches the decoded path (without /api/v10). */
  path: RegExp;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching calls fail (default 1). */
  times?: number;
}

/** How long a nonce with enforce_nonce is remembered (Discord: "the past few minutes"). */
export const NONCE_WINDOW_MS = 5 * 60_000;
/** Discord's limit on a nonce string. */
export const NONCE_MAX = 25;

export interface HeldAnswers {
  /** Sends the answers held so far (a client that gave up on them gets nothing), and holds no more. */
  release(): void;
}

export interface GatewayOp {
  op: number;
  d?: any;
  /** On identify (op 2) when the fake was given `expectedToken`: whether the token sent equalled it. */
  tokenOk?: boolean;
}

export interface FakeDiscord {
  /** The REST base for `rest: { api }` and DISCORD_API_URL: `http://127.0.0.1:P/api`. */
  apiUrl: string;
  gatewayUrl: string;
  applicationId: string;
  botUserId: string;
  calls: RecordedCall[];
  /**
   * Gateway events received from the client (identify, heartbeats), in order. The identify token
   * is recorded as '[redacted]'; `tokenOk` says whether it equalled `expectedToken` (when given).
   */
  gatewayOps: GatewayOp[];
  fail(f: ScriptedFailure): void;
  /** Channels that answer 404 Unknown Channel (10003). */
  goneChannels: Set<string>;
  /** Delivers INTERACTION_CREATE to every identified gateway client; fills the required defaults. */
  sendInteraction(d: Record<string, unknown>): Promise<void>;
  /** Resolves with the first recorded call (from `from` on) that matches. */
  waitForCall(pred: (c: RecordedCall) => boolean, opts?: { from?: number; timeoutMs?: number }): Promise<RecordedCall>;
  /** Resolves once a gateway client has identified. */
  identified(): Promise<void>;
  /** Gateway sessions identified and still open now (one per connected bot process). */
  gatewaySessions(): number;
  /**
   * The gateway URL the fake gives out (in GET /gateway/bot and READY's resume_gateway_url):
   * by default its own; a test puts a relay in front of it with this.
   */
  advertiseGateway(url: string): void;
  /** Message payloads answered 400 Invalid Form Body, with what was wrong. */
  rejected: Array<{ seq: number; method: string; path: string; problems: string[] }>;
  /** Ids of the messages created in a channel (POST …/messages), in order: what the channel shows. */
  channelMessages(channelId: string): string[];
  /**
   * Carries out the matching calls but keeps their answers until `release` (as a Discord slow to
   * answer): the message is made, the client hears nothing.
   */
  hold(method: string, path: RegExp): HeldAnswers;
  /** The application's registered commands' names, globally or in one guild (a PUT replaces them). */
  registeredCommands(guildId?: string): string[];
  close(): Promise<void>;
}

let snowflakeCounter = 0n;
export function snowflake(): string {
  snowflakeCounter += 1n;
  return ((BigInt(Date.now() - 1420070400000) << 22n) + snowflakeCounter).toString();
}

export function fakeUser(id: string, username = `user${id.slice(-4)}`) {
  return { id, username, global_name: username, discriminator: '0', avatar: null, bot: false };
}

export function messageObject(channelId: string, id: string, body: any, author: ReturnType<typeof fakeUser>, webhookId?: string) {
  return {
    id,
    channel_id: channelId,
    type: 0,
    content: body?.content ?? '',
    embeds: body?.embeds ?? [],
    components: body?.components ?? [],
    attachments: (body?.attachments ?? []).map((a: any) => ({ id: snowflake(), filename: a.filename, description: a.description })),
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    flags: body?.flags ?? 0,
    author,
    ...(webhookId ? { webhook_id: webhookId, application_id: webhookId } : {}),
  };
}
