import { describe, expect, it } from 'vitest';
import { parseApprovalPolicy, parseSpendLimits, policyConfigProblems, DEFAULT_APPROVAL_POLICY } from '../../src/access/parse-policy.js';
import { loadConfig, ConfigError } from '../../src/config.js';

describe('the written approval policy and spend limits', () => {
  it('reads rules with and without thresholds, separated by ; or new lines', () => {
    expect(parseApprovalPolicy('node.destroy; pay.send > 100k sats\nasset.send>100 USDT')).toEqual([
      { action: 'node.destroy' },
      { action: 'pay.send', over: { unit: 'sat', amount: 100_000 } },
      { action: 'asset.send', over: { unit: 'USDT', amount: 100 } },
    ]);
    expect(parseApprovalPolicy('none')).toEqual([]);
    expect(parseApprovalPolicy(DEFAULT_APPROVAL_POLICY).map((r) => r.action)).toEqual([
      'node.destroy',
      'pay.send',
      'pay.keysend',
      // On-chain sends are guarded like payments (issue 26): wallet.send, and asset.send's
      // witness sats beside its asset amount.
      'wallet.send',
      'asset.send',
      'asset.send',
      'channel.open',
      // Four eyes protect themselves: the policy, admin grants and unlinking need a second admin.
      'policy.set',
      'access.grant',
      'access.unlink',
    ]);
  });

  it('names the rule that is wrong and how to write it', () => {
    expect(() => parseApprovalPolicy('node destroy!')).toThrow(/is not an approval rule: write a command with dots/);
    expect(() => parseApprovalPolicy('pay.send > 100')).toThrow(/^pay.send: "100" has no unit/);
  });

  it('reads limits for roles (with aliases) and principals, several units each', () => {
    expect(parseSpendLimits('operator = 500k sats, 100 USDT; slack:U0123 = 2M sats')).toEqual([
      { who: 'operate', perDay: { unit: 'sat', amount: 500_000 } },
      { who: 'operate', perDay: { unit: 'USDT', amount: 100 } },
      { who: 'slack:U0123', perDay: { unit: 'sat', amount: 2_000_000 } },
    ]);
    expect(() => parseSpendLimits('@ann = 5 sats')).toThrow(/neither a role .* nor a principal/);
    expect(() => parseSpendLimits('operate 5 sats')).toThrow(/write who = amount per day/);
  });

  it('refuses a bad policy, limit, time zone or audit role at start-up, listing each', () => {
    const env = { APPROVAL_POLICY: 'pay.send > 5', SPEND_LIMITS: 'x = 1 sat', LIMITS_TZ: 'Mars/Olympus', AUDIT_READ_ROLE: 'boss' };
    try {
      loadConfig(env);
      expect.unreachable('the configuration was accepted');
    } catch (e) {
      const problems = (e as ConfigError).problems.join('\n');
      expect(problems).toContain('LIMITS_TZ must be an IANA time zone');
      expect(problems).toContain('AUDIT_READ_ROLE must be read, operate or admin');
    }
    // The policies' syntax is the core's (config.ts is a leaf): the app and the doctor list these before anything starts.
    const policy = policyConfigProblems(env).join('\n');
    expect(policy).toContain('APPROVAL_POLICY: pay.send: "5" has no unit');
    expect(policy).toContain('SPEND_LIMITS: "x" is neither a role');
  });

  it('defaults the new variables as docs/ARCHITECTURE.md says ("Policy and limits")', () => {
    const c = loadConfig({ AUDIT_READ_ROLE: 'operator' });
    expect(c.LIMITS_TZ).toBe('UTC');
    expect(c.AUDIT_RETENTION_DAYS).toBe(365);
    expect(c.AUDIT_READ_ROLE).toBe('operate');
    expect(c.APPROVAL_POLICY).toBeUndefined();
  });
});
