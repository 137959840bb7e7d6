/**
 * The written forms of the approval policy (`APPROVAL_POLICY`, `policy set approval`) and of the
 * spend limits (`SPEND_LIMITS`, `policy set limit`). Rules are separated by `;` (or new lines).
 *
 *   APPROVAL_POLICY="node.destroy; pay.send > 100k sats; asset.send > 100 USDT; asset.send > 1000 *"
 *     `<command>`            always needs a second person;
 *     `<command> > <amount>` needs one above that amount (sats, or an asset's display units; `*` any asset).
 *   SPEND_LIMITS="operate = 500k sats, 100 USDT; slack:U0123ABCD = 2M sats"
 *     `<role or principal> = <amount>[, <amount>…]`: at most that much per day, per unit.
 *   Either may be `none`.
 */
import { PRINCIPAL_RE, roleNamed } from '../vocabulary/index.js';
import { readUnitAmount, type UnitAmount } from '../vocabulary/index.js';

export interface ApprovalRule {
  /** The command, with dots: `pay.send`. */
  action: string;
  /** Absent: always. */
  over?: UnitAmount;
}

export interface LimitRule {
  /** A role (`read`, `operate`, `admin`) or a principal (`slack:U1`). */
  who: string;
  perDay: UnitAmount;
}

/**
 * The policy when APPROVAL_POLICY is not set: destroying; moving money above a threshold, on
 * Lightning or on-chain; and the four eyes protecting themselves: changing the approval policy or
 * the limits, granting admin, and unlinking one person's accounts need a second admin.
 */
export const DEFAULT_APPROVAL_POLICY =
  'node.destroy; pay.send > 100k sats; pay.keysend > 100k sats; wallet.send > 100k sats; asset.send > 1000 *; asset.send > 100k sats; channel.open > 1M sats; policy.set; access.grant; access.unlink';

const ACTION_RE = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)?$/;

const pieces = (text: string) =>
  text
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** `pay send` or `pay.send` -> `pay.send`. */
export function actionName(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, '.');
}

export function parseApprovalRule(text: string): ApprovalRule {
  const [left, right, ...more] = text.split('>');
  const action = actionName(left ?? '');
  if (more.length || !ACTION_RE.test(action)) {
    throw new Error(
      `"${text.slice(0, 60)}" is not an approval rule: write a command with dots, optionally "> amount", e.g. node.destroy or pay.send > 100k sats`,
    );
  }
  if (right === undefined) return { action };
  try {
    return { action, over: readUnitAmount(right) };
  } catch (e) {
    throw new Error(`${action}: ${(e as Error).message}`, { cause: e });
  }
}

export function parseApprovalPolicy(text: string): ApprovalRule[] {
  if (text.trim().toLowerCase() === 'none') return [];
  return pieces(text).map(parseApprovalRule);
}

/** A role word (or alias) as the role, or a principal as is; throws with the forms accepted. */
export function limitSubject(text: string): string {
  const t = text.trim();
  const role = roleNamed(t);
  if (role) return role;
  if (PRINCIPAL_RE.test(t)) return t;
  throw new Error(
    `"${t.slice(0, 40)}" is neither a role (read, operate, admin) nor a principal (slack:U123, discord:123456, slack-group:S123, discord-role:123456)`,
  );
}

export function parseSpendLimits(text: string): LimitRule[] {
  if (text.trim().toLowerCase() === 'none') return [];
  const out: LimitRule[] = [];
  for (const piece of pieces(text)) {
    const eq = piece.indexOf('=');
    if (eq < 0) throw new Error(`"${piece.slice(0, 60)}" is not a limit: write who = amount per day, e.g. operate = 500k sats, 100 USDT`);
    const who = limitSubject(piece.slice(0, eq));
    for (const a of piece.slice(eq + 1).split(',')) {
      try {
        out.push({ who, perDay: readUnitAmount(a) });
      } catch (e) {
        throw new Error(`${who}: ${(e as Error).message}`, { cause: e });
      }
    }
  }
  return out;
}

/**
 * The problems of APPROVAL_POLICY and SPEND_LIMITS as written, one line each naming the variable
 * (the composition root reports them as configuration problems, before anything starts).
 */
export function policyConfigProblems(env: { APPROVAL_POLICY?: string; SPEND_LIMITS?: string }): string[] {
  const problems: string[] = [];
  const approval = policyProblem(parseApprovalPolicy, env.APPROVAL_POLICY);
  if (approval) problems.push(`APPROVAL_POLICY: ${approval}`);
  const limits = policyProblem(parseSpendLimits, env.SPEND_LIMITS);
  if (limits) problems.push(`SPEND_LIMITS: ${limits}`);
  return problems;
}

/** Checks a whole value, for the configuration: the problem in words, or undefined. */
export function policyProblem(parse: (text: string) => unknown, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    parse(text);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
