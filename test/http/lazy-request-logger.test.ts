import { Writable } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/http/index.js';

/** A real pino logger (with redaction, as the bot's) writing JSON lines into an array, counting its children. */
function countingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino({ redact: ['*.token', 'password'] }, stream);
  const made = { children: 0 };
  const child = logger.child.bind(logger);
  logger.child = (bindings, options) => {
    made.children++;
    return child(bindings, options);
  };
  return { logger, lines, made };
}

async function appWith(logger: ReturnType<typeof countingLogger>['logger']) {
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setChildLoggerFactory(lazyRequestLogger);
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/logs', async (req) => {
    req.log.warn({ step: 'handler' }, 'something to say');
    req.log.info('and more');
    return { ok: true };
  });
  await app.ready();
  return app;
}

describe('the lazy request logger', () => {
  it('makes no child logger for a request that logs nothing', async () => {
    const { logger, made } = countingLogger();
    const app = await appWith(logger);
    const before = made.children;
    for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
    expect(made.children).toBe(before);
    await app.close();
  });

  it('still binds the request id to the lines of a request that logs, making its child once', async () => {
    const { logger, lines, made } = countingLogger();
    const app = await appWith(logger);
    const before = made.children;
    expect((await app.inject({ method: 'GET', url: '/logs' })).statusCode).toBe(200);
    expect(made.children).toBe(before + 1);
    const said = lines.filter((l) => l.msg === 'something to say' || l.msg === 'and more');
    expect(said).toHaveLength(2);
    expect(said[0]).toMatchObject({ step: 'handler', level: 40 });
    expect(typeof said[0].reqId).toBe('string');
    expect(said[1].reqId).toBe(said[0].reqId);
    await app.close();
  });

  it('reports the level of the logger it stands for', async () => {
    const { logger } = countingLogger();
    logger.level = 'warn';
    const lazy = lazyRequestLogger(logger, { reqId: 'r1' }, {});
    expect(lazy.level).toBe('warn');
  });
});
