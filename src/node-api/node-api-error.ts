export type NodeApiErrorKind =
  | 'rln' // the node answered an RLN error body { error, code, name }
  | 'http' // a non-2xx answer without an RLN body
  | 'network' // the node could not be reached
  | 'timeout' // no answer in time
  | 'tls' // the TLS handshake failed (mTLS credentials, CA)
  | 'malformed' // the body is not JSON (or is truncated)
  | 'invalid-response' // JSON that does not match the endpoint's schema
  | 'invalid-request' // the request was refused before sending
  | 'credentials'; // the credentials could not be loaded

const HINTS: Record<string, string> = {
  LockedNode: 'the node is locked: unlock it with `node unlock <node>`',
  NotInitialized: 'the node has no wallet yet: run `node init <node>`',
  AlreadyInitialized: 'the node is already initialized: unlock it with `node unlock <node>` instead',
  UnlockedNode: 'the node is unlocked: lock it first with `node lock <node>`',
  WrongPassword: 'the password is wrong: try again',
  InvalidPassword: 'the new password is not acceptable (too short?): choose another one',
  InsufficientFunds: 'not enough bitcoin: send funds to an address from `wallet address <node>` and wait for a confirmation',
  InsufficientAssets: 'not enough of this asset: check `asset balance <node> <asset>`; received assets settle after `asset refresh <node>`',
  NoAvailableUtxos: 'no UTXO is free for RGB: create some with `wallet utxos <node>` (it needs confirmed bitcoin)',
  AllocationsAlreadyAvailable: 'the node already has enough colored UTXOs',
  UnknownContractId: 'the node does not know this asset: check `asset list <node>`',
  InvalidAssetID: 'that is not a valid asset id: copy it from `asset list <node>`',
  UnknownLNInvoice: 'the node does not know this invoice',
  InvalidInvoice: 'the invoice is not valid (or expired): ask for a new one',
  DuplicatePayment: 'this invoice has already been paid',
  InvalidAmount: 'an amount is out of range: check the limits in `node info <node>`',
  InvalidFeeRate: 'the fee rate is not acceptable: see `wallet fee <node>`',
  InvalidPubkey: 'that is not a valid node public key (66 hex characters)',
  InvalidPeerInfo: 'give the peer as pubkey@host:port',
  FailedPeerConnection: 'the peer could not be reached: check that it is running and unlocked',
  ChangingState: 'the node is changing state: try again in a moment',
  InvalidBackupPath: 'the backup path is not valid (or no backup exists there)',
  OutputBelowDustLimit: 'the amount is below the dust limit (546 sat)',
  ExpiredSwapOffer: 'the swap offer has expired: ask the maker for a new one',
  InsufficientCapacity: 'the channels do not have enough liquidity for this',
  RecipientIDAlreadyUsed: 'this RGB invoice has already been used: ask for a new one',
  UnknownChannelId: 'no such channel on this node: check `channel list <node>`',
  UnknownTemporaryChannelId: 'no channel was opened with this temporary id',
  PaymentNotFound: 'no payment with this hash on this node: check `pay list <node>`',
  SwapNotFound: 'no swap with this hash on this node: check `swap list <node>`',
  InvalidMediaDigest: 'no media with this digest: upload it first with `asset upload <node>`',
  MediaFileNotProvided: 'attach a media file',
  CannotFailBatchTransfer: 'only transfers still waiting for the counterparty can be failed',
  InvalidRecipientID: 'the RGB invoice (recipient id) is not valid: ask for a new one',
  InvalidSwapString: 'the swap string is not valid: copy it exactly from `swap maker-init`',
  InvalidRequest: 'the node refused the request as invalid: check the arguments',
  FailedPeerDisconnection: 'the node could not disconnect the peer: see `peer list <node>` and `channel list <node>`',
  // answers of the hosting service in front of the node
  Unauthorized: 'the node API token is wrong or revoked: check NODE_API_TOKEN or NODE_CREDENTIALS_FILE',
  NodeNotRunning: 'the node is not running: start it with `node start <node>` and wait until it is RUNNING',
  NodeNotFound: 'no such node on the service: check `node list`',
};

/**
 * Hints for RLN errors whose one name covers several reasons: read from the node's own words, so
 * that the hint matches what the node said (P40).
 */
function hintFromReason(rlnName: string | undefined, reason: string | undefined): string | undefined {
  if (rlnName !== 'FailedPeerDisconnection' || !reason) return undefined;
  if (/channel/i.test(reason)) return 'a channel with this peer is open: close it first (`channel list <node>`, then `channel close`)';
  if (/not connected/i.test(reason)) return 'this node is not connected to that peer: see `peer list <node>`';
  return undefined;
}

function hintFor(kind: NodeApiErrorKind, status: number | undefined, rlnName: string | undefined, reason?: string): string {
  const fromReason = hintFromReason(rlnName, reason);
  if (fromReason) return fromReason;
  if (rlnName && HINTS[rlnName]) return HINTS[rlnName];
  switch (kind) {
    case 'network':
      return 'the node could not be reached at its invoke URL: is it RUNNING? check `node info <node>`';
    case 'timeout':
      return 'the node did not answer in time: it may be busy or starting; try again, or check `node info <node>`';
    case 'tls':
      return "the TLS handshake failed: check the node's certificate, key and CA files in NODE_CREDENTIALS_FILE";
    case 'malformed':
      return 'the node answered with a body that is not JSON (truncated?): try again; if it persists, check `node logs <node>`';
    case 'invalid-response':
      return 'the node answered in an unexpected shape: is the node image up to date? see `node image`';
    case 'invalid-request':
      return 'fix the arguments and try again';
    case 'credentials':
      return 'check NODE_CREDENTIALS_FILE';
    default:
      break;
  }
  if (status !== undefined && status >= 300 && status < 400)
    return "the node API answered a redirect, which is never followed (a request may carry a password): check the node's invoke_url with `node info <node>`";
  if (status === 401) return 'the node API token is wrong or revoked: check NODE_API_TOKEN or NODE_CREDENTIALS_FILE';
  if (status === 403) return 'the node refused this in its current state';
  if (status === 404) return 'the node API has no such endpoint or object: is the node image up to date?';
  if (status === 400 || status === 422) return 'the node refused the request as invalid: check the arguments';
  if (status !== undefined && status >= 500) return 'the node failed: try again, or check `node logs <node>`';
  return 'try again, or check `node info <node>`';
}

/**
 * A failed node API call: which endpoint, the HTTP status, the RLN error name (e.g. LockedNode) and a hint saying
 * what to do next. It never carries tokens, passwords or request bodies.
 */
export class NodeApiError extends Error {
  readonly endpoint: string;
  readonly status?: number;
  readonly rlnName?: string;
  readonly hint: string;
  readonly kind: NodeApiErrorKind;
  /** For invalid responses: the path of the first wrong field, e.g. `channels.0.capacity_sat`. */
  readonly field?: string;
  /** The node's own words (the `error` of an RLN error body), shown to the user as they are. */
  readonly serviceMessage?: string;

  constructor(opts: {
    endpoint: string;
    kind: NodeApiErrorKind;
    message: string;
    status?: number;
    rlnName?: string;
    field?: string;
    hint?: string;
    serviceMessage?: string;
  }) {
    super(opts.message);
    this.serviceMessage = opts.serviceMessage;
    this.endpoint = opts.endpoint;
    this.kind = opts.kind;
    this.status = opts.status;
    this.rlnName = opts.rlnName;
    this.field = opts.field;
    this.name = opts.rlnName ?? 'NodeApiError';
    this.hint = opts.hint ?? hintFor(opts.kind, opts.status, opts.rlnName, opts.serviceMessage);
  }
}

export function isNodeApiError(e: unknown): e is NodeApiError {
  return e instanceof NodeApiError;
}

/**
 * What a refused call says of the node's wallet: `locked` (LockedNode) or `uninitialised`
 * (NotInitialized); undefined for any other failure. The one reading of these two RLN errors that
 * `node list`, the dashboard's neighbours and the activity poller share.
 */
export function walletStateOf(e: unknown): 'locked' | 'uninitialised' | undefined {
  const rlnName = e && typeof e === 'object' ? (e as { rlnName?: unknown }).rlnName : undefined;
  if (rlnName === 'LockedNode') return 'locked';
  if (rlnName === 'NotInitialized') return 'uninitialised';
  return undefined;
}
