/** The policy service on a real (in-memory) SQLite database: rules, limits, the ledger, approvals, the audit trail. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createApp } from '../../src/app/create-app.js';
import { openDatabase } from '../../src/store/index.js';
import { createAuditLog, createPolicy, createRoleService } from '../../src/access/index.js';
import { createRegistry, approvalActionChecker } from '../../src/engine/index.js';
import { UserError } from '../../src/vocabulary/index.js';
import { allCommands } from '../../commands/index.js';
import type { Actor } from '../../src/vocabulary/actors.js';

const ann: Actor = { platform: 'slack', userId: 'UANN', displayName: 'ann' };
const bob: Actor = { platform: 'slack', userId: 'UBOB', displayName: 'bob' };
const registry = createRegistry(allCommands);

function world(o: { approvalPolicy?: string; spendLimits?: string; tz?: string; t?: number } = {}) {
  const db = openDatabase(':memory:');
  const clock = { t: o.t ?? Date.parse('2026-11-22T10:00:00Z') };
  const access = createRoleService(db, { admins: ['slack:UANN'], operators: ['slack:UBOB'] });
  const policy = createPolicy({ db, now: () => clock.t, access, checkAction: approvalActionChecker(registry), ...o });
  return { db, clock, access, policy };
}
const send = (sats: number, asset?: { ticker: string; amount: number }) => ({
  msat: sats * 1000,
  ...(asset ? { asset } : {}),
  counts: true,
});

describe('the approval policy', () => {
  it('puts destroy and sends above a threshold under approval by default', async () => {
    const { policy } = world();
    expect(await policy.approvalNeeded('node destroy')).toBe('node.destroy always needs a second person');
    expect(await policy.approvalNeeded('pay send', send(100_000))).toBeUndefined();
    expect(await policy.approvalNeeded('pay send', send(100_001))).toBe('pay.send above 100,000 sats needs a second person');
    expect(await policy.approvalNeeded('asset send', send(0, { ticker: 'USDT', amount: 1001 }))).toContain('above 1,000 (any asset');
    expect(await policy.approvalNeeded('node stop')).toBeUndefined();
  });

  it('uses an asset’s own threshold over the one for any asset, and policy set changes and removes rules at run time', async () => {
    const { policy } = world({ approvalPolicy: 'asset.send > 1000 *; asset.send > 10 USDT' });
    expect(await policy.approvalNeeded('asset send', send(0, { ticker: 'USDT', amount: 11 }))).toContain('10 USDT');
    expect(await policy.approvalNeeded('asset send', send(0, { ticker: 'EUR', amount: 11 }))).toBeUndefined();
    await policy.setApproval({ action: 'asset.send', over: { unit: 'USDT', amount: 10 } }, true, ann);
    expect(await policy.approvalNeeded('asset send', send(0, { ticker: 'USDT', amount: 11 }))).toBeUndefined();
    await policy.setApproval({ action: 'node.stop' }, false, ann);
    expect((await policy.approvalRules()).find((r) => r.action === 'node.stop')).toMatchObject({
      source: 'policy set',
      setBy: 'slack:UANN',
    });
  });

  it('refuses to put a command whose dialog takes a secret under approval, at start-up and at run time', async () => {
    expect(() => world({ approvalPolicy: 'node.unlock' })).toThrow(/its dialog takes a secret/);
    const { policy } = world();
    for (const action of ['node.init', 'node.unlock', 'node.password', 'node.restore']) {
      await expect(policy.setApproval({ action }, false, ann)).rejects.toThrow(UserError);
    }
    const typo = await policy.setApproval({ action: 'node.destory' }, false, ann).then(
      () => undefined,
      (e: unknown) => e as UserError,
    );
    expect(typo).toMatchObject({ message: 'There is no command node.destory to put under approval.', hint: 'Did you mean node.destroy?' });
    await expect(policy.setApproval({ action: 'node.stop', over: { unit: 'sat', amount: 5 } }, false, ann)).rejects.toThrow(
      /moves no funds/,
    );
  });
});

describe('spend limits', () => {
  it('refuses a send over the day’s limit with what is left and when it resets, and counts what was reserved', async () => {
    const { policy } = world({ spendLimits: 'operate = 10k sats' });
    expect(await policy.reserve(bob, 'pay send', send(6000))).toHaveLength(1);
    const refusal = (await policy.checkLimit(bob, send(5000)))!;
    expect(refusal.message).toBe(
      'This would spend 5,000 sats, over the daily limit of 10,000 sats for the operate role: 6,000 sats spent today, 4,000 sats left. The limit resets at 00:00 UTC (2026-11-23).',
    );
    await expect(policy.reserve(bob, 'pay send', send(5000))).rejects.toThrow(/4,000 sats left/);
    expect(await policy.checkLimit(bob, send(4000))).toBeUndefined();
  });

  it('gives a person’s own limit over their role’s, and limits an asset in display units (or any asset with *)', async () => {
    const { policy } = world({ spendLimits: 'operate = 10k sats, 5 *; slack:UBOB = 1k sats; slack:UBOB = 2 USDT' });
    expect((await policy.checkLimit(bob, send(1500)))?.message).toContain('for you (slack:UBOB)');
    expect((await policy.checkLimit(bob, send(0, { ticker: 'USDT', amount: 2.5 })))?.message).toContain('2 USDT');
    expect(await policy.checkLimit(bob, send(0, { ticker: 'EUR', amount: 4.5 }))).toBeUndefined();
    expect((await policy.checkLimit(bob, send(0, { ticker: 'EUR', amount: 5.5 })))?.message).toContain('for the operate role');
  });

  it('releases a reservation when the send failed, and starts again the next day in LIMITS_TZ', async () => {
    const { policy, clock } = world({ spendLimits: 'operate = 10k sats', tz: 'Asia/Tokyo', t: Date.parse('2026-11-22T14:30:00Z') });
    const ids = await policy.reserve(bob, 'pay send', send(9000));
    await policy.release(ids);
    expect(await policy.reserve(bob, 'pay send', send(9000))).toHaveLength(1);
    expect((await policy.checkLimit(bob, send(2000)))?.message).toContain('resets at 00:00 Asia/Tokyo (2026-11-23)');
    clock.t = Date.parse('2026-11-22T15:00:00Z'); // 00:00 in Tokyo
    expect(await policy.checkLimit(bob, send(9000))).toBeUndefined();
  });

  it('counts what is marked not counted nowhere', async () => {
    const { policy } = world({ spendLimits: 'operate = 1k sats' });
    expect(await policy.checkLimit(bob, { msat: 5_000_000, counts: false })).toBeUndefined();
    expect(await policy.reserve(bob, 'x', { msat: 5_000_000, counts: false })).toEqual([]);
  });

  it('counts msat exactly: a 999 msat keysend counts, and sums of them reach the limit', async () => {
    const { policy } = world({ spendLimits: 'operate = 2 sats' });
    expect(await policy.reserve(bob, 'pay keysend', { msat: 999, counts: true })).toHaveLength(1);
    expect(await policy.reserve(bob, 'pay keysend', { msat: 999, counts: true })).toHaveLength(1);
    expect((await policy.usage(bob)).find((u) => u.unit === 'sat')?.spent).toBe(1.998);
    const over = (await policy.checkLimit(bob, { msat: 3, counts: true }))!;
    expect(over.message).toContain('1.998 sats spent today, 0.002 sats left');
    expect(await policy.checkLimit(bob, { msat: 2, counts: true })).toBeUndefined();
    expect(await policy.leftAfter(bob, { msat: 1, counts: true })).toEqual([
      '0.001 sats of 2 sats left today after this (the operate role)',
    ]);
  });

  it('puts on-chain sends, and the four eyes themselves, under approval by default', async () => {
    const { policy } = world();
    expect(await policy.approvalNeeded('wallet send', send(100_001))).toBe('wallet.send above 100,000 sats needs a second person');
    expect(await policy.approvalNeeded('wallet send', send(100_000))).toBeUndefined();
    expect(await policy.approvalNeeded('asset send', send(1_000_000, { ticker: 'WIT', amount: 1 }))).toBe(
      'asset.send above 100,000 sats needs a second person',
    );
    expect(await policy.approvalNeeded('policy set')).toBe('policy.set always needs a second person');
    expect(await policy.approvalNeeded('access grant')).toBe('access.grant always needs a second person');
    const none = world({ approvalPolicy: 'none' }).policy;
    expect(await none.approvalNeeded('policy set')).toBeUndefined();
  });
});

describe('approval requests', () => {
  it('are decided once, and not after they expire', async () => {
    const { policy, clock } = world();
    const req = await policy.approvals.create({
      actor: ann,
      place: { platform: 'slack', channelId: 'C1' },
      path: 'pay send',
      args: { node: 'alice' },
      fields: [],
      ttlMs: 60_000,
    });
    expect(await policy.approvals.decide(req.id, 'approved', bob)).toBe(true);
    expect(await policy.approvals.decide(req.id, 'approved', bob)).toBe(false);
    expect(await policy.approvals.get(req.id)).toMatchObject({ state: 'approved', decidedBy: 'slack:UBOB' });
    const late = await policy.approvals.create({
      actor: ann,
      place: { platform: 'slack', channelId: 'C1' },
      path: 'pay send',
      args: {},
      fields: [],
      ttlMs: 60_000,
    });
    clock.t += 61_000;
    expect(await policy.approvals.decide(late.id, 'approved', bob)).toBe(false);
  });
});

describe('the audit trail', () => {
  it('filters by node, user, action, outcome and time, and prunes what is older than the retention', async () => {
    const db = openDatabase(':memory:');
    const clock = { t: Date.parse('2026-11-22T10:00:00Z') };
    const audit = createAuditLog(db, { now: () => clock.t, retentionDays: 30 });
    const place = { platform: 'slack' as const, channelId: 'C1' };
    await audit.record({
      at: new Date('2026-10-01T00:00:00Z'),
      actor: ann,
      place,
      path: 'node stop',
      node: 'alice',
      args: {},
      outcome: 'ok',
    });
    await audit.record({ actor: ann, place, path: 'pay send', node: 'alice', args: {}, outcome: 'ok' });
    await audit.record({ actor: bob, place, path: 'pay send', node: 'bob', args: {}, outcome: 'refused' });
    await audit.record({ actor: bob, place, path: 'approval request', node: 'bob', args: { action: 'pay.send' }, outcome: 'ok' });
    expect(await audit.query({ action: 'pay.send' })).toHaveLength(3);
    expect(await audit.query({ action: 'pay.send', user: 'slack:UBOB', outcome: 'refused' })).toHaveLength(1);
    expect((await audit.query({ node: 'alice', since: new Date('2026-11-01T00:00:00Z') })).map((e) => e.path)).toEqual(['pay send']);
    expect(await audit.query({ node: 'alice' })).toHaveLength(2);
    expect(await audit.prune()).toBe(1);
    expect(await audit.query({ node: 'alice' })).toHaveLength(1);
  });
});

describe('starting the bot', () => {
  it('refuses an APPROVAL_POLICY that names a command with a secret dialog, as a configuration problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-policy-'));
    try {
      const config = loadConfig({
        SERVICE_URL: 'http://127.0.0.1:9',
        SERVICE_API_TOKEN: 't',
        DATABASE_PATH: join(dir, 'bot.db'),
        LOG_LEVEL: 'silent',
        APPROVAL_POLICY: 'node.destroy; node.unlock',
      });
      const started = createApp({ config, shell: false });
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toMatchObject({
        problems: [expect.stringMatching(/^APPROVAL_POLICY: node.unlock cannot be put under approval: its dialog takes a secret/)],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses policies it cannot read, naming each variable, before it opens the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rln-policy-'));
    try {
      const config = loadConfig({
        SERVICE_URL: 'http://127.0.0.1:9',
        SERVICE_API_TOKEN: 't',
        DATABASE_PATH: join(dir, 'bot.db'),
        LOG_LEVEL: 'silent',
        APPROVAL_POLICY: 'pay.send > 5',
        SPEND_LIMITS: 'x = 1 sat',
      });
      const started = createApp({ config, shell: false });
      await expect(started).rejects.toMatchObject({
        problems: [
          expect.stringMatching(/^APPROVAL_POLICY: pay.send: "5" has no unit/),
          expect.stringMatching(/^SPEND_LIMITS: "x" is neither a role/),
        ],
      });
      expect(existsSync(join(dir, 'bot.db'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
