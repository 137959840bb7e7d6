/**
 * Several bot processes on one PostgreSQL database, as a team runs them behind a load
 * balancer: each is the real CLI (`npm start`), with its own port, and the same DATABASE_URL.
 */
import { spawnBot, type SpawnedBot } from './spawn-bot.js';
import { waitFor } from './wait-for.js';

export interface Replica {
  name: string;
  /** http://127.0.0.1:PORT of its HTTP server (webhooks, Slack requests, /healthz). */
  url: string;
  bot: SpawnedBot;
}

/** Starts a replica and waits until it says it is ready. */
export async function startReplica(name: string, env: Record<string, string>): Promise<Replica> {
  const bot = spawnBot(['start'], { env: { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env } });
  await waitFor(() => /"msg":"rln-chatops is ready"/.test(bot.stderr()), {
    timeout: 120_000,
    what: () => `replica ${name} ready; stderr:\n${bot.stderr().slice(-3000)}`,
  });
  const url = bot.stderr().match(/"url":"(http:\/\/[^"]+)"/)?.[1];
  if (!url) throw new Error(`replica ${name} did not log its URL`);
  return { name, url, bot };
}

/** Starts `n` replicas one after the other (the first runs the migrations; the others find them done). */
export async function startReplicas(n: number, env: (i: number) => Record<string, string>): Promise<Replica[]> {
  const out: Replica[] = [];
  for (let i = 0; i < n; i++) out.push(await startReplica(String.fromCharCode(97 + i), env(i)));
  return out;
}

/** Stops replicas still running (SIGTERM, then SIGKILL after 10 s). */
export async function stopReplicas(replicas: Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(async (r) => {
      if (r.bot.child.exitCode !== null || r.bot.child.signalCode !== null) return;
      r.bot.child.kill('SIGTERM');
      const t = setTimeout(() => r.bot.child.kill('SIGKILL'), 10_000);
      await r.bot.exited;
      clearTimeout(t);
    }),
  );
}
