/** The node's RGB assets as one flat list, and a table of them with precision applied. */
import { msg, shortId, thousands, withPrecision, type Amount } from '../../src/vocabulary/index.js';
import { UserError } from '../../src/vocabulary/index.js';
import type { Table } from '../../src/vocabulary/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';

export interface AssetRow {
  asset_id: string;
  /** IFA: 6887cbf's inflatable assets. */
  schema: 'NIA' | 'CFA' | 'UDA' | 'IFA';
  ticker?: string;
  name?: string;
  precision: number;
  settled: Amount;
  spendable: Amount;
  future: Amount;
  offchain_outbound: Amount;
  offchain_inbound: Amount;
}

interface AnyAsset {
  asset_id?: string;
  ticker?: string;
  name?: string;
  precision?: number;
  balance?: { settled?: Amount; spendable?: Amount; future?: Amount; offchain_outbound?: Amount; offchain_inbound?: Amount };
}

/** `USDT` or the name; what a person recognises. */
export function assetLabel(a: { ticker?: string | null; name?: string | null; asset_id?: string | null }): string {
  return a.ticker || a.name || shortId(a.asset_id ?? '?', 12);
}

export async function loadAssets(api: NodeApiClient): Promise<AssetRow[]> {
  const res = await api.listassets({ filter_asset_schemas: [] });
  const rows: AssetRow[] = [];
  const add = (schema: AssetRow['schema'], list: AnyAsset[] | undefined) => {
    for (const a of list ?? []) {
      rows.push({
        asset_id: a.asset_id ?? '',
        schema,
        ticker: a.ticker,
        name: a.name,
        precision: Number(a.precision ?? 0),
        settled: a.balance?.settled ?? 0,
        spendable: a.balance?.spendable ?? 0,
        future: a.balance?.future ?? 0,
        offchain_outbound: a.balance?.offchain_outbound ?? 0,
        offchain_inbound: a.balance?.offchain_inbound ?? 0,
      });
    }
  };
  add('NIA', res.nia);
  add('CFA', res.cfa);
  add('UDA', res.uda);
  add('IFA', res.ifa);
  return rows;
}

/**
 * The asset list for naming assets (ids, tickers, precision), asked once per client: a command
 * that resolves a ticker and then shows the amount asks the node once. A client lives for one
 * command, and what names an asset does not change within it; balances come from loadAssets.
 */
const listed = new WeakMap<NodeApiClient, Promise<AssetRow[]>>();
function listedAssets(api: NodeApiClient): Promise<AssetRow[]> {
  let rows = listed.get(api);
  if (!rows) {
    rows = loadAssets(api);
    listed.set(api, rows);
    rows.catch(() => listed.delete(api));
  }
  return rows;
}

/** What names an asset and its precision, from the node's asset list, or its metadata for an asset it does not hold. */
export async function assetUnitOf(
  api: NodeApiClient,
  assetId: string,
): Promise<
  | {
      ticker?: string;
      name?: string;
      precision: number;
    }
  | undefined
> {
  const row = (await listedAssets(api).catch(() => [] as AssetRow[])).find((r) => r.asset_id === assetId);
  if (row) return { ticker: row.ticker, name: row.name, precision: row.precision };
  try {
    const m = await api.assetmetadata({ asset_id: assetId });
    return { ticker: m.ticker ?? undefined, name: m.name ?? undefined, precision: Number(m.precision ?? 0) };
  } catch {
    return undefined;
  }
}

/** Precision and label of one asset, from its metadata; precision 0 when it cannot be read. */
export async function describeAsset(api: NodeApiClient, id: string): Promise<{ label: string; precision: number }> {
  try {
    const meta = await api.assetmetadata({ asset_id: id });
    return { label: assetLabel({ ticker: meta.ticker, name: meta.name, asset_id: id }), precision: Number(meta.precision ?? 0) };
  } catch {
    return { label: shortId(id, 14), precision: 0 };
  }
}

/** asset_id -> { label, precision }, for channels and payments; empty when the list fails. */
export async function assetIndex(api: NodeApiClient): Promise<Map<string, { label: string; precision: number }>> {
  try {
    const rows = await listedAssets(api);
    return new Map(rows.map((r) => [r.asset_id, { label: assetLabel(r), precision: r.precision }]));
  } catch {
    return new Map();
  }
}

/** assetIndex when a list shows an asset (`needed`), else an empty map, without asking the node. */
export async function assetIndexIf(api: NodeApiClient, needed: boolean): Promise<Map<string, { label: string; precision: number }>> {
  return needed ? assetIndex(api) : new Map();
}

/** `10.00 USDT` when the node knows the asset; else the raw amount (a new asset has no known precision yet). */
export async function assetAmountText(api: NodeApiClient, assetId: string, raw: number | bigint): Promise<string> {
  const info = (await assetIndex(api)).get(assetId);
  return info ? `${withPrecision(raw, info.precision)} ${info.label}` : `${thousands(raw)} raw of ${shortId(assetId, 14)}`;
}

export function assetTable(rows: AssetRow[], caption?: string): Table {
  return {
    columns: msg.columns('Asset', 'Schema', 'Id', msg.right('Precision', 'Spendable', 'Settled', 'Future', 'Off-chain out/in')),
    rows: rows.map((r) => [
      assetLabel(r),
      r.schema,
      shortId(r.asset_id, 14),
      String(r.precision),
      withPrecision(r.spendable, r.precision),
      withPrecision(r.settled, r.precision),
      withPrecision(r.future, r.precision),
      `${withPrecision(r.offchain_outbound, r.precision)} / ${withPrecision(r.offchain_inbound, r.precision)}`,
    ]),
    caption,
  };
}

/**
 * An asset argument: an `rgb:` id as is, or the ticker (or name) of one of the node's assets,
 * which is what people remember and what every table shows.
 */
export async function resolveAssetId(api: NodeApiClient, nodeName: string, value: string): Promise<string> {
  const v = value.trim();
  if (v.startsWith('rgb:')) return v;
  const rows = await listedAssets(api);
  const want = v.toLowerCase();
  let hits = rows.filter((r) => r.ticker?.toLowerCase() === want);
  if (hits.length === 0) hits = rows.filter((r) => r.name?.toLowerCase() === want);
  if (hits.length === 1) return hits[0].asset_id;
  if (hits.length === 0) {
    throw new UserError(
      'invalid_arguments',
      `${nodeName} has no asset with the ticker or name ${JSON.stringify(v)}.`,
      `Give the rgb:… id or a ticker from \`asset list ${nodeName}\`.`,
    );
  }
  throw new UserError(
    'invalid_arguments',
    `${hits.length} assets of ${nodeName} are called ${JSON.stringify(v)}: ${hits.map((h) => h.asset_id).join(', ')}.`,
    'Give the rgb:… id of the one you mean.',
  );
}
