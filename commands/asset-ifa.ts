/**
 * `asset issue-ifa` and `asset inflate`: inflatable fungible assets (IFA), which only nodes on an image
 * with RLN bfeb557 or later have. An IFA is issued with rights to issue more later, up to its max supply;
 * `asset inflate` uses them. On a node without IFA, both say which image they need and offer the upgrade.
 */
import { z } from 'zod';
import { UserError, withPrecision, msg, shortId, type Spend } from '../src/vocabulary/index.js';
import { defineCommand, type CommandContext } from './define-command.js';
import { type AnyCommand } from '../src/engine/index.js';
import { assetIdArg, int, nodeArg, rawFlag, splitList } from './support/arg-types.js';
import { rawAssetAmount } from './support/asset-amount.js';
import { assetLabel } from './support/asset-table.js';
import { nodeAsset, nodeClient } from './support/node-client.js';
import { needsCapability } from './support/needs-capability.js';
import { compact, titled } from './support/present.js';
import { duplicateAsset } from './support/duplicate-asset.js';
import { amountList, assetNameArg, issued, issuedAmounts, precisionArg, tickerArg } from './asset-issue.js';
import { readOnce } from './support/read-once.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const issueArgs = z.object({
  node: nodeArg(),
  ticker: tickerArg('Ticker, e.g. USDX'),
  name: assetNameArg(),
  amounts: amountList(),
  inflation: z
    .string()
    .optional()
    .describe('What `asset inflate` may issue later, display units, one right each (default none: fixed supply)'),
  precision: precisionArg(),
  reject_list_url: z.url().optional().describe('URL of a reject list of allocations the asset’s holders refuse'),
  raw: rawFlag(),
});

/** The issuance and the inflation rights of `asset issue-ifa`, in raw units. */
function ifaPlan(a: z.infer<typeof issueArgs>) {
  const amounts = issuedAmounts(a);
  const inflation = a.inflation?.trim() ? issuedAmounts({ ...a, amounts: a.inflation }, 'inflation') : [];
  return { amounts, inflation, max: sum(amounts) + sum(inflation) };
}

const issueIfa = defineCommand({
  path: 'asset issue-ifa',
  summary: 'Issue an inflatable fungible asset (IFA): a supply now, and rights to issue more later',
  example: '/rln asset issue-ifa alice USDX "Dollar X" 1000 inflation=500 precision=2',
  args: issueArgs,
  role: 'operate',
  confirm: 'button',
  mutates: true,
  async check(ctx) {
    return (
      (await needsCapability(ctx, 'ifa', { command: 'asset issue-ifa' })) ??
      duplicateAsset(ctx, { command: 'asset issue-ifa', ticker: ctx.args.ticker })
    );
  },
  /** What is issued now, what can be later, and the max supply, in display units: the max can never be raised. */
  preview(ctx) {
    const { amounts, inflation, max } = ifaPlan(ctx.args);
    const p = ctx.args.precision;
    const t = ctx.args.ticker;
    return Promise.resolve([
      { label: 'Issues now', value: `${withPrecision(sum(amounts), p)} ${t} (${amounts.length} allocation(s))`, inline: true },
      {
        label: 'Can inflate by',
        value: inflation.length ? `${withPrecision(sum(inflation), p)} ${t}` : 'nothing: the supply is fixed',
        inline: true,
      },
      { label: 'Max supply', value: `${withPrecision(max, p)} ${t} (cannot be raised later)`, inline: true },
      { label: 'Precision', value: String(p), inline: true },
    ]);
  },
  async handler(ctx) {
    const { node, api } = nodeClient(ctx);
    const { amounts, inflation } = ifaPlan(ctx.args);
    const { asset } = await api.issueassetifa(
      compact({
        amounts,
        inflation_amounts: inflation,
        ticker: ctx.args.ticker,
        name: ctx.args.name,
        precision: ctx.args.precision,
        reject_list_url: ctx.args.reject_list_url,
      }),
    );
    const p = Number(asset.precision);
    return issued(node.name, 'IFA', { ...asset, issued_supply: asset.initial_supply }, [
      { label: 'Max supply', value: withPrecision(asset.max_supply, p), inline: true },
      { label: 'Known circulating', value: withPrecision(asset.known_circulating_supply, p), inline: true },
    ]);
  },
});

const inflateArgs = z.object({
  node: nodeArg(),
  asset_id: assetIdArg(),
  amounts: z.string().min(1).describe('How much more to issue, in the asset’s display units, one allocation each, split by ";" or ","'),
  fee_rate: int().min(1).default(5).describe('Fee rate in sat/vB, a whole number (default 5)'),
  min_confirmations: int().min(0).default(1).describe('Confirmations before settling (default 1)'),
  raw: rawFlag(),
});

/** inflatePlan once per attempt: the check, the spend hook and the preview share it. */
const inflatePlan = (ctx: CommandContext<z.infer<typeof inflateArgs>>) => readOnce(ctx, 'asset inflate plan', () => readInflatePlan(ctx));

/** The asset, its supply as the node knows it, and the amounts in raw units; refused when it is no IFA or the rights do not cover it. */
async function readInflatePlan(ctx: CommandContext<z.infer<typeof inflateArgs>>) {
  const { node, api, assetId } = await nodeAsset(ctx);
  const m = await api.assetmetadata({ asset_id: assetId });
  const label = assetLabel({ ticker: m.ticker, name: m.name, asset_id: assetId });
  const precision = Number(m.precision ?? 0);
  if (String(m.asset_schema).toLowerCase() !== 'ifa') {
    throw new UserError(
      'invalid_arguments',
      `${label} is a ${String(m.asset_schema).toUpperCase()} asset: only IFA assets can be inflated.`,
      `Issue an inflatable one with \`asset issue-ifa ${node.name} …\`.`,
    );
  }
  const parts = ctx.args.amounts.includes(';') ? ctx.args.amounts.split(';').map((x) => x.trim()) : splitList(ctx.args.amounts);
  const amounts: number[] = [];
  for (const part of parts.filter(Boolean)) {
    amounts.push(
      await rawAssetAmount(api, assetId, part, {
        arg: 'amounts',
        raw: ctx.args.raw,
        example: `\`asset inflate ${node.name} ${label} 500\``,
      }),
    );
  }
  if (amounts.length === 0) throw new UserError('invalid_arguments', '`amounts` names no amount.', 'Example: `amounts="500"`');
  const circulating = Number(m.known_circulating_supply ?? 0);
  const max = Number(m.max_supply ?? circulating);
  return { api, node, assetId, label, precision, amounts, total: sum(amounts), circulating, max };
}

const inflate = defineCommand({
  path: 'asset inflate',
  summary: 'Issue more of an inflatable (IFA) asset, up to its max supply',
  example: '/rln asset inflate alice USDX 500',
  args: inflateArgs,
  role: 'admin',
  confirm: 'button',
  mutates: true,
  async check(ctx) {
    const gate = await needsCapability(ctx, 'ifa', { command: 'asset inflate' });
    if (gate) return gate;
    const { label, precision, total, circulating, max } = await inflatePlan(ctx);
    if (circulating + total <= max) return undefined;
    return {
      reason: `Inflating ${label} by ${withPrecision(total, precision)} would pass its max supply of ${withPrecision(max, precision)} (${withPrecision(circulating, precision)} known in circulation).`,
      next: `Inflate by ${withPrecision(Math.max(0, max - circulating), precision)} ${label} at most.`,
    };
  },
  /** Counted by approvals on the asset (`asset.inflate > 1000 *`), but by no spend limit: nothing leaves the node. */
  async spend(ctx): Promise<Spend> {
    const { label, precision, total } = await inflatePlan(ctx);
    return { msat: 0, asset: { ticker: label, amount: total / 10 ** precision }, to: 'new supply', counts: false };
  },
  async preview(ctx) {
    const { label, precision, total, circulating, max, amounts } = await inflatePlan(ctx);
    const f = (v: number) => `${withPrecision(v, precision)} ${label}`;
    return [
      { label: 'Issues', value: `${f(total)} more (${amounts.length} allocation(s))`, inline: true },
      { label: 'Known circulating', value: `${f(circulating)} → ${f(circulating + total)}`, inline: true },
      { label: 'Max supply', value: f(max), inline: true },
      { label: 'Fee rate', value: `${ctx.args.fee_rate} sat/vB`, inline: true },
    ];
  },
  async handler(ctx) {
    // Past the max supply (inflated since the check), the node refuses it: InvalidAmount.
    const { api, node, assetId, label, precision, amounts, total, circulating, max } = await inflatePlan(ctx);
    const { txid } = await api.inflate({
      asset_id: assetId,
      inflation_amounts: amounts,
      fee_rate: ctx.args.fee_rate,
      min_confirmations: ctx.args.min_confirmations,
    });
    return {
      header: titled(`${label} inflated`, node),
      tone: 'success',
      summary: `${node.name} inflated ${label} by ${withPrecision(total, precision)}`,
      blocks: [
        msg.fields([
          { label: 'Issued', value: `${withPrecision(total, precision)} ${label}`, inline: true },
          { label: 'Known circulating', value: `${withPrecision(circulating + total, precision)} ${label}`, inline: true },
          { label: 'Max supply', value: `${withPrecision(max, precision)} ${label}`, inline: true },
          { label: 'Txid', value: [{ code: txid }] },
          { label: 'Asset id', value: [{ code: shortId(assetId, 60) }] },
        ]),
        msg.context(`Spendable once mined: \`asset refresh ${node.name}\`, then \`asset balance ${node.name} ${label}\`.`),
      ],
    };
  },
});

export const assetIfaCommands: AnyCommand[] = [issueIfa, inflate];
