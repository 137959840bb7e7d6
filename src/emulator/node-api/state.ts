import { type BitcoinNetwork, hex, newAddress, nowSec, outpoint, pubkeyFor, tpub } from './ids.js';
import { badRequest, insufficientFunds, noAvailableUtxos } from './errors.js';

export type TxType = 'RgbSend' | 'Drain' | 'CreateUtxos' | 'User';

export interface Utxo {
  outpoint: string;
  txid: string;
  btc_amount: number;
  colorable: boolean;
  confirmed: boolean;
  /** Our own unconfirmed change: spendable before it confirms (BDK "trusted pending"). */
  trusted: boolean;
  spent: boolean;
}

export interface Allocation {
  asset_id: string;
  outpoint: string;
  amount: number;
  settled: boolean;
  /** Locked as the input of a pending transfer (by its idx). */
  lockedBy?: number;
  /** Created by a pending transfer (by its idx): change or an incoming amount. */
  pendingOf?: number;
}

export interface TxRecord {
  txid: string;
  transaction_type: TxType;
  received: number;
  sent: number;
  fee: number;
  height?: number;
  timestamp?: number;
}

export type TransferStatus = 'WaitingCounterparty' | 'WaitingConfirmations' | 'Settled' | 'Failed';
export type TransferKind = 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';

export interface Transfer {
  idx: number;
  asset_id?: string;
  created_at: number;
  updated_at: number;
  status: TransferStatus;
  kind: TransferKind;
  requested?: number;
  assignments: number[];
  txid?: string;
  recipient_id?: string;
  receive_utxo?: string;
  change_utxo?: string;
  expiration?: number;
  endpoints: string[];
  /** For a Send: the receiver's node and transfer idx, so failing one side fails the other. */
  counterpart?: { nodeId: string; idx: number };
}

export interface Payment {
  amt_msat: number;
  asset_amount?: number;
  asset_id?: string;
  payment_hash: string;
  inbound: boolean;
  status: 'Pending' | 'Succeeded' | 'Failed';
  created_at: number;
  updated_at: number;
  payee_pubkey: string;
  preimage?: string;
}

export interface Swap {
  qty_from: number;
  qty_to: number;
  from_asset?: string;
  to_asset?: string;
  payment_hash: string;
  payment_secret: string;
  status: 'Waiting' | 'Pending' | 'Succeeded' | 'Expired' | 'Failed';
  requested_at: number;
  initiated_at?: number;
  expires_at: number;
  completed_at?: number;
  swapstring: string;
}

export interface Wallet {
  password: string;
  mnemonic: string;
  utxos: Utxo[];
  allocations: Allocation[];
  transactions: TxRecord[];
  transfers: Transfer[];
  /** asset_id -> added_at */
  assets: Map<string, number>;
  payments: Payment[];
  nextTransferIdx: number;
}

export interface NodeState {
  nodeId: string;
  alias?: string;
  network: BitcoinNetwork;
  pubkey: string;
  xpubVanilla: string;
  xpubColored: string;
  wallet?: Wallet;
  unlocked: boolean;
  peers: Set<string>;
  /** digest -> media */
  media: Map<string, { bytes: Buffer; mime: string }>;
  makerSwaps: Swap[];
  takerSwaps: Swap[];
  revokedTokens: Set<string>;
  largeAmounts: boolean;
}

export interface AssetDef {
  asset_id: string;
  schema: 'Nia' | 'Cfa' | 'Uda';
  ticker?: string;
  name: string;
  details?: string;
  precision: number;
  issued_supply: number;
  timestamp: number;
  media?: { digest: string; mime: string };
  attachments?: Array<{ digest: string; mime: string }>;
}

export interface LnInvoice {
  invoice: string;
  nodeId: string;
  payee_pubkey: string;
  payment_hash: string;
  payment_secret: string;
  preimage: string;
  amt_msat?: number;
  asset_id?: string;
  asset_amount?: number;
  timestamp: number;
  expiry_sec: number;
  network: BitcoinNetwork;
  status: 'Pending' | 'Succeeded' | 'Failed';
}

export interface RgbRecipient {
  recipient_id: string;
  nodeId: string;
  transferIdx: number;
  invoice: string;
  witness: boolean;
  asset_id?: string;
  amount?: number;
  expiration: number;
  network: BitcoinNetwork;
  endpoints: string[];
}

export interface Channel {
  channel_id: string;
  temporary_channel_id: string;
  funding_txid: string;
  opener: string;
  acceptor: string;
  capacity_sat: number;
  msat: Record<string, number>;
  asset_id?: string;
  assetAmt: Record<string, number>;
  status: 'Opening' | 'Opened' | 'Closing';
  public: boolean;
  short_channel_id?: number;
  fee_base_msat: number;
  fee_proportional_millionths: number;
}

export interface Backup {
  password: string;
  wallet: Wallet;
}

export const DUST_SAT = 546;
export const CHANNEL_MIN_SAT = 5506;
export const RGB_CHANNEL_MIN_SAT = 30010;
export const CHANNEL_MAX_SAT = 16_777_215;
export const RGB_HTLC_MIN_MSAT = 3_000_000;
export const MAX_ALLOCATIONS_PER_UTXO = 5;
export const DEFAULT_PROXY = 'rpc://127.0.0.1:3000/json-rpc';

/** Everything a NodeWorld knows: the nodes and the shared "chain" and "network" between them. */
export class WorldState {
  readonly nodes = new Map<string, NodeState>();
  readonly assets = new Map<string, AssetDef>();
  readonly lnInvoices = new Map<string, LnInvoice>();
  readonly recipients = new Map<string, RgbRecipient>();
  readonly channels = new Map<string, Channel>();
  readonly addresses = new Map<string, string>();
  readonly backups = new Map<string, Backup>();
  readonly swapsByHash = new Map<string, { maker: string; swap: Swap }>();
  /** txid -> callbacks run when the tx is mined */
  readonly mempool = new Map<string, Array<() => void>>();
  height = 150;
  onMempool?: () => void;

  constructor(readonly fundingSat: number) {}

  newNode(nodeId: string, network: BitcoinNetwork, alias?: string): NodeState {
    const pubkey = pubkeyFor(nodeId);
    return {
      nodeId, alias, network, pubkey, unlocked: false,
      xpubVanilla: tpub(`${pubkey}/vanilla`), xpubColored: tpub(`${pubkey}/colored`),
      peers: new Set(), media: new Map(), makerSwaps: [], takerSwaps: [], revokedTokens: new Set(), largeAmounts: false,
    };
  }

  nodeByPubkey(pubkey: string): NodeState | undefined {
    for (const n of this.nodes.values()) if (n.pubkey === pubkey) return n;
    return undefined;
  }

  /** Puts a tx in the mempool; `onConfirm` runs when a block is mined. */
  broadcast(txid: string, onConfirm?: () => void): void {
    const list = this.mempool.get(txid) ?? [];
    if (onConfirm) list.push(onConfirm);
    this.mempool.set(txid, list);
    this.onMempool?.();
  }

  mine(blocks: number): void {
    this.height += Math.max(1, blocks);
    const ts = nowSec();
    const confirmed = [...this.mempool.entries()];
    this.mempool.clear();
    const txids = new Set(confirmed.map(([txid]) => txid));
    for (const node of this.nodes.values()) {
      const w = node.wallet;
      if (!w) continue;
      for (const u of w.utxos) if (txids.has(u.txid)) u.confirmed = true;
      for (const t of w.transactions) if (txids.has(t.txid) && t.height === undefined) { t.height = this.height; t.timestamp = ts; }
    }
    for (const [, callbacks] of confirmed) for (const cb of callbacks) cb();
  }

  isConfirmed(txid: string): boolean {
    return !this.mempool.has(txid);
  }
}

export function newWallet(password: string, mnemonicText: string): Wallet {
  return {
    password, mnemonic: mnemonicText, utxos: [], allocations: [], transactions: [], transfers: [],
    assets: new Map(), payments: [], nextTransferIdx: 1,
  };
}

export function btcBalances(w: Wallet) {
  const sum = (colorable: boolean, f: (u: Utxo) => boolean) =>
    w.utxos.filter((u) => !u.spent && u.colorable === colorable && f(u)).reduce((a, u) => a + u.btc_amount, 0);
  const of = (colorable: boolean) => ({
    settled: sum(colorable, (u) => u.confirmed),
    future: sum(colorable, () => true),
    spendable: sum(colorable, (u) => u.confirmed || u.trusted),
  });
  return { vanilla: of(false), colored: of(true) };
}

/** Adds an output to a wallet (change, a payment received, a channel close...). */
export function addUtxo(w: Wallet, txid: string, vout: number, amount: number, opts: { colorable?: boolean; confirmed?: boolean; trusted?: boolean } = {}): Utxo {
  const u: Utxo = {
    outpoint: outpoint(txid, vout), txid, btc_amount: amount, colorable: opts.colorable ?? false,
    confirmed: opts.confirmed ?? false, trusted: opts.trusted ?? true, spent: false,
  };
  w.utxos.push(u);
  return u;
}

export function estimateFee(feeRate: number, outputs: number): number {
  return Math.ceil(feeRate * (110 + 31 * outputs));
}

/**
 * Spends vanilla coins for `amount` plus a fee; the change comes back as a trusted unconfirmed output.
 * Returns the txid and the fee. Throws 403 InsufficientFunds when the spendable vanilla balance is short.
 */
export function spendVanilla(world: WorldState, w: Wallet, amount: number, feeRate: number, outputs: number, type: TxType): { txid: string; fee: number } {
  const fee = estimateFee(feeRate, outputs + 1);
  const need = amount + fee;
  const candidates = w.utxos.filter((u) => !u.spent && !u.colorable && (u.confirmed || u.trusted));
  const available = candidates.reduce((a, u) => a + u.btc_amount, 0);
  if (available < need) throw insufficientFunds(need - available);
  const txid = hex();
  let gathered = 0;
  for (const u of candidates) {
    if (gathered >= need) break;
    u.spent = true;
    gathered += u.btc_amount;
  }
  const change = gathered - need;
  if (change >= DUST_SAT) addUtxo(w, txid, outputs, change, { trusted: true });
  w.transactions.push({ txid, transaction_type: type, sent: gathered, received: change >= DUST_SAT ? change : 0, fee: fee + (change < DUST_SAT ? change : 0) });
  world.broadcast(txid);
  return { txid, fee };
}

export function assetBalance(world: WorldState, node: NodeState, assetId: string) {
  const w = node.wallet!;
  const allocs = w.allocations.filter((a) => a.asset_id === assetId);
  const settled = allocs.filter((a) => a.settled && a.pendingOf === undefined).reduce((s, a) => s + a.amount, 0);
  const future = allocs.filter((a) => a.lockedBy === undefined).reduce((s, a) => s + a.amount, 0);
  const spendable = allocs.filter((a) => a.settled && a.lockedBy === undefined).reduce((s, a) => s + a.amount, 0);
  let offchain_outbound = 0;
  let offchain_inbound = 0;
  for (const c of world.channels.values()) {
    if (c.asset_id !== assetId || (c.opener !== node.nodeId && c.acceptor !== node.nodeId)) continue;
    const other = c.opener === node.nodeId ? c.acceptor : c.opener;
    offchain_outbound += c.assetAmt[node.nodeId] ?? 0;
    offchain_inbound += c.assetAmt[other] ?? 0;
  }
  return { settled, future, spendable, offchain_outbound, offchain_inbound };
}

/** A colored UTXO with a free allocation slot, or 403 NoAvailableUtxos. */
export function freeColoredUtxo(w: Wallet, exclude: Set<string> = new Set()): Utxo {
  const slots = (u: Utxo) => w.allocations.filter((a) => a.outpoint === u.outpoint).length;
  const free = w.utxos
    .filter((u) => !u.spent && u.colorable && !exclude.has(u.outpoint) && slots(u) < MAX_ALLOCATIONS_PER_UTXO)
    .sort((a, b) => slots(a) - slots(b));
  if (free.length === 0) throw noAvailableUtxos();
  return free[0];
}

/** Where a transfer's asset change goes: a free colored UTXO, else the outpoint of one of its inputs. */
export function changeOutpoint(w: Wallet, transferIdx: number): string {
  try {
    return freeColoredUtxo(w).outpoint;
  } catch {
    return w.allocations.find((a) => a.lockedBy === transferIdx)!.outpoint;
  }
}

/** Locks settled allocations of an asset worth at least `amount`; returns the locked total. */
export function lockAllocations(w: Wallet, assetId: string, amount: number, transferIdx: number): number {
  let total = 0;
  for (const a of w.allocations) {
    if (total >= amount) break;
    if (a.asset_id === assetId && a.settled && a.lockedBy === undefined && a.pendingOf === undefined) {
      a.lockedBy = transferIdx;
      total += a.amount;
    }
  }
  return total;
}

/** A transfer reached Settled: its inputs disappear, its outputs become settled. */
export function settleAllocations(w: Wallet, transferIdx: number): void {
  w.allocations = w.allocations.filter((a) => a.lockedBy !== transferIdx);
  for (const a of w.allocations) if (a.pendingOf === transferIdx) { a.settled = true; a.pendingOf = undefined; }
}

/** A transfer failed: its inputs are unlocked, its outputs vanish. */
export function revertAllocations(w: Wallet, transferIdx: number): void {
  w.allocations = w.allocations.filter((a) => a.pendingOf !== transferIdx);
  for (const a of w.allocations) if (a.lockedBy === transferIdx) a.lockedBy = undefined;
}

export function newTransfer(w: Wallet, t: Omit<Transfer, 'idx' | 'created_at' | 'updated_at'>): Transfer {
  const ts = nowSec();
  const transfer: Transfer = { idx: w.nextTransferIdx++, created_at: ts, updated_at: ts, ...t };
  w.transfers.push(transfer);
  return transfer;
}

export function newNodeAddress(world: WorldState, node: NodeState): string {
  const address = newAddress(node.network);
  world.addresses.set(address, node.nodeId);
  return address;
}

/** Channels of a node, seen from its side. */
export function channelsOf(world: WorldState, nodeId: string): Channel[] {
  return [...world.channels.values()].filter((c) => c.opener === nodeId || c.acceptor === nodeId);
}

export const peerOf = (c: Channel, nodeId: string) => (c.opener === nodeId ? c.acceptor : c.opener);

export const reserveMsat = (c: Channel) => c.capacity_sat * 10;

export function outboundMsat(c: Channel, nodeId: string): number {
  return Math.max(0, (c.msat[nodeId] ?? 0) - reserveMsat(c));
}

export function isUsable(world: WorldState, c: Channel): boolean {
  const a = world.nodes.get(c.opener);
  const b = world.nodes.get(c.acceptor);
  return c.status === 'Opened' && !!a?.unlocked && !!b?.unlocked && a.peers.has(b.pubkey);
}

export function requireNonDust(amount: number): void {
  if (amount < DUST_SAT) throw badRequest('OutputBelowDustLimit', 'Output below the dust limit');
}
