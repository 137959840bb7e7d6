/**
 * The emulator in its own process (`npm run emulator`), so a benchmark measures the
 * bot's time and memory and not the service's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { listeningUrl } from './processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface EmulatorProcess {
  url: string;
  token: string;
  nodeApiToken: string;
  child: ChildProcess;
  close(): Promise<void>;
}

export async function startEmulatorProcess(flags: string[] = []): Promise<EmulatorProcess> {
  const token = randomBytes(12).toString('hex');
  const nodeApiToken = randomBytes(12).toString('hex');
  const child = spawn(
    process.execPath,
    [
      `${root}node_modules/tsx/dist/cli.mjs`,
      `${root}src/cli/main.ts`,
      'emulator',
      '--port',
      '0',
      '--token',
      token,
      '--node-token',
      nodeApiToken,
      ...flags,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await listeningUrl(child, 90_000, (said) => `emulator did not start: ${said}`);
  return {
    url,
    token,
    nodeApiToken,
    child,
    close: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}
