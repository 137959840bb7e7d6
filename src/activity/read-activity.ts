/**
 * readActivity(api) → one ActivitySnapshot of a node: its lock state, channels, payments,
 * RGB transfers and on-chain deposits, in the node API's own words turned into exact strings.
 * A node that is locked or uninitialised answers its lock state only; one that does not answer
 * is `unreachable`. Never throws for what the node answers: a list it refuses is left absent.
 */
import { walletStateOf, type NodeApiClient } from '../node-api/index.js';
import type { ActivitySnapshot, AssetInfo, ChannelState, DepositState, LockState, PaymentState, TransferState } from './types.js';

/** The node API calls the poller makes. */
export type ActivityNodeApi = Pick<
  NodeApiClient,
  'nodeinfo' | 'listchannels' | 'listpayments' | 'listtransactions' | 'listassets' | 'listtransfers'
>;

/** Transfers are read for at most this many assets a poll (the first ones the node lists). */
export const MAX_ASSETS_PER_POLL = 20;

const str = (v: number | bigint | undefined): string | undefined => (v === undefined ? undefined : v.toString());

const expiryOf = (t: { expiration?: number | null; expiration_timestamp?: number | null }): number | undefined => {
  const v = t.expiration_timestamp ?? t.expiration;
  return v === undefined || v === null ? undefined : Number(v);
};

const lockFromError = (e: unknown): LockState => walletStateOf(e) ?? 'unreachable';

/** What `read` answers, or undefined when it fails (`failed` is told why). */
async function optional<T>(read: () => Promise<T>, failed?: (e: unknown) => void): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    failed?.(e);
    return undefined;
  }
}

/**
 * The node's lists, read at once. A node whose pubkey is known from its last poll (it does not
 * change) is not asked /nodeinfo first: its lists tell the lock state as well, one call fewer a poll.
 * When they all fail, the node's state is what they said (locked, uninitialised) or unreachable,
 * as /nodeinfo's failure said it; one that says locked or uninitialised wins over the others.
 */
async function readLists(api: ActivityNodeApi, knownPubkey: string | undefined) {
  let failures = 0;
  let state: LockState | undefined;
  const failed = (e: unknown) => {
    failures++;
    state ??= walletStateOf(e);
  };
  const lists = await Promise.all([
    optional(() => api.listchannels(), failed),
    optional(() => api.listpayments(), failed),
    optional(() => api.listtransactions({ skip_sync: true }), failed),
    optional(() => api.listassets({ filter_asset_schemas: ['Nia', 'Cfa', 'Uda'] }), failed),
  ]);
  // After /nodeinfo answered, the node is unlocked, as before: a list it refuses is left absent.
  const lock: LockState = knownPubkey === undefined ? 'unlocked' : (state ?? (failures === lists.length ? 'unreachable' : 'unlocked'));
  return { lists, lock };
}

/**
 * `knownPubkey`: the node's pubkey from its last poll that found it unlocked, if any; without it
 * the node is asked /nodeinfo first (its pubkey, and its lock state before any list is asked).
 */
export async function readActivity(api: ActivityNodeApi, takenAt: number, knownPubkey?: string): Promise<ActivitySnapshot> {
  let pubkey: string;
  if (knownPubkey !== undefined) pubkey = knownPubkey;
  else {
    try {
      ({ pubkey } = await api.nodeinfo());
    } catch (e) {
      return { takenAt, lock: lockFromError(e) };
    }
  }
  const {
    lists: [channels, payments, transactions, assets],
    lock,
  } = await readLists(api, knownPubkey);
  if (lock !== 'unlocked') return { takenAt, lock };
  const assetList = assets ? [...(assets.nia ?? []), ...(assets.cfa ?? []), ...(assets.uda ?? [])] : undefined;
  const assetIds = assetList?.map((a) => a.asset_id).slice(0, MAX_ASSETS_PER_POLL);
  const transfers = assetIds
    ? await Promise.all(
        assetIds.map(async (assetId) => ({ assetId, list: await optional(() => api.listtransfers({ asset_id: assetId })) })),
      )
    : undefined;
  return {
    takenAt,
    lock: 'unlocked',
    pubkey,
    assets: assetList?.map(
      (a): AssetInfo => ({
        id: a.asset_id,
        ticker: typeof (a as { ticker?: unknown }).ticker === 'string' ? (a as { ticker: string }).ticker : undefined,
        name: a.name,
        precision: Number(a.precision),
      }),
    ),
    channels: channels?.channels.map(
      (c): ChannelState => ({
        id: c.channel_id,
        peerPubkey: c.peer_pubkey,
        status: c.status,
        usable: c.is_usable,
        capacitySat: c.capacity_sat.toString(),
        localMsat: c.outbound_balance_msat.toString(),
        remoteMsat: c.inbound_balance_msat.toString(),
        assetId: c.asset_id,
        assetLocal: str(c.asset_local_amount),
        assetRemote: str(c.asset_remote_amount),
      }),
    ),
    payments: payments?.payments.map(
      (p): PaymentState => ({
        hash: p.payment_hash,
        inbound: p.inbound,
        status: p.status,
        amtMsat: str(p.amt_msat),
        assetId: p.asset_id,
        assetAmount: str(p.asset_amount),
        payeePubkey: p.payee_pubkey,
      }),
    ),
    // Transfers the node could not list for one asset would look "new" next time: keep the poll's list only when all answered.
    transfers: transfers?.every((t) => t.list)
      ? transfers.flatMap(({ assetId, list }) =>
          list!.transfers.map(
            (t): TransferState => ({
              key: `${assetId}#${t.idx}`,
              assetId,
              idx: t.idx,
              kind: t.kind,
              status: t.status,
              amount: str(t.requested_assignment?.value ?? t.assignments.find((a) => a.value !== undefined)?.value),
              // The node says seconds; f379330 names the expiry `expiration`, 6887cbf `expiration_timestamp`.
              createdAt: Number(t.created_at) * 1000,
              ...(expiryOf(t) !== undefined ? { expiresAt: expiryOf(t)! * 1000 } : {}),
              outOfBand: t.transport_endpoints.length === 0,
            }),
          ),
        )
      : undefined,
    deposits: transactions?.transactions
      .filter((t) => (t.transaction_type === 'User' || t.transaction_type === 'Incoming') && BigInt(t.received) > BigInt(t.sent))
      .map(
        (t): DepositState => ({
          txid: t.txid,
          receivedSat: (BigInt(t.received) - BigInt(t.sent)).toString(),
          confirmed: t.confirmation_time !== undefined,
        }),
      ),
  };
}
