/**
 * The bot's own webhook intake, alone (issue 29, for attribution): the compiled bot's HTTP
 * server (createHttpServer), its webhook route, key cache, group commit and SQLite store, and
 * the notifier's outbox worker (its router), in a process with nothing else: no chat
 * platforms, no poller, no schedules, no node directory to fetch (every node is known). Its
 * events are stored exactly as the bot stores them, and answered after the same commit.
 *
 * Measured beside the durable receiver and the whole bot (`cpu-per-event.ts --server
 * bot-intake`), it splits the bot's distance from the durable limit in three: the request path
 * itself (with `BOT_INTAKE_NO_WORKER=1`: the worker never starts, so nothing is routed), the
 * router, and the rest of the bot. Needs `npm run build` (the bench's bot is the compiled one).
 * It runs on plain `node`, as the receivers do: the Dockerfile's V8 flags cost the bot no CPU
 * (docs/benchmarks.md, 2026-11-29).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A module of the compiled bot (dist/), typed as its source. */
const compiled = <T>(path: string): Promise<T> => import(new URL(`../../dist/src/${path}`, import.meta.url).href) as Promise<T>;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pem = process.env.BASELINE_PUBLIC_KEY;
  if (!pem) throw new Error('BASELINE_PUBLIC_KEY must hold the PEM public key that verifies the events');
  const [{ createHttpServer }, { createLogger }, { createMetrics }, { createNotifier }, { openDatabase }, { KeyCache }] = await Promise.all(
    [
      compiled<typeof import('../../src/http/server.js')>('http/server.js'),
      compiled<typeof import('../../src/log.js')>('log.js'),
      compiled<typeof import('../../src/metrics.js')>('metrics.js'),
      compiled<typeof import('../../src/notify/index.js')>('notify/index.js'),
      compiled<typeof import('../../src/store/index.js')>('store/index.js'),
      compiled<typeof import('../../src/webhooks/key-cache.js')>('webhooks/key-cache.js'),
    ],
  );
  const dir = mkdtempSync(join(tmpdir(), 'rln-bot-intake-'));
  // As the bot opens its database: WAL checkpoints on a worker thread.
  const db = openDatabase(join(dir, 'bot.db'), undefined, { backgroundCheckpoints: true });
  const logger = createLogger({ level: 'info' });
  const metrics = createMetrics();
  const notifier = createNotifier({
    db,
    posters: {},
    buttons: { prepare: async (m) => m },
    hosting: {} as Parameters<typeof createNotifier>[0]['hosting'],
    logger,
    metrics,
  });
  const known = (id: string) => ({ nodeId: id, name: id, status: 'RUNNING' });
  const app = await createHttpServer({
    logger,
    metrics,
    routes: [
      notifier.webhookRoutes({
        keys: new KeyCache({ fetchKey: async () => pem }),
        nodes: { lookup: async (id: string) => known(id), cached: known } as never,
      }),
    ],
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  if (process.env.BOT_INTAKE_NO_WORKER !== '1') notifier.start();
  // Else one transaction, as the bot's router, leases and poller run theirs from its first second:
  // the SQLite layer's AsyncLocalStorage (Node 20's async hooks) is then on before any event, as
  // in the bot, rather than from the first checkpoint's pause in the middle of a run, which made
  // V8 drop and compile again much of the request path then (instructions-per-event.ts).
  else await db.tx(async () => undefined);
  process.stdout.write(`bot intake listening on ${url}\n`);
  process.on(
    'SIGTERM',
    () =>
      void (async () => {
        await app.close();
        await notifier.stop();
        await db.close();
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      })(),
  );
}
