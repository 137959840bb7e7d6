#!/usr/bin/env node
/**
 * Entry point: `start` (the bot), `emulator` (the hosting service emulator), `doctor`
 * (checks the configuration and the service), `register-commands` (Discord's /rln).
 * Errors a person can fix are printed as plain sentences; never a stack trace.
 */
import { ConfigError, loadConfig } from '../config.js';
import { createApp } from '../app/index.js';
import { abandonLogsForExit, createLogger, releaseLogsForExit } from '../log.js';
import { demoBanner, demoLogFile, demoStateKept, startFresh } from '../demo/index.js';
import { startMemorySettle } from './memory-settle.js';
import { startHelperThreadPriority } from './helper-threads.js';

const USAGE = `Usage: rln-chatops <start | emulator | doctor | register-commands>
  start [--fresh]     run the bot (with no SERVICE_URL: a local demo against the built-in emulator;
                      --fresh deletes the demo's database first, so it starts from nothing)
  emulator [flags]    run the hosting service emulator (npm run emulator -- --port N --token T)
  doctor              check the configuration, the service and the chat credentials
  register-commands   register the Discord commands (/rln, /rln-<group>) in DISCORD_GUILD_ID's server, or
                      globally without it; --remove removes them from that scope`;

/** Exits with `code` even when stdout or stderr has no reader (the loggers' exit flush is released first). */
function exitNow(code: number): never {
  abandonLogsForExit();
  process.exit(code);
}

async function main(argv: string[]): Promise<number> {
  const [cmd = 'start', ...rest] = argv;
  switch (cmd) {
    case 'start':
      return start(rest);
    // The emulator and the doctor are loaded only for their commands: `start` with a
    // SERVICE_URL loads neither (memory, issue 18).
    case 'emulator':
      await (await import('../emulator/index.js')).runEmulatorCli(rest);
      return -1; // keeps running until a signal
    case 'doctor':
      return (await import('../doctor/index.js')).runDoctor({ env: process.env, out: (l) => process.stdout.write(`${l}\n`) });
    case 'register-commands':
      return registerDiscordCommands(rest.includes('--remove'));
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`Unknown command "${cmd}".\n${USAGE}\n`);
      return 2;
  }
}

async function start(args: string[]): Promise<number> {
  // With no reader on stdout or stderr, a write fails with EPIPE: never a crash or a hang for that.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const unknown = args.filter((a) => a !== '--fresh');
  if (unknown.length) {
    process.stderr.write(`Unknown option "${unknown[0]}" for start.\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  if (args.includes('--fresh')) {
    const refused = startFresh(config);
    if (refused) {
      process.stderr.write(`${refused}\n`);
      return 2;
    }
  }
  const kept = config.demo && demoStateKept(config);
  // The terminal demo's screen is the chat: its log goes to a file beside the database, never
  // between the prompt and the answers (P29).
  const terminalOnly = config.slack.mode === 'off' && config.discord.mode === 'off';
  const logFile = config.demo && terminalOnly ? demoLogFile(config) : undefined;
  // A stop asked while the bot starts (a rolling deploy, Ctrl-C at once) is heard from here on,
  // and carried out once the start has ended: the outbox posts during the start, and a signal's
  // default action there would kill the process mid-post instead of draining.
  let stopping = false;
  let stopMemorySettle: (() => void) | undefined;
  let stopHelperThreads: (() => void) | undefined;
  let ready: (() => void) | undefined;
  const started = new Promise<void>((r) => (ready = r));
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const hard = setTimeout(() => exitNow(0), 9_000);
    hard.unref();
    await started;
    stopMemorySettle?.();
    stopHelperThreads?.();
    app.logger.info({ signal }, 'stopping: draining in-flight work');
    await app.stop({ timeoutMs: 7_500 }).catch((err) => app.logger.error({ err }, 'error while stopping'));
    await releaseLogsForExit(500);
    clearTimeout(hard);
    exitNow(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const app = await createApp({ config, logger: logFile ? createLogger({ level: config.LOG_LEVEL, file: logFile }) : undefined });
  await app.start({ onListening: (url) => config.demo && process.stdout.write(demoBanner(url, app.config, { kept, logFile })) });
  ready?.();
  // The bot as a process (not the app in tests): give memory back after a burst, and its event
  // loop first on a busy core (the helper threads at a lower priority).
  if (!stopping) {
    stopMemorySettle = startMemorySettle();
    const helpers = startHelperThreadPriority({ nice: config.HELPER_THREADS_NICE });
    stopHelperThreads = helpers.stop;
    app.logger.debug({ threads: helpers.lowered, nice: config.HELPER_THREADS_NICE }, 'helper threads lowered');
  }
  // With only the terminal, the end of its input (Ctrl-D) ends the bot.
  if (app.shellDone && terminalOnly) {
    void app.shellDone.then(() => shutdown('end of input'));
  }
  return -1;
}

async function registerDiscordCommands(remove: boolean): Promise<number> {
  const config = loadConfig();
  if (!config.DISCORD_TOKEN || !config.DISCORD_APPLICATION_ID) {
    process.stderr.write('register-commands needs DISCORD_TOKEN and DISCORD_APPLICATION_ID.\n');
    return 2;
  }
  const { registerCommands } = await import('../chat/discord/index.js');
  const { createRegistry } = await import('../engine/index.js');
  const { allCommands } = await import('../../commands/index.js');
  const guildId = config.DISCORD_GUILD_ID;
  const data = await registerCommands(
    { token: config.DISCORD_TOKEN, applicationId: config.DISCORD_APPLICATION_ID, apiUrl: config.DISCORD_API_URL, guildId, remove },
    createRegistry(allCommands),
  );
  const where = guildId ? `in server ${guildId}` : 'globally';
  process.stdout.write(
    remove
      ? `Removed this application's Discord commands ${where}.\n`
      : `Registered ${data.length} Discord commands ${where}: ${data.map((c) => `/${c.name}`).join(', ')}.\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nFix these and start again (npm run doctor checks everything).\n`);
      process.exit(2);
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`rln-chatops could not start: ${message}\n`);
    if (process.env.LOG_LEVEL === 'debug' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  },
);
