/**
 * `node init … recover=true` on a 6887cbf node of the emulator, through the dispatcher as a chat drives it:
 * the mnemonic is asked only in the private dialog, restores the wallet, and reaches no reply, audit row or
 * log line. Also the password dialog asking both new passwords again (P21), and the hint for a secret typed
 * inline (P45).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { createHostingClient, type HostedNode } from '../../src/hosting/index.js';
import { ApiShapes, createNodeApiClient, imageOfNode } from '../../src/node-api/index.js';
import { openDatabase } from '../../src/store/index.js';
import { inlineToPlain } from '../../src/vocabulary/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { bufferLogger, slackChannel, slackUser } from '../support/core.js';
import { waitFor } from '../support/wait-for.js';

const admin = slackUser('UADMIN');
const PASSWORD = 'recover-password-1';
/** A valid BIP-39 mnemonic (its checksum too), recognisable in any text. */
const WORDS = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

let emulator: Emulator;
let db: ReturnType<typeof openDatabase>;
const log = bufferLogger();
let dispatcher: ReturnType<typeof testDispatcher>;

const shown = (r: Reply): string => {
  if (r.kind !== 'message') return JSON.stringify(r);
  const m = r.message;
  return [m.header, m.summary, ...m.blocks.map((b) => ('text' in b ? inlineToPlain(b.text as never) : JSON.stringify(b)))].join('\n');
};
const typed = (text: string) => dispatcher.dispatch({ via: 'typed', actor: admin, place: slackChannel, text });
const submit = (r: Reply, values: Record<string, string>) =>
  dispatcher.dispatch({
    via: 'dialog',
    actor: admin,
    place: slackChannel,
    dialogId: (r as Extract<Reply, { kind: 'dialog' }>).dialog.id,
    values,
  });

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 20, seed: 'demo', demoPassword: PASSWORD });
  const hosting = createHostingClient({ baseUrl: emulator.url, token: emulator.token, retry: { limit: 0 } });
  const shapes = new ApiShapes();
  const nodeApi = (n: HostedNode) =>
    createNodeApiClient({
      baseUrl: n.invoke_url!,
      credentials: { kind: 'token', token: emulator.nodeApiToken },
      retries: 0,
      shapes: shapes.of(n.nodeId, imageOfNode(n)),
      image: imageOfNode(n),
    });
  db = openDatabase(':memory:');
  dispatcher = testDispatcher({
    db,
    registry: createRegistry(allCommands),
    services: { hosting, nodeApi, now: Date.now },
    admins: ['slack:UADMIN'],
    logger: log.logger,
  });
  // New nodes run the latest image (6887cbf).
  for (const name of ['fresh', 'newer']) await hosting.createNode({ name, network: 'regtest' });
  const node = async (name: string) => (await hosting.listNodes()).find((n) => n.name === name)!;
  await waitFor(async () => (await node('newer')).status === 'RUNNING' && (await node('fresh')).status === 'RUNNING', { timeout: 3_000 });
  // carol, seeded on the demo's older image (f379330) with no wallet yet, is the node that cannot recover.
  await hosting.startNode((await node('carol')).nodeId);
  await waitFor(async () => (await node('carol')).status === 'RUNNING', { timeout: 3_000, what: 'carol RUNNING' });
  expect(emulator.world.apiOf((await node('carol')).nodeId)).toBe('f379330');
  expect(emulator.world.apiOf((await node('newer')).nodeId)).toBe('6887cbf');
}, 30_000);

afterAll(async () => {
  await emulator?.close();
});

describe('node init recover=true', () => {
  it('asks the mnemonic only in the private dialog, restores the wallet, and the words reach no reply, audit row or log', async () => {
    const opened = await typed('node init newer recover=true');
    expect(opened.kind).toBe('dialog');
    const fields = (opened as Extract<Reply, { kind: 'dialog' }>).dialog.fields;
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['password', 'secret'],
      ['password_repeat', 'secret'],
      ['mnemonic', 'secret'],
    ]);
    // A word that is not BIP-39's is refused in the dialog, by its place, never echoed.
    const typo = await submit(opened, { password: PASSWORD, password_repeat: PASSWORD, mnemonic: WORDS.replace('sausage', 'sausagx') });
    expect(typo).toEqual({ kind: 'dialog_errors', errors: { mnemonic: expect.stringContaining('Word 6 is not') } });
    expect(JSON.stringify(typo)).not.toContain('sausag');
    const r = await submit(opened, { password: PASSWORD, password_repeat: PASSWORD, mnemonic: `  ${WORDS.toUpperCase()} ` });
    expect(r.kind).toBe('message');
    expect((r as Extract<Reply, { kind: 'message' }>).visibility).toBe('private');
    expect(shown(r)).toMatch(/initialized from your mnemonic/);
    // The node holds the wallet of these words.
    const n = (await dispatcher.services.hosting.listNodes()).find((x) => x.name === 'newer')!;
    expect(emulator.world.mnemonicOf(n.nodeId)).toBe(WORDS);
    for (const word of ['legal winner thank', 'sausage', 'LEGAL']) {
      expect(shown(r)).not.toContain(word);
      expect(JSON.stringify(await db.all('SELECT * FROM core_audit'))).not.toContain(word);
      expect(log.text).not.toContain(word);
    }
    const [entry] = await dispatcher.audit.latest();
    expect(entry.outcome).toBe('ok');
  });

  it('is refused on an f379330 node before any dialog, naming the image it needs and offering the upgrade', async () => {
    const r = await typed('node init carol recover=true');
    expect(r.kind).toBe('message');
    expect(shown(r)).toMatch(/needs an RLN image with a wallet restored from an existing mnemonic/);
    expect(shown(r)).toMatch(/node upgrade carol/);
  });

  it('a mnemonic typed in the command line is refused with a hint that is true: recover=true opens the dialog that asks for it (P45)', async () => {
    const r = await typed(`node init fresh mnemonic="${WORDS}"`);
    expect(shown(r)).toContain('`/rln node init fresh recover=true`: a private dialog will ask for it');
    expect(shown(r)).not.toContain('legal winner');
    const other = await typed('node lock fresh mnemonic=abc');
    expect(shown(other)).toMatch(/does not take `mnemonic`/);
  });

  it('a short or mismatched new password asks both new passwords again (P21)', async () => {
    const opened = await typed('node init fresh');
    expect(opened.kind).toBe('dialog');
    expect((opened as Extract<Reply, { kind: 'dialog' }>).dialog.fields.map((f) => f.name)).toEqual(['password', 'password_repeat']);
    const short = await submit(opened, { password: 'short', password_repeat: 'short' });
    expect(Object.keys((short as Extract<Reply, { kind: 'dialog_errors' }>).errors).sort()).toEqual(['password', 'password_repeat']);
    const differ = await submit(opened, { password: PASSWORD, password_repeat: `${PASSWORD}x` });
    expect(Object.keys((differ as Extract<Reply, { kind: 'dialog_errors' }>).errors).sort()).toEqual(['password', 'password_repeat']);
  });
});
