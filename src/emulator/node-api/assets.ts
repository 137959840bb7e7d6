import { badRequest, forbidden, unknownContractId } from './errors.js';
import { newAssetId, nowSec, sha256 } from './ids.js';
import { type Body, type Ctx, optBool, optInt, optIntArray, optString, optStringArray, reqString } from './input.js';
import { type AssetDef, type NodeState, type Transfer, type WorldState } from './state.js';
import { assetBalance, freeColoredUtxo, newTransfer, revertAllocations, settleAllocations } from './allocations.js';

export const MAX_MEDIA_BYTES = 5 * 1024 * 1024;

export function checkTicker(ticker: string): void {
  if (!/^[A-Z][A-Z0-9]{0,7}$/.test(ticker))
    throw badRequest('InvalidTicker', `Invalid ticker: ${ticker} (1-8 uppercase letters or digits)`);
}
export function checkName(name: string): void {
  if (name.trim().length === 0 || name.length > 256) throw badRequest('InvalidName', 'Invalid name: must be 1-256 characters');
}
export function checkPrecision(precision: number): void {
  if (precision > 18) throw badRequest('InvalidPrecision', `Invalid precision: ${precision} (0-18)`);
}
export function checkAmounts(amounts: number[] | undefined): number[] {
  if (!amounts || amounts.length === 0) throw badRequest('InvalidAmount', 'Invalid amount: amounts must not be empty');
  if (amounts.some((a) => a <= 0)) throw badRequest('InvalidAmount', 'Invalid amount: every amount must be positive');
  return amounts;
}

export function checkAssetId(assetId: string): void {
  if (!/^rgb:[A-Za-z0-9~_$!-]{10,}$/.test(assetId)) throw badRequest('InvalidAssetID', `Invalid asset ID: ${assetId}`);
}

/** The asset, if this node knows it; else 400 for a malformed id or 403 UnknownContractId. */
export function knownAsset(world: WorldState, node: NodeState, assetId: string): AssetDef {
  checkAssetId(assetId);
  const def = world.assets.get(assetId);
  if (!def || !node.wallet!.assets.has(assetId)) throw unknownContractId();
  return def;
}

function mediaOf(node: NodeState, digest: string | undefined) {
  if (digest === undefined) return undefined;
  const m = node.media.get(digest);
  if (!m) throw badRequest('InvalidMediaDigest', `Invalid media digest: ${digest} (upload it with postassetmedia first)`);
  return { digest, mime: m.mime };
}

export function issue(
  world: WorldState,
  node: NodeState,
  def: Omit<AssetDef, 'asset_id' | 'timestamp' | 'issued_supply'>,
  amounts: number[],
): AssetDef {
  const w = node.wallet!;
  const used = new Set<string>();
  const outpoints = amounts.map(() => {
    let u;
    try {
      u = freeColoredUtxo(w, used);
    } catch {
      u = freeColoredUtxo(w);
    }
    used.add(u.outpoint);
    return u.outpoint;
  });
  const asset: AssetDef = { ...def, asset_id: newAssetId(), timestamp: nowSec(), issued_supply: amounts.reduce((a, b) => a + b, 0) };
  world.assets.set(asset.asset_id, asset);
  w.assets.set(asset.asset_id, nowSec());
  amounts.forEach((amount, i) => w.allocations.push({ asset_id: asset.asset_id, outpoint: outpoints[i], amount, settled: true }));
  newTransfer(w, {
    asset_id: asset.asset_id,
    status: 'Settled',
    kind: 'Issuance',
    assignments: amounts,
    requested: asset.issued_supply,
    receive_utxo: outpoints[0],
    endpoints: [],
  });
  return asset;
}

function mediaJson(node: NodeState, m: { digest: string; mime: string } | undefined) {
  return m ? { file_path: `/rln/media_files/${m.digest}`, digest: m.digest, mime: m.mime } : undefined;
}

export function assetJson(world: WorldState, node: NodeState, a: AssetDef) {
  const base = {
    asset_id: a.asset_id,
    name: a.name,
    precision: a.precision,
    timestamp: a.timestamp,
    added_at: node.wallet!.assets.get(a.asset_id) ?? a.timestamp,
    balance: assetBalance(world, node, a.asset_id),
    ...(a.details !== undefined ? { details: a.details } : {}),
  };
  if (a.schema === 'Uda') {
    return {
      ...base,
      ticker: a.ticker,
      token: {
        index: 0,
        ticker: a.ticker,
        name: a.name,
        ...(a.details !== undefined ? { details: a.details } : {}),
        embedded_media: false,
        reserves: false,
        ...(a.media ? { media: mediaJson(node, a.media) } : {}),
        attachments: Object.fromEntries((a.attachments ?? []).map((m, i) => [String(i), mediaJson(node, m)])),
      },
    };
  }
  const media = a.media ? { media: mediaJson(node, a.media) } : {};
  if (a.schema === 'Ifa') {
    return {
      ...base,
      ticker: a.ticker,
      initial_supply: a.issued_supply,
      max_supply: a.ifa?.max_supply ?? a.issued_supply,
      known_circulating_supply: a.ifa?.circulating ?? a.issued_supply,
      ...media,
      ...(a.ifa?.reject_list_url !== undefined ? { reject_list_url: a.ifa.reject_list_url } : {}),
    };
  }
  return a.schema === 'Nia'
    ? { ...base, ticker: a.ticker, issued_supply: a.issued_supply, ...media }
    : { ...base, issued_supply: a.issued_supply, ...media };
}

export function issueassetnia({ world, node, body }: Ctx) {
  const ticker = reqString(body, 'ticker');
  const name = reqString(body, 'name');
  const precision = optInt(body, 'precision') ?? 0;
  const amounts = checkAmounts(optIntArray(body, 'amounts'));
  checkTicker(ticker);
  checkName(name);
  checkPrecision(precision);
  const a = issue(world, node, { schema: 'Nia', ticker, name, precision }, amounts);
  return { asset: assetJson(world, node, a) };
}

export function issueassetcfa({ world, node, body }: Ctx) {
  const name = reqString(body, 'name');
  const details = optString(body, 'details');
  const precision = optInt(body, 'precision') ?? 0;
  const amounts = checkAmounts(optIntArray(body, 'amounts'));
  checkName(name);
  checkPrecision(precision);
  const media = mediaOf(node, optString(body, 'file_digest'));
  const a = issue(world, node, { schema: 'Cfa', name, details, precision, media }, amounts);
  return { asset: assetJson(world, node, a) };
}

export function issueassetuda({ world, node, body }: Ctx) {
  const ticker = reqString(body, 'ticker');
  const name = reqString(body, 'name');
  const details = optString(body, 'details');
  const precision = optInt(body, 'precision') ?? 0;
  checkTicker(ticker);
  checkName(name);
  checkPrecision(precision);
  const media = mediaOf(node, optString(body, 'media_file_digest'));
  const attachments = (optStringArray(body, 'attachments_file_digests') ?? []).map((d) => mediaOf(node, d)!);
  const a = issue(world, node, { schema: 'Uda', ticker, name, details, precision, media, attachments }, [1]);
  return { asset: assetJson(world, node, a) };
}

export function listassets({ world, node, body }: Ctx) {
  const filter = optStringArray(body, 'filter_asset_schemas') ?? [];
  // IFA assets came with 6887cbf's image: f379330 neither takes the filter nor lists them.
  const schemas = node.api === '6887cbf' ? ['Nia', 'Uda', 'Cfa', 'Ifa'] : ['Nia', 'Uda', 'Cfa'];
  for (const f of filter) if (!schemas.includes(f)) throw badRequest('InvalidRequest', `Unknown asset schema: ${f}`);
  const wanted = (s: string) => filter.length === 0 || filter.includes(s);
  const mine = [...node.wallet!.assets.keys()].map((id) => world.assets.get(id)!).filter(Boolean);
  const out: Record<string, unknown[]> = {};
  for (const [key, schema] of [
    ['nia', 'Nia'],
    ['uda', 'Uda'],
    ['cfa', 'Cfa'],
    ['ifa', 'Ifa'],
  ] as const) {
    if (schemas.includes(schema) && wanted(schema))
      out[key] = mine.filter((a) => a.schema === schema).map((a) => assetJson(world, node, a));
  }
  return out;
}

export function assetbalance({ world, node, body }: Ctx) {
  const a = knownAsset(world, node, reqString(body, 'asset_id'));
  return assetBalance(world, node, a.asset_id);
}

export function assetmetadata({ world, node, body }: Ctx) {
  const a = knownAsset(world, node, reqString(body, 'asset_id'));
  return {
    asset_schema: a.schema,
    initial_supply: a.issued_supply,
    max_supply: a.ifa?.max_supply ?? a.issued_supply,
    known_circulating_supply: a.ifa?.circulating ?? a.issued_supply,
    timestamp: a.timestamp,
    name: a.name,
    precision: a.precision,
    ...(a.ticker !== undefined ? { ticker: a.ticker } : {}),
    ...(a.details !== undefined ? { details: a.details } : {}),
    ...(a.schema === 'Uda'
      ? {
          token: {
            index: 0,
            ticker: a.ticker,
            name: a.name,
            ...(a.details !== undefined ? { details: a.details } : {}),
            ...(a.media ? { media: mediaJson(node, a.media) } : {}),
            attachments: Object.fromEntries((a.attachments ?? []).map((m, i) => [String(i), mediaJson(node, m)])),
          },
        }
      : {}),
  };
}

/**
 * Media bytes, from whichever form the transport gave us: a Buffer/Uint8Array (multipart parsed by the server),
 * `{ file: <base64> }`, `{ file_base64 }` or `{ bytes_hex }` (JSON convenience forms of the emulator).
 */
function mediaBytes(body: Body): { bytes: Buffer; mime: string } {
  const mime = optString(body, 'mime') ?? 'application/octet-stream';
  const file = body.file;
  if (file instanceof Uint8Array) return { bytes: Buffer.from(file), mime };
  const b64 = typeof file === 'string' ? file : optString(body, 'file_base64');
  if (b64 !== undefined) return { bytes: Buffer.from(b64, 'base64'), mime };
  const hexText = optString(body, 'bytes_hex');
  if (hexText !== undefined && /^([0-9a-f]{2})*$/i.test(hexText)) return { bytes: Buffer.from(hexText, 'hex'), mime };
  throw badRequest('MediaFileNotProvided', 'Media file has not been provided');
}

export function postassetmedia({ node, body }: Ctx) {
  const { bytes, mime } = mediaBytes(body);
  if (bytes.length === 0) throw badRequest('MediaFileEmpty', 'Provided media file is empty');
  if (bytes.length > MAX_MEDIA_BYTES) throw badRequest('MediaFileTooBig', `Media file is bigger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`);
  const digest = sha256(bytes);
  node.media.set(digest, { bytes, mime });
  return { digest };
}

export function getassetmedia({ node, body }: Ctx) {
  const digest = reqString(body, 'digest');
  if (!/^[0-9a-f]{64}$/.test(digest)) throw badRequest('InvalidMediaDigest', `Invalid media digest: ${digest}`);
  const m = node.media.get(digest);
  if (!m) throw badRequest('InvalidMediaDigest', `Unknown media digest: ${digest}`);
  return { bytes_hex: m.bytes.toString('hex') };
}

function transferJson(t: Transfer, generation: 'f379330' | '6887cbf') {
  const expiry = generation === 'f379330' ? 'expiration' : 'expiration_timestamp';
  return {
    idx: t.idx,
    created_at: t.created_at,
    updated_at: t.updated_at,
    status: t.status,
    kind: t.kind,
    ...(t.requested !== undefined ? { requested_assignment: { type: 'Fungible', value: t.requested } } : {}),
    assignments: t.assignments.map((value) => ({ type: 'Fungible', value })),
    ...(t.txid ? { txid: t.txid } : {}),
    ...(t.recipient_id ? { recipient_id: t.recipient_id } : {}),
    ...(t.receive_utxo ? { receive_utxo: t.receive_utxo } : {}),
    ...(t.change_utxo ? { change_utxo: t.change_utxo } : {}),
    ...(t.expiration !== undefined ? { [expiry]: t.expiration } : {}),
    transport_endpoints: t.endpoints.map((endpoint) => ({ endpoint, transport_type: 'JsonRpc', used: t.status !== 'WaitingCounterparty' })),
  };
}

/** f379330: the transfers of one asset (`asset_id`, required). */
export function listtransfers(ctx: Ctx) {
  return listTransfersOf(ctx, { assetId: reqString(ctx.body, 'asset_id'), generation: 'f379330' });
}

/** The transfers of one asset, of none (`noAsset`), or of every asset. */
export function listTransfersOf({ world, node }: Ctx, o: { assetId?: string; noAsset?: boolean; generation: 'f379330' | '6887cbf' }) {
  if (o.assetId !== undefined) knownAsset(world, node, o.assetId);
  const transfers = node.wallet!.transfers.filter((t) => (o.noAsset ? !t.asset_id : o.assetId === undefined || t.asset_id === o.assetId));
  return { transfers: transfers.map((t) => transferJson(t, o.generation)) };
}

function failTransfer(world: WorldState, node: NodeState, t: Transfer): void {
  t.status = 'Failed';
  t.updated_at = nowSec();
  revertAllocations(node.wallet!, t.idx);
  if (t.recipient_id) {
    const rec = world.recipients.get(t.recipient_id);
    if (rec && rec.nodeId === node.nodeId) world.recipients.delete(t.recipient_id);
  }
}

/** Settles transfers whose tx is mined and fails expired invoices nobody paid. */
export function refreshTransfersOf(world: WorldState, node: NodeState): boolean {
  let changed = false;
  const now = nowSec();
  for (const t of node.wallet!.transfers) {
    if ((t.status === 'WaitingConfirmations' || t.status === 'WaitingBroadcast') && t.txid && world.isConfirmed(t.txid)) {
      t.status = 'Settled';
      t.updated_at = now;
      settleAllocations(node.wallet!, t.idx);
      changed = true;
    } else if (t.status === 'WaitingCounterparty' && t.expiration !== undefined && t.expiration < now) {
      failTransfer(world, node, t);
      changed = true;
    }
  }
  return changed;
}

export function refreshtransfers({ world, node }: Ctx) {
  refreshTransfersOf(world, node);
  return {};
}

/** Fails transfers still waiting for the counterparty (all, or one batch); others are left alone, as in rgb-lib. */
export function failtransfers({ world, node, body }: Ctx) {
  const batch = optInt(body, 'batch_transfer_idx');
  const noAssetOnly = optBool(body, 'no_asset_only') ?? false;
  const w = node.wallet!;
  if (batch !== undefined) {
    const t = w.transfers.find((x) => x.idx === batch);
    if (!t) throw notFoundBatch(batch);
    if (t.status !== 'WaitingCounterparty')
      throw forbidden('CannotFailBatchTransfer', `Cannot fail batch transfer ${batch}: it is ${t.status}`);
  }
  let changed = false;
  for (const t of w.transfers) {
    if (t.status !== 'WaitingCounterparty') continue;
    if (batch !== undefined && t.idx !== batch) continue;
    if (noAssetOnly && t.asset_id) continue;
    failTransfer(world, node, t);
    changed = true;
  }
  return { transfers_changed: changed };
}

const notFoundBatch = (idx: number) => badRequest('BatchTransferNotFound', `Batch transfer with idx ${idx} not found`);
