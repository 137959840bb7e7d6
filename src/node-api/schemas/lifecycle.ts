import { z } from 'zod';
import { Int, obj } from './common.js';

export const InitRequest = obj({ password: z.string().min(1) });
export const InitResponse = obj({ mnemonic: z.string() });
export const UnlockRequest = obj({
  password: z.string().min(1), bitcoind_rpc_username: z.string().optional(), bitcoind_rpc_password: z.string().optional(),
  bitcoind_rpc_host: z.string().optional(), bitcoind_rpc_port: Int.optional(), indexer_url: z.string().optional(),
  proxy_endpoint: z.string().optional(), announce_addresses: z.array(z.string()).optional(), announce_alias: z.string().optional(),
});
export const ChangePasswordRequest = obj({ old_password: z.string().min(1), new_password: z.string().min(1) });
export const BackupRequest = obj({ backup_path: z.string().min(1), password: z.string().min(1) });
export const RestoreRequest = obj({ backup_path: z.string().min(1), password: z.string().min(1) });
export const RevokeTokenRequest = obj({ token: z.string().min(1) });
