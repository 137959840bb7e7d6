/** The emulated world's records and the WorldState that holds them (chain, network, nodes). */
import { type BitcoinNetwork, nowSec, pubkeyFor, tpub } from './ids.js';
import type { ApiGeneration } from './api-generation.js';

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

/** `WaitingBroadcast` (6887cbf): a receiver that took an out-of-band consignment, waiting for the sender to broadcast. */
export type TransferStatus = 'WaitingCounterparty' | 'WaitingBroadcast' | 'WaitingConfirmations' | 'Settled' | 'Failed';
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
  /** The node API generation its image speaks. */
  api: ApiGeneration;
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
  /** Faults the demo injects (faults.ts): the API answering 500 to everything, the indexer or proxy not answering. */
  faults: { apiDead?: boolean; indexerDown?: boolean; proxyDown?: boolean };
}

export interface AssetDef {
  asset_id: string;
  schema: 'Nia' | 'Cfa' | 'Uda' | 'Ifa';
  ticker?: string;
  name: string;
  details?: string;
  precision: number;
  issued_supply: number;
  timestamp: number;
  media?: { digest: string; mime: string };
  attachments?: Array<{ digest: string; mime: string }>;
  /** IFA (6887cbf): the issued supply plus every inflation right, what is known in circulation, and the node holding the rights. */
  ifa?: { max_supply: number; circulating: number; rightsOf: string; reject_list_url?: string };
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
  /** 6887cbf: the BOLT11 description, or the hash of one (hex). */
  description?: string;
  description_hash?: string;
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
  /** The generation of the image that wrote it: 6887cbf cannot read the mnemonic file of an f379330 backup. */
  api: ApiGeneration;
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

  newNode(nodeId: string, network: BitcoinNetwork, alias?: string, api: ApiGeneration = 'f379330'): NodeState {
    const pubkey = pubkeyFor(nodeId);
    return {
      nodeId,
      api,
      alias,
      network,
      pubkey,
      unlocked: false,
      xpubVanilla: tpub(`${pubkey}/vanilla`),
      xpubColored: tpub(`${pubkey}/colored`),
      peers: new Set(),
      media: new Map(),
      makerSwaps: [],
      takerSwaps: [],
      revokedTokens: new Set(),
      largeAmounts: false,
      faults: {},
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
      for (const t of w.transactions)
        if (txids.has(t.txid) && t.height === undefined) {
          t.height = this.height;
          t.timestamp = ts;
        }
    }
    for (const [, callbacks] of confirmed) for (const cb of callbacks) cb();
  }

  isConfirmed(txid: string): boolean {
    return !this.mempool.has(txid);
  }
}
