/**
 * What a newcomer's sweep of the demo found misleading (issue 26, item 7), each driven through the
 * dispatcher with every real command against the emulated nodes on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import { inlineToPlain, type Actor } from '../../src/vocabulary/index.js';
import { openDatabase } from '../../src/store/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { messageText } from '../support/reply-text.js';
import { testDispatcher } from '../support/dispatcher.js';
import { createReadyNode, startEnv, type TestEnv } from '../support/commands.js';

const place = { platform: 'slack' as const, channelId: 'CSWEEP', workspaceId: 'T1' };
const admin = { platform: 'slack' as const, userId: 'UADMIN', displayName: 'ann' };
const text = (r: Reply) => (r.kind === 'message' ? messageText(r.message) : JSON.stringify(r));
/** Each field of a reply by its label; a label given twice is kept twice, joined with `||`. */
function fieldsOf(r: Reply): Record<string, string> {
  if (r.kind !== 'message') return {};
  const out: Record<string, string> = {};
  for (const b of r.message.blocks)
    if (b.type === 'fields')
      for (const f of b.fields)
        out[f.label] = out[f.label] === undefined ? inlineToPlain(f.value) : `${out[f.label]}||${inlineToPlain(f.value)}`;
  return out;
}
const labelsOf = (r: Reply) =>
  r.kind === 'message' ? r.message.blocks.flatMap((b) => (b.type === 'fields' ? b.fields.map((f) => f.label) : [])) : [];

describe('what the newcomer sweep found', () => {
  let env: TestEnv;
  let dir: string;
  let alice: HostedNode;
  let bob: HostedNode;
  let d: ReturnType<typeof testDispatcher>;
  const as = (actor: Actor, line: string) => d.dispatch({ via: 'typed', actor, place, text: line });
  const typed = (line: string) => as(admin, line);
  const click = (actor: Actor, r: Reply, label: string) => {
    const id = r.kind === 'message' ? r.message.buttons?.find((b) => b.label === label)?.id : undefined;
    if (!id) throw new Error(`no ${label} button in ${text(r)}`);
    return d.dispatch({ via: 'button', actor, place, buttonId: id });
  };
  beforeAll(async () => {
    env = await startEnv();
    dir = mkdtempSync(join(tmpdir(), 'rln-sweep-'));
    d = testDispatcher({
      db: openDatabase(join(dir, 'bot.db')),
      registry: createRegistry(allCommands),
      services: env.services,
      admins: ['slack:UADMIN', 'slack:UOTHER'],
      approvalPolicy: 'pay.send; channel.open',
      nodeCacheMs: 0,
    });
    alice = await createReadyNode(env, 'alice', { utxos: true });
    bob = await createReadyNode(env, 'bob', { utxos: true });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function bobInvoice(): Promise<string> {
    return (await env.api(bob).lninvoice({ amt_msat: 3_000_000, expiry_sec: 600 })).invoice;
  }

  it('invoice decode names the payee when it is our node: "bob (our node)", not only 02c8… (P35)', async () => {
    const r = await typed(`invoice decode alice ${await bobInvoice()}`);
    expect(fieldsOf(r).Payee).toMatch(/^bob \(our node\) [0-9a-f]{66}$/);
  });

  it('pay send: the approval card names our node as payee, and its two expiries apart (P35, P37)', async () => {
    const asked = await typed(`pay send alice ${await bobInvoice()}`);
    expect(fieldsOf(asked).Payee).toMatch(/^bob \(our node\) /);
    const card = await click(admin, asked, 'Confirm');
    expect(text(card)).toContain('Approval needed: pay send alice');
    const labels = labelsOf(card);
    expect(labels).toContain('Invoice expires');
    expect(labels.filter((l) => l === 'Expires')).toHaveLength(1);
    expect(new Set(labels).size).toBe(labels.length);
    // Approved by the other admin, the result names the payee too (the payment fails: no channel).
    const result = await click({ platform: 'slack', userId: 'UOTHER', displayName: 'otto' }, card, 'Approve');
    expect(fieldsOf(result).Payee).toMatch(/^bob \(our node\) /);
  });

  it('a second identical request while one is pending is refused, naming the pending one (P44)', async () => {
    const first = await click(admin, await typed('channel open alice bob 100k sats'), 'Confirm');
    expect(text(first)).toContain('Approval needed: channel open alice');
    const again = await typed('channel open alice bob 100k sats');
    expect(text(again)).toContain('The same request is already waiting for a second person');
    expect(again.kind === 'message' && again.message.buttons?.some((b) => b.label === 'Confirm')).toBeFalsy();
    // A different amount is a different request.
    expect(text(await typed('channel open alice bob 120k sats'))).toContain('Confirm: channel open alice?');
  });

  it('a role refusal in the terminal lists every admin: ADMIN_USERS, grants and the built-in shell:local (P36)', async () => {
    const roles = testDispatcher({
      registry: createRegistry(allCommands),
      services: env.services,
      admins: ['shell:ann', 'slack:UADMIN'],
      readers: ['shell:rita', 'slack:UREAD'],
      nodeCacheMs: 0,
    });
    const terminal = { platform: 'shell' as const, channelId: 'terminal' };
    const refused = await roles.dispatch({
      via: 'typed',
      actor: { platform: 'shell', userId: 'rita' },
      place: terminal,
      text: 'node stop alice',
    });
    expect(text(refused)).toContain('Admins: shell:ann, slack:UADMIN, shell:local.');
    // In Slack the terminal's built-in admin is no one to ask.
    const inSlack = await roles.dispatch({ via: 'typed', actor: { platform: 'slack', userId: 'UREAD' }, place, text: 'node stop alice' });
    expect(text(inSlack)).toContain('Admins: shell:ann, slack:UADMIN.');
  });

  it('peer disconnect with an open channel: the hint says to close it first, as the node does, not "check the arguments" (P40)', async () => {
    const bobKey = (await env.api(bob).nodeinfo()).pubkey;
    await env.api(alice).connectpeer({ peer_pubkey_and_addr: `${bobKey}@127.0.0.1:9735` });
    await env.api(alice).openchannel({ peer_pubkey_and_opt_addr: bobKey, capacity_sat: 100_000, push_msat: 0 });
    env.world.mine(6);
    const r = await typed('peer disconnect alice bob');
    expect(text(r)).toContain('a channel with this peer is open: close it first');
    expect(text(r)).not.toContain('check the arguments');
  });

  it('`n` alone suggests nothing: a prefix is a hint only from three letters on (P46)', async () => {
    const r = await typed('n');
    expect(text(r)).toContain('/rln help');
    expect(text(r)).not.toContain('Did you mean');
    expect(text(await typed('nod lst'))).toContain('Did you mean `/rln node list`?');
  });

  it('node backup’s dialog says the backup is encrypted with this password, not "with it" (P42)', async () => {
    await env.api(bob).lock();
    const r = await typed('node backup bob');
    const field = r.kind === 'dialog' ? r.dialog.fields.find((f) => f.name === 'password') : undefined;
    expect(field?.hint).toBe('The backup is encrypted with this password');
  });
});
