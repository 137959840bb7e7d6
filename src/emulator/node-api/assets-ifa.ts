/**
 * Inflatable fungible assets (IFA), which only 6887cbf's image has (RLN bfeb557): `/issueassetifa` issues
 * `amounts` and keeps `inflation_amounts` as rights to issue more, up to the max supply; `/inflate`
 * issues more with those rights, in a transaction that settles like a send (refresh after it is mined).
 * As RLN's test `inflate.rs` shows: 1000 issued, 500 inflated, mined and refreshed: 1500 spendable.
 */
import { badRequest, forbidden, insufficientAssets } from './errors.js';
import { type Ctx, optInt, optIntArray, optNumber, optString, reqString, validFeeRate } from './input.js';
import { assetJson, checkAmounts, checkName, checkPrecision, checkTicker, issue, knownAsset } from './assets.js';
import { freeColoredUtxo, newTransfer } from './allocations.js';
import { spendVanilla } from './wallet-coins.js';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function issueassetifa({ world, node, body }: Ctx) {
  const amounts = checkAmounts(optIntArray(body, 'amounts'));
  const inflation = optIntArray(body, 'inflation_amounts') ?? [];
  const ticker = reqString(body, 'ticker');
  const name = reqString(body, 'name');
  const precision = optInt(body, 'precision') ?? 0;
  const rejectListUrl = optString(body, 'reject_list_url');
  checkTicker(ticker);
  checkName(name);
  checkPrecision(precision);
  if (inflation.some((a) => a <= 0)) throw badRequest('InvalidAmount', 'Invalid amount: every inflation amount must be positive');
  const issued = sum(amounts);
  const a = issue(
    world,
    node,
    {
      schema: 'Ifa',
      ticker,
      name,
      precision,
      ifa: { max_supply: issued + sum(inflation), circulating: issued, rightsOf: node.nodeId, reject_list_url: rejectListUrl },
    },
    amounts,
  );
  return { asset: assetJson(world, node, a) };
}

export function inflate({ world, node, body }: Ctx) {
  const assetId = reqString(body, 'asset_id');
  const amounts = optIntArray(body, 'inflation_amounts') ?? [];
  const feeRate = validFeeRate(optNumber(body, 'fee_rate'));
  const asset = knownAsset(world, node, assetId);
  if (asset.schema !== 'Ifa' || !asset.ifa) throw forbidden('UnsupportedInflation', `Inflation is not supported by schema ${asset.schema}`);
  if (amounts.length === 0 || amounts.some((x) => x <= 0))
    throw badRequest('InvalidAmount', 'Invalid amount: inflation request with no amounts or zero amounts');
  const total = sum(amounts);
  // The rights stay with the issuer: another node holding the asset has none to spend.
  if (asset.ifa.rightsOf !== node.nodeId) throw insufficientAssets(0);
  if (asset.ifa.circulating + total > asset.ifa.max_supply)
    throw badRequest('InvalidAmount', 'Invalid amount: inflation amount exceeds the max possible supply');
  const w = node.wallet!;
  const used = new Set<string>();
  const outpoints = amounts.map(() => {
    const u = freeColoredUtxo(w, used);
    used.add(u.outpoint);
    return u.outpoint;
  });
  const { txid } = spendVanilla(world, w, 0, feeRate, amounts.length, 'RgbSend');
  const t = newTransfer(w, {
    asset_id: assetId,
    status: 'WaitingConfirmations',
    kind: 'Inflation',
    requested: total,
    assignments: amounts,
    txid,
    receive_utxo: outpoints[0],
    endpoints: [],
  });
  amounts.forEach((amount, i) =>
    w.allocations.push({ asset_id: assetId, outpoint: outpoints[i], amount, settled: false, pendingOf: t.idx }),
  );
  asset.ifa.circulating += total;
  return { txid };
}
