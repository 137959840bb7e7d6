/**
 * The bot's one HTTP server (fastify): webhooks, Slack HTTP mode, Discord interactions,
 * /healthz and /metrics. Rooms contribute routes as fastify plugins, each in its own
 * encapsulated context (so a raw-body parser for signed requests stays local to its routes).
 */
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
  const app = Fastify({
    loggerInstance: opts.logger.child({ room: 'http' }) as unknown as FastifyBaseLogger,
    // Webhooks arrive in storms: no per-request log lines; refusals are logged by their routes.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    requestTimeout,
    connectionTimeout: requestTimeout + 5_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    http: {
      // Node checks these timeouts on a timer (30 s by default): check often enough
      // that a slow client is cut off close to its deadline.
      headersTimeout: opts.headersTimeoutMs ?? Math.min(10_000, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeout / 4))),
    },
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
