/** The terminal cannot show a picture: it writes a message's files and prints where. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createShellAdapter } from '../../../src/chat/shell/index.js';
import { createRegistry } from '../../../src/engine/index.js';
import { allCommands } from '../../../commands/index.js';
import { testDispatcher } from '../../support/dispatcher.js';
import { createHostingClient, type HostedNode } from '../../../src/hosting/index.js';
import { createNodeApiClient } from '../../../src/node-api/index.js';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { decodeQr } from '../../support/decode-png.js';

let emulator: Emulator;
let shell: ReturnType<typeof createShellAdapter>;
let input: PassThrough;
let out = '';
const dir = mkdtempSync(join(tmpdir(), 'rln-shell-files-'));

beforeAll(async () => {
  emulator = await startEmulator({ seed: 'demo', demoPassword: 'shell-files-password', lifecycleDelayMs: 20 });
  const services = {
    hosting: createHostingClient({ baseUrl: emulator.url, token: emulator.token, timeoutMs: 5_000 }),
    nodeApi: (node: HostedNode) =>
      createNodeApiClient({ baseUrl: node.invoke_url!, credentials: { kind: 'token', token: emulator.nodeApiToken } }),
  };
  const dispatcher = testDispatcher({ registry: createRegistry(allCommands), services, nodeCacheMs: 0 });
  input = new PassThrough();
  const output = new PassThrough();
  output.on('data', (c) => (out += c.toString()));
  shell = createShellAdapter({ dispatcher, input, output, prompt: false, filesDir: dir });
  await shell.start();
});

afterAll(async () => {
  shell?.stop();
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('writes the QR code of a new address to a file and prints its path', async () => {
  input.write('/rln wallet address alice\n');
  const start = Date.now();
  let m: RegExpExecArray | null;
  while (!(m = /📎 On-chain address: (\S+)/.exec(out))) {
    if (Date.now() - start > 8_000) throw new Error(`no file line in:\n${out}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(m[1].startsWith(dir)).toBe(true);
  const address = decodeQr(readFileSync(m[1]));
  expect(address).toBeTruthy();
  expect(out).toContain(address!);
});
