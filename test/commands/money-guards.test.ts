/**
 * Every movement of value guarded the same way, and one amount grammar without traps (issue 26),
 * through the dispatcher with every real command, against the emulated nodes on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import { DEFAULT_APPROVAL_POLICY } from '../../src/access/index.js';
import { inlineToPlain, type Actor } from '../../src/vocabulary/index.js';
import { openDatabase } from '../../src/store/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { messageText } from '../support/reply-text.js';
import { testDispatcher } from '../support/dispatcher.js';
import { createReadyNode, startEnv, type TestEnv } from '../support/commands.js';

const place = { platform: 'slack' as const, channelId: 'CMONEY', workspaceId: 'T1' };
const admin = { platform: 'slack' as const, userId: 'UADMIN', displayName: 'ann' };
const text = (r: Reply) => (r.kind === 'message' ? messageText(r.message) : JSON.stringify(r));
const hasConfirm = (r: Reply) => r.kind === 'message' && (r.message.buttons ?? []).some((b) => b.label === 'Confirm');
function fieldsOf(r: Reply): Record<string, string> {
  if (r.kind !== 'message') return {};
  const out: Record<string, string> = {};
  for (const b of r.message.blocks) if (b.type === 'fields') for (const f of b.fields) out[f.label] = inlineToPlain(f.value);
  return out;
}

describe('amounts, and what moves value', () => {
  let env: TestEnv;
  let dir: string;
  let alice: HostedNode;
  let bob: HostedNode;
  let typed: (line: string) => Promise<Reply>;
  let d: ReturnType<typeof testDispatcher>;
  beforeAll(async () => {
    env = await startEnv();
    dir = mkdtempSync(join(tmpdir(), 'rln-money-'));
    d = testDispatcher({
      db: openDatabase(join(dir, 'bot.db')),
      registry: createRegistry(allCommands),
      services: env.services,
      admins: ['slack:UADMIN'],
      nodeCacheMs: 0,
    });
    typed = (line) => d.dispatch({ via: 'typed', actor: admin, place, text: line });
    alice = await createReadyNode(env, 'alice', { utxos: true });
    bob = await createReadyNode(env, 'bob', { utxos: true });
    await env.api(alice).issueassetnia({ ticker: 'USDT', name: 'Tether', amounts: [1_000_000], precision: 2 });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('invoice ln takes its amount after the node, with its unit: 50k sats is 50,000 sats', async () => {
    const r = await typed('invoice ln bob 50k sats');
    expect(text(r)).toContain('Lightning invoice · bob');
    expect(fieldsOf(r).Amount).toBe('50,000 sats (50,000,000 msat)');
  });

  it('invoice rgb takes "10 USDT" after the node, on a node that never held USDT: the ticker and precision come from the node that issued it', async () => {
    // A node on the 6887cbf API needs the endpoints the sender delivers to.
    const r = await typed('invoice rgb bob 10 USDT transport_endpoints=rpc://127.0.0.1:3000/json-rpc');
    expect(text(r)).toContain('RGB invoice · bob');
    expect(fieldsOf(r).Amount).toBe('10.00 USDT');
    const code = r.kind === 'message' ? r.message.blocks.find((b) => b.type === 'code') : undefined;
    const invoice = code && code.type === 'code' ? code.text : '';
    const decoded = await env.api(bob).decodergbinvoice({ invoice });
    expect(decoded.assignment).toEqual({ type: 'Fungible', value: 1000 });
  });

  it('refuses a bare amount in place, a negative one, zero and too many decimals, each in its own words (P8, P26)', async () => {
    expect(text(await typed('pay keysend alice bob 50k'))).toMatch(/"50k" has no unit[\s\S]*50k sats/);
    expect(text(await typed('pay keysend alice bob -5 sats'))).toContain('it is negative');
    expect(text(await typed('pay keysend alice bob 0 sats'))).toContain('must be more than 0');
    expect(text(await typed('pay keysend alice bob 1.5 msat'))).toContain('it is not a whole number of msat');
  });

  it('a failed keysend says why, as far as the channels tell: no channel, so no route (P14)', async () => {
    const asked = await typed('pay keysend alice bob 1000 sats');
    const id = asked.kind === 'message' ? asked.message.buttons?.find((b) => b.label === 'Confirm')?.id : undefined;
    expect(id).toBeDefined();
    const r = await d.dispatch({ via: 'button', actor: admin, place, buttonId: id! });
    expect(text(r)).toContain('Keysend failed · alice');
    expect(fieldsOf(r).Why).toBe('the node has no channel at all, so no route to bob: open one (`channel open`)');
    void alice;
  });

  it("channel open below the node's minimum size is refused before any confirmation, and node info shows the limits (P15)", async () => {
    const r = await typed('channel open alice bob 1000 sats');
    expect(hasConfirm(r)).toBe(false);
    expect(text(r)).toMatch(/alice opens channels of [\d,]+ sats to [\d,]+ sats; 1,000 sats is below that/);
    expect(text(r)).toContain('node info alice');
    expect(text(await typed('node info alice'))).toMatch(/Channel size: [\d,]+ sats to [\d,]+ sats/);
  });

  it('a send of more than the wallet can spend is refused before any confirmation', async () => {
    const { address } = await env.api(bob).address();
    const r = await typed(`wallet send alice ${address} 1 BTC`);
    expect(hasConfirm(r)).toBe(false);
    expect(text(r)).toMatch(/alice can spend [\d,]+ sats on-chain now, less than the 100,000,000 sats this needs/);
  });

  describe('with the default approval policy and admins limited to 100k sats a day', () => {
    let limited: ReturnType<typeof testDispatcher>;
    const as = (actor: Actor, line: string) => limited.dispatch({ via: 'typed', actor, place, text: line });
    const click = (actor: Actor, r: Reply, label: string) => {
      const id = r.kind === 'message' ? r.message.buttons?.find((b) => b.label === label)?.id : undefined;
      if (!id) throw new Error(`no ${label} button in ${text(r)}`);
      return limited.dispatch({ via: 'button', actor, place, buttonId: id });
    };
    const other = { platform: 'slack' as const, userId: 'UOTHER', displayName: 'otto' };
    beforeAll(() => {
      limited = testDispatcher({
        db: openDatabase(join(dir, 'limited.db')),
        registry: createRegistry(allCommands),
        services: env.services,
        admins: ['slack:UADMIN', 'slack:UOTHER', 'discord:42'],
        operators: ['slack:UOPS'],
        approvalPolicy: DEFAULT_APPROVAL_POLICY,
        spendLimits: 'admin = 100k sats',
        nodeCacheMs: 0,
      });
    });

    it('wallet send over the limit is refused before any confirmation, and the balance does not move', async () => {
      const before = await env.api(alice).btcbalance({ skip_sync: false });
      const { address } = await env.api(bob).address();
      const r = await as(admin, `wallet send alice ${address} 200k sats`);
      expect(hasConfirm(r)).toBe(false);
      expect(text(r)).toContain('over the daily limit of 100,000 sats for the admin role: 0 sats spent today, 100,000 sats left');
      expect((await env.api(alice).btcbalance({ skip_sync: false })).vanilla.spendable).toBe(before.vanilla.spendable);
    });

    it('the confirmation says what is left of the limit and that a second person will be needed; the send counts', async () => {
      const { address } = await env.api(bob).address();
      const small = await as(admin, `wallet send alice ${address} 30k sats`);
      expect(fieldsOf(small)['Daily limit']).toBe('70,000 sats of 100,000 sats left today after this (the admin role)');
      expect(fieldsOf(small)['Second person']).toBeUndefined();
      expect(text(await click(admin, small, 'Confirm'))).toContain('BTC sent · alice');
      expect(text(await as(admin, 'policy limits'))).toContain('sat | 100,000 sats | 30,000 sats | 70,000 sats');
      // A channel open moves sats out of the wallet too: over what is left, it is refused before confirming.
      const open = await as(admin, 'channel open alice bob 80k sats');
      expect(hasConfirm(open)).toBe(false);
      expect(text(open)).toContain('70,000 sats left');
    });

    it('a payment that ends Failed gives its amount back to the day’s limit', async () => {
      const r = await as(admin, 'pay keysend alice bob 5000 sats');
      expect(fieldsOf(r)['Daily limit']).toBe('65,000 sats of 100,000 sats left today after this (the admin role)');
      expect(text(await click(admin, r, 'Confirm'))).toContain('Keysend failed');
      expect(text(await as(admin, 'policy limits'))).toContain('sat | 100,000 sats | 30,000 sats | 70,000 sats');
    });

    it('a change of the approval policy waits for a second admin, and the one who asked cannot approve it', async () => {
      const r = await as(admin, 'policy set approval node.destroy off=true');
      expect(text(r)).toContain('Approval needed: policy set');
      expect(text(await as(admin, 'policy list'))).toContain('node.destroy | always');
      expect(text(await click(admin, r, 'Approve'))).toContain('someone else must approve it');
      expect(text(await click(other, r, 'Approve'))).toContain('node.destroy no longer needs a second person');
    });

    it('granting admin waits for a second admin; granting operate does not', async () => {
      expect(text(await as(admin, 'access grant slack:UNEW admin'))).toContain('Approval needed: access grant');
      expect(text(await as(admin, 'access grant slack:UNEW operate'))).toContain('now has the operate role');
    });

    it('one person’s linked accounts cannot approve each other’s request', async () => {
      expect(text(await as(admin, 'access link slack:UADMIN discord:42'))).toContain('are now one person');
      const r = await as(admin, 'access grant slack:UNEW2 admin');
      const discordMe = { platform: 'discord' as const, userId: '42', displayName: 'ann' };
      expect(text(await click(discordMe, r, 'Approve'))).toContain('someone else must approve it');
    });
  });

  describe('at approval, who asked and who clicks', () => {
    it('a revoked operator’s pending request does not run, and a refused Approve is audited under the clicker (P5)', async () => {
      const d3 = testDispatcher({
        db: openDatabase(join(dir, 'approvals.db')),
        registry: createRegistry(allCommands, { roleOverrides: { audit: 'admin' } }),
        services: env.services,
        admins: ['slack:UADMIN'],
        approvalPolicy: 'node.stop',
        nodeCacheMs: 0,
      });
      const as = (actor: Actor, line: string) => d3.dispatch({ via: 'typed', actor, place, text: line });
      const click = (actor: Actor, r: Reply, label: string) => {
        const id = r.kind === 'message' ? r.message.buttons?.find((b) => b.label === label)?.id : undefined;
        if (!id) throw new Error(`no ${label} button in ${text(r)}`);
        return d3.dispatch({ via: 'button', actor, place, buttonId: id });
      };
      const op = { platform: 'slack' as const, userId: 'UOP2', displayName: 'olga' };
      const reader = { platform: 'slack' as const, userId: 'UREAD', displayName: 'rita' };
      await as(admin, 'access grant slack:UOP2 operate');
      const request = await click(op, await as(op, 'node stop bob'), 'Confirm');
      expect(text(request)).toContain('Approval needed: node stop bob');
      // Someone without the role clicks Approve: refused, and recorded as their act.
      expect(text(await click(reader, request, 'Approve'))).toContain('needs the operate role');
      expect(text(await as(admin, 'audit user=slack:UREAD'))).toMatch(/rita[\s\S]*refused/);
      await as(admin, 'access revoke slack:UOP2');
      expect(text(await click(admin, request, 'Approve'))).toContain('no longer has the operate role');
      expect((await env.services.hosting.getNode(bob.nodeId)).status).toBe('RUNNING');
      expect(text(await click(admin, request, 'Approve'))).toContain('already rejected');
    });
  });
});
