/**
 * What the watch kinds read besides the activity snapshot, only for the kinds a node's watches
 * hear: its free colourable UTXOs (`utxos`, every poll), its connected peers (`peers`, every
 * poll), and at the slower cadence its indexer and proxy (`infra`) and a refresh of the transfers
 * still waiting (`transfers`, which tells why one failed on 6887cbf). Never throws: what the node
 * would not answer is left absent, and carried over from the last poll.
 */
import type { NodeApiClient } from '../node-api/index.js';
import type { ActivitySnapshot } from './types.js';
import type { WatchProfile } from './watch-thresholds.js';

export type WatchNodeApi = Pick<
  NodeApiClient,
  'listunspents' | 'listpeers' | 'checkindexerurl' | 'checkproxyendpoint' | 'refreshtransfers'
>;

const WAITING = new Set(['Initiated', 'WaitingCounterparty', 'WaitingSafeHeight', 'WaitingConfirmations', 'WaitingBroadcast']);

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e)) || 'no answer';

/** Refreshes the transfers still waiting (slow cadence, before they are listed); returns why any failed, by idx. */
export async function refreshWaiting(
  api: WatchNodeApi,
  profile: WatchProfile,
  previous: ActivitySnapshot | undefined,
): Promise<Record<string, string> | undefined> {
  if (!profile.kinds.has('transfers') || !previous?.transfers?.some((t) => WAITING.has(t.status))) return undefined;
  try {
    const r = await api.refreshtransfers({ skip_sync: true });
    const failures: Record<string, string> = {};
    for (const [idx, t] of Object.entries(r.transfers ?? {})) {
      if (t.failure) failures[idx] = `${t.failure.name}: ${t.failure.message}`;
    }
    return failures;
  } catch {
    return undefined;
  }
}

export async function readWatchFacts(
  api: WatchNodeApi,
  profile: WatchProfile,
  slow: boolean,
  now: number,
): Promise<Pick<ActivitySnapshot, 'utxos' | 'peers' | 'infra'>> {
  const { kinds, thresholds: t } = profile;
  const [unspents, peers, indexer, proxy] = await Promise.all([
    kinds.has('utxos') ? api.listunspents({ skip_sync: true }).catch(() => undefined) : undefined,
    kinds.has('peers') ? api.listpeers().catch(() => undefined) : undefined,
    slow && kinds.has('infra') && t.indexerUrl
      ? api.checkindexerurl({ indexer_url: t.indexerUrl }).then(
          () => ({ url: t.indexerUrl!, error: null }),
          (e: unknown) => ({ url: t.indexerUrl!, error: reason(e) }),
        )
      : undefined,
    slow && kinds.has('infra') && t.proxyEndpoint
      ? api.checkproxyendpoint({ proxy_endpoint: t.proxyEndpoint }).then(
          () => ({ url: t.proxyEndpoint!, error: null }),
          (e: unknown) => ({ url: t.proxyEndpoint!, error: reason(e) }),
        )
      : undefined,
  ]);
  const colourable = unspents?.unspents.filter((u) => u.utxo.colorable);
  return {
    utxos: colourable && { free: colourable.filter((u) => u.rgb_allocations.length === 0).length, colourable: colourable.length },
    peers: peers?.peers.map((p) => p.pubkey),
    infra: indexer || proxy ? { at: now, ...(indexer ? { indexer } : {}), ...(proxy ? { proxy } : {}) } : undefined,
  };
}
