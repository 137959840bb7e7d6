/**
 * The approval policy and the spend limits as they apply now: the environment's rules
 * (APPROVAL_POLICY, SPEND_LIMITS) with the changes made at run time (`policy set`) over them,
 * stored so they outlive a restart. Limits are counted per day in LIMITS_TZ, in a ledger whose
 * reservations are atomic (one transaction, locked per person, day and unit on PostgreSQL): two
 * sends, on one replica or several, cannot both take the last of a limit.
 */
import type { AnyDb } from '../store/index.js';
import { createPolicyStore, type PolicyRuleRow } from '../store/index.js';
import { UserError } from '../vocabulary/index.js';
import { actorKey, ROLE_RANK, type RoleService } from './role-service.js';
import type { Actor, Role, Spend } from '../vocabulary/index.js';
import { amountText, type UnitAmount } from '../vocabulary/index.js';
import { DEFAULT_APPROVAL_POLICY, parseApprovalPolicy, parseSpendLimits, type ApprovalRule, type LimitRule } from './parse-policy.js';
import { createApprovals, type Approvals } from './approvals.js';

interface Line extends UnitAmount {
  ledgerUnit: string;
  scale: number;
  ledger: number;
}

export type RuleSource = 'APPROVAL_POLICY' | 'SPEND_LIMITS' | 'default' | 'policy set';

export interface PolicyOptions {
  db: AnyDb;
  now: () => number;
  access: RoleService;
  /** APPROVAL_POLICY; undefined: the default policy. */
  approvalPolicy?: string;
  /** SPEND_LIMITS; undefined: no limits. */
  spendLimits?: string;
  /** LIMITS_TZ: where a day starts for the limits. Default UTC. */
  tz?: string;
  /** How long an approval request stays open. Default 30 minutes. */
  approvalTtlMs?: number;
  /** Refuses a rule for a command that cannot be put under approval (unknown, or its dialog takes a secret). */
  checkAction?(action: string, over?: UnitAmount): void;
}

export interface Policy {
  tz: string;
  approvalTtlMs: number;
  approvals: Approvals;
  approvalRules(): Promise<Array<ApprovalRule & { source: RuleSource; setBy?: string }>>;
  limitRules(): Promise<Array<LimitRule & { source: RuleSource; setBy?: string }>>;
  /** Adds or replaces a rule (`off`: removes it, including one from the environment). */
  setApproval(rule: ApprovalRule, off: boolean, by: Actor): Promise<void>;
  setLimit(rule: LimitRule, off: boolean, by: Actor): Promise<void>;
  /** The rule that puts this attempt under approval, in words; undefined when none does. */
  approvalNeeded(path: string, spend?: Spend): Promise<string | undefined>;
  /** What would be left of each daily limit after this spend, in words (empty: no limit applies). */
  leftAfter(actor: Actor, spend: Spend): Promise<string[]>;
  /** A refusal when this spend would take the actor over a daily limit. */
  checkLimit(actor: Actor, spend: Spend): Promise<UserError | undefined>;
  /** Reserves the spend against the actor's limits, atomically; throws the refusal. Returns the ledger ids. */
  reserve(actor: Actor, path: string, spend: Spend): Promise<number[]>;
  release(ids: number[]): Promise<void>;
  /** Today's limits and use for this actor. */
  usage(actor: Actor): Promise<Array<{ unit: string; spent: number; limit?: { perDay: number; from: string } }>>;
  /** When the limits reset: `00:00 UTC (2026-11-23)`. */
  resetText(): string;
  /** The day (YYYY-MM-DD in LIMITS_TZ) of an instant. */
  dayOf(t: number): string;
}

const key = (a: { unit: string } | undefined) => a?.unit ?? '';

export function createPolicy(o: PolicyOptions): Policy {
  const store = createPolicyStore(o.db);
  const tz = o.tz ?? 'UTC';
  const makeDayFormat = () => new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  // For UTC (the default) made on the first spend check: a DateTimeFormat brings in ICU's time
  // zone data, resident memory an idle bot need not hold (issue 18). Any other zone is made
  // here still, so a wrong one fails at construction as before.
  let dayFormat = tz === 'UTC' ? undefined : makeDayFormat();
  const dayOf = (t: number) => (dayFormat ??= makeDayFormat()).format(new Date(t));
  const envApproval = parseApprovalPolicy(o.approvalPolicy ?? DEFAULT_APPROVAL_POLICY);
  const envLimits = parseSpendLimits(o.spendLimits ?? 'none');
  for (const r of envApproval) o.checkAction?.(r.action, r.over);
  const approvalSource: RuleSource = o.approvalPolicy === undefined ? 'default' : 'APPROVAL_POLICY';

  /** The environment's rules with the stored rows over them, by (subject, unit). */
  async function merged<R>(
    kind: PolicyRuleRow['kind'],
    env: R[],
    subjectOf: (r: R) => string,
    unitOf: (r: R) => string,
    fromRow: (row: PolicyRuleRow) => R,
    source: RuleSource,
  ) {
    const rows = (await store.rules()).filter((r) => r.kind === kind);
    const byKey = new Map<string, R & { source: RuleSource; setBy?: string }>();
    for (const r of env) byKey.set(`${subjectOf(r)}|${unitOf(r)}`, { ...r, source });
    for (const row of rows) {
      const k = `${row.subject}|${row.unit}`;
      if (row.off) byKey.delete(k);
      else byKey.set(k, { ...fromRow(row), source: 'policy set', setBy: row.setBy });
    }
    return [...byKey.values()];
  }
  const approvalRules = () =>
    merged(
      'approval',
      envApproval,
      (r) => r.action,
      (r) => key(r.over),
      (row) => ({ action: row.subject, ...(row.unit ? { over: { unit: row.unit, amount: row.amount ?? 0 } } : {}) }),
      approvalSource,
    );
  const limitRules = () =>
    merged(
      'limit',
      envLimits,
      (r) => r.who,
      (r) => r.perDay.unit,
      (row) => ({ who: row.subject, perDay: { unit: row.unit, amount: row.amount ?? 0 } }),
      'SPEND_LIMITS',
    );

  /**
   * The spend, line by line: in the rules' unit (sats, or the asset's ticker in display units),
   * and as the ledger keeps it (bitcoin in whole msat, `scale` of them to a rule's sat, so that
   * a 999 msat keysend counts and sums stay exact).
   */
  const linesOf = (spend: Spend): Line[] => [
    ...(spend.msat > 0 ? [{ unit: 'sat', amount: spend.msat / 1000, ledgerUnit: 'msat', scale: 1000, ledger: spend.msat }] : []),
    ...(spend.asset && spend.asset.amount > 0
      ? [
          {
            unit: spend.asset.ticker.toUpperCase(),
            amount: spend.asset.amount,
            ledgerUnit: spend.asset.ticker.toUpperCase(),
            scale: 1,
            ledger: spend.asset.amount,
          },
        ]
      : []),
  ];
  /** What was spent today, by ledger unit. */
  const spentToday = async (actor: Actor) =>
    new Map((await store.spent(actorKey(actor), dayOf(o.now()))).map((r) => [r.unit, Number(r.amount)]));

  /** The actor's limit for a unit: their own (smallest of their principals') over their role's. */
  async function limitFor(actor: Actor, unit: string, rules?: LimitRule[]): Promise<{ perDay: number; from: string } | undefined> {
    rules ??= await limitRules();
    const pick = (subjects: string[]) => {
      let best: { perDay: number; from: string } | undefined;
      for (const want of unit === 'sat' ? ['sat'] : [unit, '*']) {
        for (const r of rules) {
          if (r.perDay.unit === want && subjects.includes(r.who) && (!best || r.perDay.amount < best.perDay))
            best = { perDay: r.perDay.amount, from: r.who };
        }
        if (best) return best;
      }
      return best;
    };
    const own = pick(o.access.principalsOf(actor));
    if (own) return { ...own, from: `you (${own.from})` };
    const role: Role = await o.access.roleOf(actor);
    const byRole = pick([role]);
    return byRole ? { ...byRole, from: `the ${role} role` } : undefined;
  }

  const resetText = () => {
    const t = o.now();
    // The next local day: the first instant (by the hour, enough for every real zone) whose day differs.
    let next = t;
    const today = dayOf(t);
    for (let i = 1; i <= 26 && dayOf(next) === today; i++) next = t + i * 3600_000;
    return `00:00 ${tz} (${dayOf(next)})`;
  };

  /** `spent` is in the rule's unit (sats, display units). */
  function refusal(actor: Actor, line: UnitAmount, spent: number, limit: { perDay: number; from: string }): UserError {
    const left = Math.max(0, limit.perDay - spent);
    const u = (n: number) => amountText({ unit: line.unit, amount: n });
    return new UserError(
      'limit_exceeded',
      `This would spend ${u(line.amount)}, over the daily limit of ${u(limit.perDay)} for ${limit.from}: ${u(spent)} spent today, ${u(left)} left. The limit resets at ${resetText()}.`,
      left > 0
        ? `Send at most ${u(left)} today, or ask an admin to raise the limit (\`/rln policy limits\` shows them).`
        : 'Ask an admin to raise the limit (`/rln policy limits` shows them), or wait for the reset.',
      { who: actorKey(actor), unit: line.unit, left },
    );
  }

  const policy: Policy = {
    tz,
    approvalTtlMs: o.approvalTtlMs ?? 30 * 60_000,
    approvals: createApprovals({ db: o.db, now: o.now }),
    approvalRules,
    limitRules,
    async setApproval(rule, off, by) {
      o.checkAction?.(rule.action, rule.over);
      await store.putRule({
        kind: 'approval',
        subject: rule.action,
        unit: key(rule.over),
        amount: rule.over?.amount ?? null,
        off: off ? 1 : 0,
        setBy: actorKey(by),
        setAt: new Date(o.now()).toISOString(),
      });
    },
    async setLimit(rule, off, by) {
      await store.putRule({
        kind: 'limit',
        subject: rule.who,
        unit: rule.perDay.unit,
        amount: rule.perDay.amount,
        off: off ? 1 : 0,
        setBy: actorKey(by),
        setAt: new Date(o.now()).toISOString(),
      });
    },
    async approvalNeeded(path, spend) {
      const action = path.replace(/\s+/g, '.');
      const rules = (await approvalRules()).filter((r) => r.action === action);
      const always = rules.find((r) => !r.over);
      if (always) return `${action} always needs a second person`;
      if (!spend) return undefined;
      for (const line of linesOf(spend)) {
        const own =
          rules.find((r) => r.over!.unit === line.unit) ?? (line.unit !== 'sat' ? rules.find((r) => r.over!.unit === '*') : undefined);
        if (own && line.ledger > own.over!.amount * line.scale) return `${action} above ${amountText(own.over!)} needs a second person`;
      }
      return undefined;
    },
    async checkLimit(actor, spend) {
      if (!spend.counts) return undefined;
      const spent = await spentToday(actor);
      const rules = await limitRules();
      for (const line of linesOf(spend)) {
        const limit = await limitFor(actor, line.unit, rules);
        const used = spent.get(line.ledgerUnit) ?? 0;
        if (limit && used + line.ledger > limit.perDay * line.scale) return refusal(actor, line, used / line.scale, limit);
      }
      return undefined;
    },
    async leftAfter(actor, spend) {
      if (!spend.counts) return [];
      const spent = await spentToday(actor);
      const rules = await limitRules();
      const out = [];
      for (const line of linesOf(spend)) {
        const limit = await limitFor(actor, line.unit, rules);
        if (!limit) continue;
        const left = Math.max(0, limit.perDay * line.scale - (spent.get(line.ledgerUnit) ?? 0) - line.ledger) / line.scale;
        out.push(
          `${amountText({ unit: line.unit, amount: left })} of ${amountText({ unit: line.unit, amount: limit.perDay })} left today after this (${limit.from})`,
        );
      }
      return out;
    },
    async reserve(actor, path, spend) {
      if (!spend.counts) return [];
      const t = o.now();
      const lines = linesOf(spend);
      const rows = lines.map((l) => ({ who: actorKey(actor), unit: l.ledgerUnit, amount: l.ledger, day: dayOf(t), at: t, path }));
      const rules = await limitRules();
      const limits = new Map<string, { perDay: number; from: string; line: Line } | undefined>();
      for (const l of lines) {
        const limit = await limitFor(actor, l.unit, rules);
        limits.set(l.ledgerUnit, limit ? { ...limit, line: l } : undefined);
      }
      const r = await store.reserve(rows, (row, spent) => {
        const limit = limits.get(row.unit);
        return !limit || spent + row.amount <= limit.perDay * limit.line.scale;
      });
      if ('refused' in r) {
        const limit = limits.get(r.refused.unit)!;
        throw refusal(actor, limit.line, r.spent / limit.line.scale, limit);
      }
      return r.ids;
    },
    async release(ids) {
      for (const id of ids) await store.release(id);
    },
    async usage(actor) {
      // The ledger's msat read back in sats, the unit limits are written in.
      const spent = new Map([...(await spentToday(actor))].map(([u, n]) => (u === 'msat' ? ['sat', n / 1000] : [u, n])));
      const rules = await limitRules();
      const units = new Set<string>([...spent.keys(), ...rules.map((r) => r.perDay.unit).filter((u) => u !== '*')]);
      const out = [];
      for (const unit of [...units].sort()) out.push({ unit, spent: spent.get(unit) ?? 0, limit: await limitFor(actor, unit, rules) });
      return out;
    },
    resetText,
    dayOf,
  };
  return policy;
}

/** Whether an actor's role reaches `role` (for approvers). */
export const reaches = (have: Role, need: Role) => ROLE_RANK[have] >= ROLE_RANK[need];
