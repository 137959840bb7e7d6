/** `asset issue-nia|issue-cfa|issue-uda`: issuing RGB assets, amounts read with the precision being issued. */
import { z } from 'zod';
import { UserError, withPrecision, msg, type Block, type Field } from '../src/vocabulary/index.js';
import { defineCommand } from './define-command.js';
import { type AnyCommand, type CommandDefinition } from '../src/engine/index.js';
import type { NodeApiClient } from '../src/node-api/index.js';
import type { Services } from './services.js';
import { int, nodeArg, rawFlag, splitList } from './support/arg-types.js';
import { amountRefusal, parseAssetAmount, toSafeNumber } from './support/amount.js';
import { assetLabel } from './support/asset-table.js';
import { nodeClient } from './support/node-client.js';
import { bodyOf, compact } from './support/present.js';
import { duplicateAsset } from './support/duplicate-asset.js';

/** Amounts list "1000, 2000.5": one allocation each, in display units (with `precision=`) unless raw=true. */
export const amountList = () =>
  z
    .string()
    .min(1)
    .refine((text) => splitList(text).length > 0, 'give at least one amount')
    .describe('Display-unit amounts (with precision=), one allocation each, split by ";" or "," (raw=true: raw)');

/** The issuance amounts in raw units, read with the precision being issued. */
export function issuedAmounts(
  a: { amounts: string; precision: number; raw: boolean; ticker?: string; name?: string },
  arg = 'amounts',
): number[] {
  // "1,000" may be a thousand or two allocations: with a ";" in the list, "," only groups digits.
  const parts = a.amounts.includes(';')
    ? a.amounts
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean)
    : splitList(a.amounts);
  return parts.map((p) => {
    let v: bigint;
    try {
      v = parseAssetAmount(p, { ticker: a.ticker, name: a.name, precision: a.precision }, { raw: a.raw });
    } catch (e) {
      throw amountRefusal(arg, e, `\`${arg}="1000.5; 200"\` with \`precision=2\`, or raw units with \`raw=true\``);
    }
    if (v <= 0n) throw new UserError('invalid_arguments', `\`${arg}\` must each be more than 0.`, `Example: \`${arg}="1000; 200"\``);
    return toSafeNumber(v, arg);
  });
}

export const precisionArg = () => int().min(0).max(18).default(0).describe('Decimal places shown (0-18), e.g. 2 shows 12345 as 123.45');

interface IssuedAsset {
  asset_id?: string;
  ticker?: string;
  name?: string;
  precision?: number;
  issued_supply?: number | bigint;
}

/** The answer to an issuance: the asset, its precision and supply in display units, its id (and `extra` facts). */
export function issued(
  nodeName: string,
  kind: string,
  a: IssuedAsset | undefined,
  extra: Field[] = [],
): { header: string; tone: 'success'; blocks: Block[] } {
  const p = Number(a?.precision ?? 0);
  return {
    header: `${kind} asset issued · ${nodeName}`,
    tone: 'success',
    blocks: [
      msg.fields([
        { label: 'Asset', value: assetLabel(a ?? {}), inline: true },
        { label: 'Precision', value: String(p), inline: true },
        { label: 'Issued supply', value: a?.issued_supply !== undefined ? withPrecision(a.issued_supply, p) : '—', inline: true },
        ...extra,
        { label: 'Asset id', value: [{ code: a?.asset_id ?? '—' }] },
      ]),
      msg.context(`See it with \`asset list ${nodeName}\`.`),
    ],
  };
}

/** `ticker=`: the short name the asset is known by (`hint`: an example). */
export const tickerArg = (hint: string) => z.string().min(1).max(8).describe(hint);
export const assetNameArg = () => z.string().min(1).describe('Asset name');
const detailsArg = () => z.string().optional().describe('Free text details');
const mediaDigestArg = () =>
  z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional()
    .describe('Digest of media uploaded with `asset upload`');

/**
 * `asset issue-<kind>`: run by an operator without confirmation, refused first when the node already
 * has an asset by the same ticker (a CFA: name), answered with `issued`.
 */
function issueCommand<S extends z.ZodObject<z.ZodRawShape>>(o: {
  kind: 'NIA' | 'CFA' | 'UDA';
  summary: string;
  example: string;
  args: S;
  /** What names the new asset on its node: the ticker, or (a CFA, which has none) the name. */
  named: (args: z.infer<S>) => { ticker?: string; name?: string };
  /** Asks the node to issue it: the node's answer. */
  issue: (api: NodeApiClient, args: z.infer<S>) => Promise<{ asset?: IssuedAsset }>;
}): CommandDefinition<S, Services> {
  const path = `asset issue-${o.kind.toLowerCase()}`;
  return defineCommand<S>({
    path,
    summary: o.summary,
    example: o.example,
    args: o.args,
    role: 'operate',
    confirm: 'none',
    mutates: true,
    check: (ctx) => duplicateAsset(ctx, { command: path, ...o.named(ctx.args) }),
    async handler(ctx) {
      const { node, api } = nodeClient(ctx);
      const { asset } = await o.issue(api, ctx.args);
      return issued(node.name, o.kind, asset);
    },
  });
}

const issueNia = issueCommand({
  kind: 'NIA',
  summary: 'Issue a fungible NIA asset',
  example: '/rln asset issue-nia alice USDT "Tether" 1000000 precision=6',
  args: z.object({
    node: nodeArg(),
    ticker: tickerArg('Ticker, e.g. USDT'),
    name: assetNameArg(),
    amounts: amountList(),
    precision: precisionArg(),
    raw: rawFlag(),
  }),
  named: (a) => ({ ticker: a.ticker }),
  issue: (api, a) => api.issueassetnia({ amounts: issuedAmounts(a), ticker: a.ticker, name: a.name, precision: a.precision }),
});

const issueCfa = issueCommand({
  kind: 'CFA',
  summary: 'Issue a collectible CFA asset',
  example: '/rln asset issue-cfa alice "Art" 10 details="A series" file_digest=5891…',
  args: z.object({
    node: nodeArg(),
    name: assetNameArg(),
    amounts: amountList(),
    details: detailsArg(),
    precision: precisionArg(),
    file_digest: mediaDigestArg(),
    raw: rawFlag(),
  }),
  named: (a) => ({ name: a.name }),
  issue(api, a) {
    const { raw: _raw, ...rest } = a;
    return api.issueassetcfa({ ...bodyOf(rest), amounts: issuedAmounts(a) });
  },
});

const issueUda = issueCommand({
  kind: 'UDA',
  summary: 'Issue a unique digital asset (UDA)',
  example: '/rln asset issue-uda alice UNQ "Unique" media_file_digest=5891…',
  args: z.object({
    node: nodeArg(),
    ticker: tickerArg('Ticker'),
    name: assetNameArg(),
    details: detailsArg(),
    precision: precisionArg(),
    media_file_digest: mediaDigestArg(),
    attachments: z.string().optional().describe('Digests of attachments, comma-separated'),
  }),
  named: (a) => ({ ticker: a.ticker }),
  async issue(api, a) {
    const { node: _n, attachments, ...rest } = a;
    const { asset } = await api.issueassetuda(
      compact({ ...rest, attachments_file_digests: attachments !== undefined ? splitList(attachments) : [] }),
    );
    // RLN's UDA carries no issued_supply: a unique asset is one token (P48).
    return { asset: { ...asset, issued_supply: 1 } };
  },
});

export const assetIssueCommands: AnyCommand[] = [issueNia, issueCfa, issueUda];
