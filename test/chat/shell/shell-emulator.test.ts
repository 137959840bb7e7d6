/**
 * The terminal against the emulator with the real command tree: what a newcomer does first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDispatcher } from '../../support/dispatcher.js';
import { PassThrough } from 'node:stream';
import { createShellAdapter } from '../../../src/chat/shell/index.js';
import { createRegistry } from '../../../src/engine/index.js';
import { allCommands } from '../../../commands/index.js';
import { openDatabase } from '../../../src/store/index.js';
import { createHostingClient, type HostedNode } from '../../../src/hosting/index.js';
import { createNodeApiClient, loadNodeCredentials } from '../../../src/node-api/index.js';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { waitFor } from '../../support/wait-for.js';

let emulator: Emulator;
let shell: ReturnType<typeof createShellAdapter>;
let input: PassThrough;
let out = '';

async function until(s: string | RegExp, ms = 8000) {
  await waitFor(() => (typeof s === 'string' ? out.includes(s) : s.test(out)), {
    timeout: ms,
    what: () => `output containing ${s}:\n${out}`,
  });
}

beforeAll(async () => {
  emulator = await startEmulator({ seed: 'demo', lifecycleDelayMs: 20 });
  const credentialsFor = loadNodeCredentials({ defaultToken: emulator.nodeApiToken });
  const services = {
    hosting: createHostingClient({ baseUrl: emulator.url, token: emulator.token, timeoutMs: 5_000 }),
    nodeApi: (node: HostedNode) => createNodeApiClient({ baseUrl: node.invoke_url!, credentials: credentialsFor(node) }),
  };
  const dispatcher = testDispatcher({ db: openDatabase(':memory:'), registry: createRegistry(allCommands), services, nodeCacheMs: 0 });
  input = new PassThrough();
  const output = new PassThrough();
  output.on('data', (c) => (out += c.toString()));
  shell = createShellAdapter({ dispatcher, input, output, prompt: false });
  await shell.start();
});

afterAll(async () => {
  shell?.stop();
  await emulator?.close();
});

describe('the terminal against the emulator', () => {
  it('lists nodes, shows help, stops a node after a typed confirmation, destroys one through the typed-name dialog, and shows the audit', async () => {
    input.write('/rln node list\n');
    await until('carol');
    expect(out).toContain('alice');

    input.write('node help\n');
    await until('/rln node: ');
    expect(out).toContain('/rln node destroy <node>');

    input.write('/rln node stop alice\n');
    await until(/type: confirm (b_\S+)/);
    const id = /type: confirm (b_\S+)/.exec(out)![1];
    input.write(`confirm ${id}\n`);
    await until('(replaces the message above)');
    expect(emulator.nodes().find((n) => n.name === 'alice')!.status).not.toBe('RUNNING');

    input.write('/rln node destroy carol\n');
    await until("Type the node's name to confirm");
    // The dialog says what a backup made here is worth: it stays on the node's disk and goes with it.
    expect(out).toContain('is destroyed with the node: the service offers no way to download it');
    input.write('not-carol\n');
    await until('[y/N]');
    input.write('n\n');
    await until("That is not the node's name");
    expect(emulator.nodes().some((n) => n.name === 'carol')).toBe(true);
    input.write('carol\n');
    await until(/✔ .*carol|destroyed/i);

    input.write('audit\n');
    await until('Audit trail');
    expect(out).toMatch(/node destroy carol[^\n]*⛔ refused/);
    expect(out).toMatch(/node stop alice[^\n]*✅ ok/);
    if (process.env.SHOW_SHELL) console.log(out);
  });
});
