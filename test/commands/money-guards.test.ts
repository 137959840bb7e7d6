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
import { inlineToPlain } from '../../src/vocabulary/index.js';
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
    d = testDispatcher({ db: openDatabase(join(dir, 'bot.db')), registry: createRegistry(allCommands), services: env.services, admins: ['slack:UADMIN'], nodeCacheMs: 0 });
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
    const r = await typed('invoice rgb bob 10 USDT');
    expect(text(r)).toContain('RGB invoice · bob');
    expect(fieldsOf(r).Amount).toBe('10.00 USDT');
    const code = r.kind === 'message' ? r.message.blocks.find((b) => b.type === 'code') : undefined;
    const invoice = code && code.type === 'code' ? code.text : '';
    const decoded = await env.api(bob).decodergbinvoice({ invoice });
    expect(decoded.assignment).toEqual({ type: 'Fungible', value: 1000 });
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

  it('channel open below the node\'s minimum size is refused before any confirmation, and node info shows the limits (P15)', async () => {
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
});
