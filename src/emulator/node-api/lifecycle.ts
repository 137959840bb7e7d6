import { badRequest, failed, forbidden, lockedNode, notInitialized, unlockedNode, wrongPassword } from './errors.js';
import { hex, mnemonic } from './ids.js';
import { type Ctx, optString, reqString } from './input.js';
import { type NodeState, type Wallet, type WorldState } from './state.js';
import { addUtxo, newWallet } from './wallet-coins.js';

const MIN_PASSWORD = 8;

function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD) throw badRequest('InvalidPassword', `Invalid password: must be at least ${MIN_PASSWORD} characters`);
}

/** Gives a fresh wallet its regtest funding, as a confirmed vanilla output. */
export function fundWallet(world: WorldState, w: Wallet): void {
  if (world.fundingSat <= 0) return;
  const txid = hex();
  addUtxo(w, txid, 0, world.fundingSat, { confirmed: true });
  w.transactions.push({
    txid,
    transaction_type: 'User',
    received: world.fundingSat,
    sent: 0,
    fee: 0,
    height: world.height,
    timestamp: Math.floor(Date.now() / 1000),
  });
}

/** `words`: an existing mnemonic (6887cbf's `mnemonic` field), else new ones. */
export function init({ world, node, body }: Ctx, given?: string) {
  const password = reqString(body, 'password');
  if (node.wallet) throw forbidden('AlreadyInitialized', 'Node has already been initialized');
  checkNewPassword(password);
  const words = given ?? mnemonic();
  node.wallet = newWallet(password, words);
  fundWallet(world, node.wallet);
  return { mnemonic: words };
}

export function unlock({ node, body }: Ctx) {
  const password = reqString(body, 'password');
  if (!node.wallet) throw notInitialized();
  if (node.unlocked) throw unlockedNode();
  if (password !== node.wallet.password) throw wrongPassword();
  node.unlocked = true;
  return {};
}

function goOffline(world: WorldState, node: NodeState): void {
  node.unlocked = false;
  for (const peer of node.peers) world.nodeByPubkey(peer)?.peers.delete(node.pubkey);
  node.peers.clear();
}

export function lock({ world, node }: Ctx) {
  if (!node.wallet) throw notInitialized();
  if (!node.unlocked) throw lockedNode();
  goOffline(world, node);
  return {};
}

export function changepassword({ node, body }: Ctx) {
  const oldPassword = reqString(body, 'old_password');
  const newPassword = reqString(body, 'new_password');
  if (!node.wallet) throw notInitialized();
  if (node.unlocked) throw unlockedNode();
  if (oldPassword !== node.wallet.password) throw wrongPassword();
  checkNewPassword(newPassword);
  node.wallet.password = newPassword;
  return {};
}

function cloneWallet(w: Wallet): Wallet {
  return {
    ...structuredClone({ ...w, assets: undefined }),
    assets: new Map(w.assets),
  };
}

/** The backup is kept in memory under its path, encrypted (in spirit) with the given password. */
export function backup({ world, node, body }: Ctx) {
  const path = reqString(body, 'backup_path');
  const password = reqString(body, 'password');
  if (!node.wallet) throw notInitialized();
  if (node.unlocked) throw unlockedNode();
  if (!path.startsWith('/')) throw badRequest('InvalidBackupPath', 'Invalid backup path');
  if (password !== node.wallet.password) throw wrongPassword();
  world.backups.set(path, { password, wallet: cloneWallet(node.wallet), api: node.api });
  return {};
}

export function restore({ world, node, body }: Ctx) {
  const path = reqString(body, 'backup_path');
  const password = reqString(body, 'password');
  if (node.unlocked) throw unlockedNode();
  const saved = world.backups.get(path);
  if (!saved) throw badRequest('InvalidBackupPath', 'Invalid backup path');
  if (password !== saved.password) throw wrongPassword();
  // 6887cbf (1db2a87) encrypts the mnemonic file another way and cannot read one an older image wrote,
  // including inside a backup: RLN restores the files, then fails reading the mnemonic.
  if (node.api === '6887cbf' && saved.api === 'f379330') {
    throw failed('CorruptedMnemonic', 'The stored mnemonic is corrupted: unsupported version 157');
  }
  node.wallet = cloneWallet(saved.wallet);
  return {};
}

export function sync(_ctx: Ctx) {
  return {};
}

/** The hosted node process stops; the service restarts it, so the node comes back locked. */
export function shutdown({ world, node }: Ctx) {
  goOffline(world, node);
  return {};
}

export function revoketoken({ node, body }: Ctx) {
  const token = optString(body, 'token');
  if (!token) throw badRequest('InvalidRequest', 'Failed to deserialize the JSON body: missing field `token`');
  node.revokedTokens.add(token);
  return {};
}
