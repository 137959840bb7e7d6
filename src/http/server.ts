/**
 * The bot's one HTTP server (fastify): webhooks, Slack HTTP mode, Discord interactions,
 * /healthz and /metrics. Rooms contribute routes as fastify plugins, each in its own
 * encapsulated context (so a raw-body parser for signed requests stays local to its routes).
 *
 * A plugin may also mount a raw route (`app.rawRoute(route)`): a plain `node:http` handler
 * that the server's request listener offers each request to before fastify's routing, for an
 * endpoint whose per-request cost matters (the service's webhooks, issue 29). It is served by
 * the same server, so its connection cap and timeouts are fastify's; `app.httpClosing()` tells
 * it when the server is closing, to answer 503 as fastify's `return503OnClosing` does.
 */
import http from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';

export interface HttpServerOptions {
  logger: Logger;
  metrics: Metrics;
  routes: FastifyPluginAsync[];
  /** Reported by /healthz: the parts that must be up (database, chat connections, ...). */
  health?: () => HealthReport | Promise<HealthReport>;
  /** Slow-client protection: the whole request must arrive within this (default 15 s). */
  requestTimeoutMs?: number;
  /** Headers must arrive within this (default 10 s). */
  headersTimeoutMs?: number;
  /** Open connections at most; more are closed as they arrive (default 1024). */
  maxConnections?: number;
}

/**
 * A raw route: takes the request (answers it, now or later) and returns true, or returns false
 * at once, without touching it, and fastify routes the request as usual.
 */
export type RawRoute = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/**
 * What createHttpServer decorates its instance with, read back with `rawRoutingOf(app)` (a typed
 * getDecorator, not declaration merging: the fastify type stays as fastify ships it).
 */
export interface RawRouting {
  /** Mounts a raw `node:http` route, offered every request before fastify's routing. */
  rawRoute(route: RawRoute): void;
  /** True once the server has begun closing (a raw route then answers 503, as fastify does). */
  httpClosing(): boolean;
}

/** The raw routing of a server made by createHttpServer, or undefined on any other fastify instance. */
export function rawRoutingOf(app: FastifyInstance): RawRouting | undefined {
  if (!app.hasDecorator('rawRoute')) return undefined;
  return {
    rawRoute: app.getDecorator<RawRouting['rawRoute']>('rawRoute'),
    httpClosing: app.getDecorator<RawRouting['httpClosing']>('httpClosing'),
  };
}

export interface HealthReport {
  ok: boolean;
  checks: Record<string, string>;
  /**
   * Parts down while the bot serves the rest (a chat platform unreachable): still 200, so a load
   * balancer keeps sending webhooks, with `status: "degraded"` and these named.
   */
  degraded?: string[];
}

export async function createHttpServer(opts: HttpServerOptions): Promise<FastifyInstance> {
  const requestTimeout = opts.requestTimeoutMs ?? 15_000;
  const keepAliveTimeout = 5_000;
  const connectionTimeout = requestTimeout + 5_000;
  const raw: RawRoute[] = [];
  let closing = false;
  const app = Fastify({
    loggerInstance: opts.logger.child({ room: 'http' }) as unknown as FastifyBaseLogger,
    // Webhooks arrive in storms: no per-request log lines; refusals are logged by their routes.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    requestTimeout,
    connectionTimeout,
    keepAliveTimeout,
    return503OnClosing: true,
    // The server fastify would make, with one step before fastify's own handler: the raw routes.
    serverFactory: (handler) => {
      const server = http.createServer(
        {
          // Node checks these timeouts on a timer (30 s by default): check often enough
          // that a slow client is cut off close to its deadline.
          headersTimeout: opts.headersTimeoutMs ?? Math.min(10_000, requestTimeout),
          requestTimeout,
          connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeout / 4))),
        },
        (req, res) => {
          for (let i = 0; i < raw.length; i++) if (raw[i](req, res)) return;
          handler(req, res);
        },
      );
      // What fastify sets on a server it makes itself.
      server.keepAliveTimeout = keepAliveTimeout;
      server.requestTimeout = requestTimeout;
      server.setTimeout(connectionTimeout);
      return server;
    },
  });
  app.decorate('rawRoute', (route: RawRoute) => void raw.push(route));
  app.decorate('httpClosing', () => closing);
  // Runs as fastify's own routes start answering 503 (its onClose, before the server closes).
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  app.get('/healthz', async (_req, reply) => {
    const h = (await opts.health?.()) ?? { ok: true, checks: {} };
    const degraded = h.degraded?.length ? { degraded: h.degraded } : {};
    reply.code(h.ok ? 200 : 503).send({ status: h.ok && !h.degraded?.length ? 'ok' : 'degraded', ...h.checks, ...degraded });
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', opts.metrics.registry.contentType).send(await opts.metrics.registry.metrics());
  });
  for (const r of opts.routes) await app.register(r);
  // A flood of connections is refused at accept rather than held (each holds buffers and a socket).
  app.server.maxConnections = opts.maxConnections ?? 1024;
  return app;
}
