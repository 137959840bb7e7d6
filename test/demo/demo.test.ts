/**
 * The demo as a newcomer meets it: the whole bot with its built-in emulator (no SERVICE_URL),
 * driven over the terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createApp, type App } from '../../src/app/create-app.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { DEMO_SUGGESTIONS } from '../../src/demo/demo-banner.js';
import { createNodeApiClient } from '../../src/node-api/index.js';
import { imageOf } from '../../commands/node.js';

let app: App;
let dir: string;
const input = new PassThrough();
const output = new PassThrough();
let out = '';
output.on('data', (c) => (out += c.toString()));

/** Waits until the output written after `from` matches, and returns that part. */
async function until(from: number, s: string | RegExp, ms = 10_000): Promise<string> {
  const start = Date.now();
  for (;;) {
    const part = out.slice(from);
    if (typeof s === 'string' ? part.includes(s) : s.test(part)) return part;
    if (Date.now() - start > ms) throw new Error(`output never contained ${s}:\n${part}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Types a line and waits for its answer (the next message header). */
async function type(line: string, expectText: string | RegExp): Promise<string> {
  const from = out.length;
  input.write(`${line}\n`);
  return until(from, expectText);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rln-demo-'));
  const config = loadConfig({ DATABASE_PATH: join(dir, 'bot.db'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  app = await createApp({
    config,
    logger: createLogger({ level: 'silent' }),
    metrics: createMetrics({ defaults: false }),
    shell: { input, output, prompt: false },
    emulator: { lifecycleDelayMs: 50 },
  });
  await app.start();
});

afterAll(async () => {
  await app?.stop({ timeoutMs: 2_000 }).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo in the terminal', () => {
  it('answers each command the banner suggests without an error', async () => {
    for (const line of DEMO_SUGGESTIONS) {
      const from = out.length;
      input.write(`${line}\n`);
      // Every answer starts with a header line; wait for the next prompt-free quiet moment.
      await until(from, /\n\S.*\n/);
      await new Promise((r) => setTimeout(r, 300));
      const part = out.slice(from);
      expect(part, line).not.toMatch(/✖|Something went wrong|Unknown command|Not allowed/);
    }
  });

  it('shows the top-level help for /rln alone and for /rln audit help', async () => {
    expect(await type('/rln', 'rln-chatops commands')).toContain('Usage: /rln <group> <action>');
    expect(await type('/rln audit help', '/rln audit')).not.toContain('Audit trail');
  });

  it('reports the status changes of a node created in the demo, as it does for the seeded ones', async () => {
    await type('/rln node create dave', /dave/);
    // The emulator sends dave's webhooks to the bot, which posts them to the terminal.
    await until(0, /\[#terminal[^\n]*\]\n(│[^\n]*\n)*│[^\n]*dave[^\n]*RUNNING/);
  });

  it('acts as another role with /as, and back as the local admin', async () => {
    expect(await type('/as reader ann', 'Role: read')).toContain('You act as shell:ann');
    expect(await type('/rln node stop alice', /Not allowed/)).toMatch(/Not allowed/);
    expect(await type('/as operator', 'Role: operate')).toContain('shell:operate');
    expect(await type('/as boss', 'not a role')).toContain('use read, operate or admin');
    expect(await type('/as admin', 'Role: admin')).toContain('the local admin');
  });

  it('/as switches who you are without rewriting a grant: a scoped role stays scoped (P4)', async () => {
    await type('/rln access grant shell:otto operate nodes=bob', 'now has the');
    expect(await type('/as admin otto', 'as granted')).toContain('Role: operate on nodes=bob only');
    await type('/as admin', 'the local admin');
    expect(await type('/rln access list', /shell:otto/)).toMatch(/shell:otto[^\n]*operate[^\n]*nodes=bob/);
  });

  it('never takes a /rln line typed while a dialog asks as its answer: the dialog ends and the command runs', async () => {
    await type('/rln node destroy carol', "Type the node's name to confirm");
    const part = await type('/rln node list', /Nodes \(\d+\)/);
    expect(part).toContain('Cancelled: a command was typed instead of');
    expect(part).toContain('carol');
    expect(app.emulator!.nodes().some((n) => n.name === 'carol')).toBe(true);
  });

  it('says what an argument takes, with an example, instead of a validator text', async () => {
    const fee = await type('/rln wallet fee alice six', 'Invalid arguments');
    expect(fee).toContain('Argument `blocks` is not valid: expected a whole number, such as 5.');
    expect(fee).toContain('Example: /rln wallet fee alice 6');
    expect(fee).not.toContain('Invalid input');
    const amount = await type('/rln invoice rgb alice amount=10', 'Invalid arguments');
    expect(amount).toContain('`amount` needs an asset: a bare number could be in any unit.');
    expect(amount).toContain('amount="10 USDT"');
  });

  it('offers to upgrade a seeded node from its older image, and refuses one already on the latest before any confirmation', async () => {
    const offer = await type('/rln node upgrade alice', /type: confirm b_\S+/);
    expect(offer).toMatch(/Image:\s+v\d+\.\d+\.\d+ → v\d+\.\d+\.\d+/);
    const refused = await type('/rln node upgrade dave', /already runs the latest image/);
    expect(refused).not.toMatch(/type: confirm/);
  });

  it('takes our node by name where a pubkey is asked, and an amount typed with its unit', async () => {
    const offer = await type('/rln pay keysend alice bob 3 sat', /type: confirm b_\S+/);
    expect(offer).toContain('3 sats (3,000 msat)');
    expect(offer).toMatch(/To:\s+bob `?0[23][0-9a-f]{10}/);
    const refused = await type('/rln peer disconnect alice nobody', 'Invalid arguments');
    expect(refused).toContain('`peer_pubkey` takes a node pubkey (66 hex digits) or the name of one of your nodes');
  });

  it('refuses before any prompt what cannot happen: stopping a paused node, unlocking an unlocked one, closing an unknown channel', async () => {
    const carol = app.emulator!.nodes().find((n) => n.name === 'carol')!;
    app.emulator!.setStatus(carol.nodeId, 'PAUSED');
    const stop = await type('/rln node stop carol', 'Not now');
    expect(stop).toContain('carol is already stopped (PAUSED); there is nothing to stop.');
    expect(stop).not.toMatch(/type: confirm/);
    const unlock = await type('/rln node unlock alice', 'Not now');
    expect(unlock).toContain('alice is already unlocked.');
    expect(unlock).not.toContain('Node password');
    const init = await type('/rln node init bob', 'Not now');
    expect(init).toContain('bob is already initialized and unlocked');
    expect(init).not.toContain('New node password');
    const backup = await type('/rln node backup alice', 'Not now');
    expect(backup).toContain('Lock it first with `/rln node lock alice`');
    for (const [line, why] of [
      ['/rln node shutdown carol', 'carol is PAUSED, not RUNNING: its node API does not answer, so it cannot shut down.'],
      ['/rln node password alice', 'alice is unlocked: the node can change its password only while it is locked.'],
      ['/rln node restore alice /backups/a.backup', 'alice is unlocked: the node can restore a backup only while it is locked.'],
    ] as const) {
      const part = await type(line, 'Not now');
      expect(part, line).toContain(why);
      expect(part, line).not.toMatch(/type: confirm|password:|\[y\/N\]/);
    }
    const close = await type('/rln channel close alice deadbeef00', 'has no channel');
    expect(close).toContain('alice has no channel deadbeef00.');
    expect(close).not.toMatch(/type: confirm/);
  });

  it('asks with the facts: what goes offline when locking, the peer and fee of a channel open, the funds a node to destroy still holds', async () => {
    const lock = await type('/rln node lock alice', /type: confirm b_\S+/);
    expect(lock).toMatch(/Goes offline:\s+alice's node API/);
    const open = await type('/rln channel open alice bob 100k sats', /type: confirm b_\S+/);
    expect(open).toMatch(/Peer:\s+bob \(our node\)/);
    expect(open).toMatch(/Estimated fee:\s+about [\d,]+ sats? on-chain/);
    const destroy = await type('/rln node destroy bob', "Type the node's name to confirm");
    expect(destroy).toMatch(/Still holds: [\d,]+ sats on-chain/);
    expect(destroy).toContain('no way to download it');
    // A command typed instead of the answer ends the dialog: bob stays.
    expect(await type('/rln node list', /Nodes \(\d+\)/)).toContain('Cancelled');
    expect(app.emulator!.nodes().some((n) => n.name === 'bob')).toBe(true);
  });

  it('checks the 8-character rule in the dialog before anything runs, and refuses a name that matches two nodes by case', async () => {
    await type('/rln node create newt', /newt/);
    await until(0, /newt[^\n]*RUNNING/);
    await type('/rln node init newt', 'New node password');
    await type('short', 'Repeat the new password');
    const refused = await type('short', 'Answer again');
    expect(refused).toContain('✖ password: The password must have at least 8 characters; this one has 5.');
    input.write('\n');
    expect(app.emulator!.nodes().find((n) => n.name === 'newt')!.initialized).toBeFalsy();
    await type('/rln node create Twin', /Twin/);
    await type('/rln node create twin', /twin/);
    const ambiguous = await type('/rln node info TWIN', 'matches 2 nodes');
    expect(ambiguous).toMatch(/`TWIN` matches 2 nodes: Twin \([^)]+\), twin \([^)]+\)\./);
  });

  it('refuses to pay an invoice already paid, and an asset send that differs from its RGB invoice, showing both amounts', async () => {
    const client = (name: string) => {
      const n = app.emulator!.nodes().find((x) => x.name === name)!;
      return createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: app.emulator!.nodeApiToken }, retries: 0 });
    };
    const [alice, bob] = [client('alice'), client('bob')];
    const bobPk = (await bob.nodeinfo()).pubkey;
    await alice.createutxos({ num: 4, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    await bob.createutxos({ num: 4, size: 32_500, fee_rate: 1, up_to: false, skip_sync: false });
    await alice.openchannel({
      peer_pubkey_and_opt_addr: `${bobPk}@bob.peer.invalid:9735`,
      capacity_sat: 100_000,
      push_msat: 0,
      public: true,
      with_anchors: true,
    });
    app.emulator!.world.mine(6);
    const { invoice } = await bob.lninvoice({ amt_msat: 1_000_000, expiry_sec: 600 });
    expect((await alice.sendpayment({ invoice })).status).toBe('Succeeded');
    const paid = await type(`/rln pay send alice ${invoice}`, 'already paid');
    expect(paid).toMatch(/alice already paid this invoice/);
    expect(paid).not.toMatch(/type: confirm/);
    const { asset } = await alice.issueassetnia({ amounts: [100_000], ticker: 'TRM', name: 'Terminal units', precision: 2 });
    const { invoice: rgb } = await bob.rgbinvoice({
      asset_id: asset.asset_id,
      assignment: { type: 'Fungible', value: 1_000 },
      min_confirmations: 1,
      witness: false,
    });
    const differs = await type(`/rln asset send alice TRM 12.5 ${rgb}`, 'The invoice asks for');
    expect(differs).toContain('The invoice asks for 10.00 TRM, but the send is of 12.50 TRM.');
    expect(differs).not.toMatch(/type: confirm/);
  });

  it('refuses before any prompt, with the reason: an expired invoice, an RGB invoice for another asset or expired, locking a locked node, upgrading a node on the latest image', async () => {
    const client = (name: string) => {
      const n = app.emulator!.nodes().find((x) => x.name === name)!;
      return createNodeApiClient({ baseUrl: n.invoke_url!, credentials: { kind: 'token', token: app.emulator!.nodeApiToken }, retries: 0 });
    };
    const [alice, bob] = [client('alice'), client('bob')];
    const notAsked = /type: confirm|password:|\[y\/N\]/;
    const { invoice: short } = await bob.lninvoice({ amt_msat: 1_000_000, expiry_sec: 1 });
    await new Promise((r) => setTimeout(r, 1_100));
    const expired = await type(`/rln pay send alice ${short}`, 'it can no longer be paid');
    expect(expired).toMatch(/This invoice expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC: it can no longer be paid\./);
    expect(expired).toContain('Ask the payee for a new invoice.');
    expect(expired).not.toMatch(notAsked);

    const trm = (await alice.listassets({ filter_asset_schemas: [] })).nia!.find((a) => a.ticker === 'TRM')!.asset_id;
    const { asset: other } = await alice.issueassetnia({ amounts: [500], ticker: 'OTX', name: 'Other terminal units', precision: 0 });
    const { invoice: forOther } = await bob.rgbinvoice({
      asset_id: other.asset_id,
      assignment: { type: 'Fungible', value: 5 },
      min_confirmations: 1,
      witness: false,
    });
    const otherAsset = await type(`/rln asset send alice TRM 5 ${forOther}`, 'The invoice asks for');
    expect(otherAsset).toMatch(/The invoice asks for OTX[^,]*, but the send is of TRM/);
    expect(otherAsset).not.toMatch(notAsked);
    const stale = `rgb:${trm.slice(4)}/~/~/bcrt:utxob:staleRecipient-one?expiry=1000&endpoints=rpc://127.0.0.1/json-rpc`;
    const staleAsk = await type(`/rln asset send alice TRM 5 ${stale}`, 'The invoice expired at');
    expect(staleAsk).toContain('The invoice expired at 1970-01-01 00:16 UTC');
    expect(staleAsk).not.toMatch(notAsked);

    // vault: created here, initialised (which leaves it locked), on the latest image.
    await type('/rln node create vault', /vault/);
    await until(0, /vault[^\n]*RUNNING/);
    await client('vault').init({ password: 'vault-password-42' });
    const locked = await type('/rln node lock vault', 'already locked');
    expect(locked).toContain('vault is already locked.');
    expect(locked).not.toMatch(notAsked);
    const runs = imageOf(app.emulator!.nodes().find((n) => n.name === 'vault')!)!;
    const latest = await type('/rln node upgrade vault', 'nothing to upgrade');
    expect(latest).toContain(`vault already runs the latest image, ${runs}: there is nothing to upgrade.`);
    expect(latest).not.toMatch(notAsked);
  });

  it('makes a node fail with /demo fail, which opens an incident here', async () => {
    const part = await type('/demo fail bob', /\[#terminal[^\n]*\]\n│[^\n]*bob[^\n]*\n[\s\S]*FAILED/);
    expect(part).toContain('bob is now FAILED in the emulator');
  });
});
