/**
 * What the activity poller keeps of a node between two polls, and what changed.
 *
 * The service sends status events only; payments, channels, transfers, liquidity and a node
 * that came back locked are seen by polling the node's API and comparing with the last
 * state kept. Amounts are exact decimal strings (sats, msats, raw asset units), so a snapshot
 * is plain JSON that the store can keep as it is.
 */

/** What the node API answered about its wallet: `unreachable` when it did not answer at all. */
export type LockState = 'uninitialised' | 'locked' | 'unlocked' | 'unreachable';

export interface ChannelState {
  id: string;
  peerPubkey: string;
  /** Any other value (a newer image's) is kept as it came. */
  status: 'Opening' | 'Opened' | 'Closing' | (string & {});
  usable: boolean;
  capacitySat: string;
  /** Our side and theirs, in msat (outbound_balance_msat, inbound_balance_msat). */
  localMsat: string;
  remoteMsat: string;
  assetId?: string;
  assetLocal?: string;
  assetRemote?: string;
}

export interface PaymentState {
  hash: string;
  inbound: boolean;
  status: 'Pending' | 'Succeeded' | 'Failed' | (string & {});
  amtMsat?: string;
  assetId?: string;
  assetAmount?: string;
  /** The payee (our pubkey for an inbound payment). */
  payeePubkey: string;
}

export interface TransferState {
  /** `<assetId>#<idx>`: transfer indexes are per asset. */
  key: string;
  assetId: string;
  idx: number;
  /** f379330's and 6887cbf's kinds (Burn); any other value is kept as it came. */
  kind: 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation' | 'Burn' | (string & {});
  /** Both generations' statuses (6887cbf adds Initiated, WaitingSafeHeight, WaitingBroadcast); any other is kept as it came. */
  status:
    | 'Initiated'
    | 'WaitingCounterparty'
    | 'WaitingSafeHeight'
    | 'WaitingConfirmations'
    | 'WaitingBroadcast'
    | 'Settled'
    | 'Failed'
    | (string & {});
  /** The amount moved, raw units, when the node says. */
  amount?: string;
  /** When the transfer was created and when it expires (ms since the epoch), when the node says. */
  createdAt?: number;
  expiresAt?: number;
  /** True when it names no transport endpoint: its consignment goes out of band. */
  outOfBand?: boolean;
}

export interface AssetInfo {
  id: string;
  ticker?: string;
  name?: string;
  precision: number;
}

export interface DepositState {
  txid: string;
  receivedSat: string;
  confirmed: boolean;
}

/** One poll of one node. Lists are absent when the node could not be asked (locked, unreachable). */
export interface ActivitySnapshot {
  takenAt: number;
  lock: LockState;
  /** The node's own pubkey (nodeinfo), to name our nodes when they are a channel's peer. */
  pubkey?: string;
  /** The node's assets, to show amounts in display units with their ticker. */
  assets?: AssetInfo[];
  channels?: ChannelState[];
  payments?: PaymentState[];
  transfers?: TransferState[];
  deposits?: DepositState[];
  /** Free colourable UTXOs (no allocation on them) and all colourable ones (kind `utxos`). */
  utxos?: { free: number; colourable: number };
  /** The pubkeys of the connected peers (kind `peers`). */
  peers?: string[];
  /** The last indexer and proxy checks (kind `infra`, at its slower cadence): an error text, or null when it answered. */
  infra?: InfraCheck;
  /** The backups and upgrades the bot knows of (kind `backup`, at the slower cadence). */
  backup?: { createdAt?: number; lastUpgradeAt?: number; lastBackupAt?: number };
  /** Why transfers failed when the poller refreshed them (6887cbf answers it), by transfer idx. */
  transferFailures?: Record<string, string>;
}

export interface InfraCheck {
  at: number;
  indexer?: { url: string; error: string | null };
  proxy?: { url: string; error: string | null };
}

export type ShareBand = 'low' | 'ok' | 'high';
export type FloorBand = 'low' | 'ok';

/** What a node's alerts remember across polls so that a crossing is told once (hysteresis). */
export interface ActivityBands {
  /** Per channel id: where its local share stands. */
  channels: Record<string, ShareBand>;
  inbound: FloorBand;
  outbound: FloorBand;
}

export interface ActivityState {
  snapshot: ActivitySnapshot;
  bands: ActivityBands;
  /** The watch kinds' open episodes and what they remember between polls (watch-conditions.ts). */
  watch?: WatchMemory;
}

/** One condition a watch kind alerts on (a stuck transfer, UTXOs low, …) while it lasts. */
export interface Condition {
  kind: 'transfers' | 'utxos' | 'infra' | 'liveness' | 'peers' | 'backup';
  /** Unique per node while it lasts: `utxos_low`, `transfer_stuck:<assetId>#<idx>`, … */
  key: string;
  /** When the episode began (the first poll that saw it, or what the node says). */
  since: number;
  /** The facts the alert shows (label and value) and its header's wording. */
  title: string;
  facts: Array<{ label: string; value: string }>;
  /** Buttons' commands and arguments (the node's id is added). */
  actions: Array<{ label: string; command: string; args?: Record<string, string>; style?: 'primary' | 'danger' | 'secondary' }>;
  /** What the recovery message says. */
  recovered: string;
}

export interface WatchMemory {
  /** The conditions open now, by key: an alert was queued for each, a recovery comes when it is gone. */
  open: Record<string, Condition>;
  /** Polls in a row the node's API did not answer, and when the first of them was. */
  misses: number;
  missedSince?: number;
  /** Per peer pubkey with a channel: since when it is disconnected. */
  peerGoneSince: Record<string, number>;
}

export interface LiquidityThresholds {
  /** A channel's local share below this is low (0–1). Default 0.2. */
  lowShare: number;
  /** Above this is high. Default 0.8. */
  highShare: number;
  /** How far back past a threshold a share must come before it counts as crossed back. Default 0.05. */
  hysteresis: number;
  /** The node's total inbound (remote) below this many sats is low; undefined: not watched. */
  inboundFloorSat?: number;
  /** The node's total outbound (local) below this many sats is low; undefined: not watched. */
  outboundFloorSat?: number;
}

export const DEFAULT_LIQUIDITY: LiquidityThresholds = { lowShare: 0.2, highShare: 0.8, hysteresis: 0.05 };

/** The kinds a watch may choose (`watch add alice kinds=payments,channels`). `status` is the service's webhook. */
export const ACTIVITY_KINDS = [
  'payments',
  'channels',
  'transfers',
  'deposits',
  'liquidity',
  'lock',
  'utxos',
  'infra',
  'liveness',
  'peers',
  'backup',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export type ActivityEvent =
  | { kind: 'channels'; type: 'channel_opened' | 'channel_usable' | 'channel_closed'; channel: ChannelState }
  | { kind: 'payments'; type: 'payment_received' | 'payment_sent' | 'payment_failed'; payment: PaymentState }
  | { kind: 'transfers'; type: 'transfer_settled' | 'transfer_failed'; transfer: TransferState }
  | { kind: 'deposits'; type: 'deposit_confirmed'; deposit: DepositState }
  | { kind: 'liquidity'; type: 'channel_share'; channel: ChannelState; band: ShareBand; share: number }
  | {
      kind: 'liquidity';
      type: 'inbound_low' | 'inbound_recovered' | 'outbound_low' | 'outbound_recovered';
      totalSat: number;
      floorSat: number;
    }
  | { kind: 'lock'; type: 'node_locked' | 'node_unlocked' | 'node_found_locked' }
  /** A watch kind's condition began (`recovered` false) or ended (true): once per episode. */
  | { kind: Condition['kind']; type: 'condition'; condition: Condition; recovered: boolean };
