/**
 * Several bot processes on one PostgreSQL database, as a team runs them behind a load
 * balancer: each is the real CLI (`npm start`), with its own port, and the same DATABASE_URL.
 */
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.js';
import { newPostgresUrl } from './databases.js';
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

/** Replicas on one fresh PostgreSQL database, with the emulator and the fake Slack they all use. */
export interface ReplicaWorld {
  emulator: Emulator;
  slack: FakeSlack;
  /** DATABASE_URL of the replicas. */
  url: string;
  replicas: Replica[];
  close(): Promise<void>;
}

/**
 * Starts the emulator, the fake Slack (each replica calls it through its own `apiUrlFor(name)`:
 * a call records which replica made it), a database, then `n` replicas in Slack HTTP mode.
 * `before` runs once the database exists, before any replica starts (to write what an earlier run would have).
 */
export async function startReplicaWorld(o: {
  n: number;
  name: string;
  env?: Record<string, string>;
  emulator?: Parameters<typeof startEmulator>[0];
  slack?: Parameters<typeof startFakeSlack>[0];
  before?: (w: { emulator: Emulator; url: string }) => Promise<void>;
}): Promise<ReplicaWorld> {
  const emulator = await startEmulator(o.emulator ?? { seed: 'demo', lifecycleDelayMs: 5 });
  const slack = await startFakeSlack(o.slack);
  const world: ReplicaWorld = {
    emulator,
    slack,
    url: '',
    replicas: [],
    async close() {
      await stopReplicas(world.replicas);
      await slack.close();
      await emulator.close();
    },
  };
  try {
    world.url = await newPostgresUrl(o.name);
    await o.before?.({ emulator, url: world.url });
    world.replicas = await startReplicas(o.n, (i) => ({
      SERVICE_URL: emulator.url,
      SERVICE_API_TOKEN: emulator.token,
      NODE_API_TOKEN: emulator.nodeApiToken,
      DATABASE_URL: world.url,
      SLACK_BOT_TOKEN: 'xoxb-replicas',
      SLACK_SIGNING_SECRET: REPLICAS_SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrlFor(String.fromCharCode(97 + i)),
      ...o.env,
    }));
  } catch (e) {
    await world.close();
    throw e;
  }
  return world;
}

export const REPLICAS_SIGNING_SECRET = 'replicas-signing-secret';

/** What a chat call or a respond() post shows (text, blocks, attachments), to look for words in. */
export const shownIn = (body: Record<string, any>) =>
  `${String(body.text ?? '')} ${JSON.stringify(body.blocks ?? '')} ${JSON.stringify(body.attachments ?? '')}`;
