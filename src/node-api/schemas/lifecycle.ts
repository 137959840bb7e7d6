import { z } from 'zod';
import { Int, obj } from './common.js';

/** `mnemonic` (6887cbf) restores a wallet from existing words: a secret. */
export const InitRequest = obj({ password: z.string().min(1), mnemonic: z.string().min(1).optional() });
export const InitResponse = obj({ mnemonic: z.string() });
/** How the node's Lightning wallet follows the chain (6887cbf): through bitcoind, or through an indexer. */
export const ChainSyncMode = z.enum(['BlockSync', 'TransactionSync']);
export type ChainSyncMode = z.infer<typeof ChainSyncMode>;

/**
 * `node unlock`'s one meaning on both generations. f379330 takes the `bitcoind_rpc_*` fields at the top
 * (what is left out is the service's); 6887cbf takes `ldk_chain_sync` (`chain_sync` here: BlockSync with
 * every bitcoind field, or TransactionSync with an indexer URL), and always an `indexer_url`.
 */
export const UnlockRequest = obj({
  password: z.string().min(1),
  chain_sync: ChainSyncMode.optional(),
  bitcoind_rpc_username: z.string().optional(),
  bitcoind_rpc_password: z.string().optional(),
  bitcoind_rpc_host: z.string().optional(),
  bitcoind_rpc_port: Int.optional(),
  indexer_url: z.string().optional(),
  proxy_endpoint: z.string().optional(),
  announce_addresses: z.array(z.string()).optional(),
  announce_alias: z.string().optional(),
});
/** f379330's body: the neutral request's fields but `chain_sync`, and nothing else. */
export const UnlockF379330 = z.strictObject(UnlockRequest.omit({ chain_sync: true }).shape);
export const UnlockG6887cbf = z.strictObject({
  password: z.string().min(1),
  ldk_chain_sync: z.discriminatedUnion('mode', [
    z.strictObject({
      mode: z.literal('BlockSync'),
      config: z.strictObject({
        bitcoind_rpc_username: z.string().min(1),
        bitcoind_rpc_password: z.string().min(1),
        bitcoind_rpc_host: z.string().min(1),
        bitcoind_rpc_port: Int.min(1),
      }),
    }),
    z.strictObject({ mode: z.literal('TransactionSync'), config: z.strictObject({ indexer_url: z.string().min(1) }) }),
  ]),
  indexer_url: z.string().min(1),
  announce_addresses: z.array(z.string()),
  announce_alias: z.string().optional(),
});

/** `node sync`'s strategy (6887cbf); f379330 syncs its own way and takes no body. */
export const SyncStrategy = z.enum(['FastSync', 'FullSync', 'FullScan']);
export type SyncStrategy = z.infer<typeof SyncStrategy>;
export const SyncRequest = obj({ strategy: SyncStrategy.optional() }).optional();
export const SyncF379330 = z.strictObject({});
export const SyncG6887cbf = z.strictObject({
  options: z.strictObject({
    keychain: z.union([z.literal('Colored'), z.strictObject({ Vanilla: z.strictObject({ lookback: Int.min(0) }) })]),
    strategy: SyncStrategy,
  }),
});
export const ChangePasswordRequest = obj({ old_password: z.string().min(1), new_password: z.string().min(1) });
export const BackupRequest = obj({ backup_path: z.string().min(1), password: z.string().min(1) });
export const RestoreRequest = obj({ backup_path: z.string().min(1), password: z.string().min(1) });
export const RevokeTokenRequest = obj({ token: z.string().min(1) });
