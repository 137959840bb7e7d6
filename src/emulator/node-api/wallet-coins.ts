/** A wallet's bitcoin: new wallets, balances, outputs, spending vanilla coins, addresses. */
import { hex, newAddress, outpoint } from './ids.js';
import { badRequest, insufficientFunds } from './errors.js';
import { DUST_SAT, type NodeState, type TxType, type Utxo, type Wallet, type WorldState } from './state.js';

export function newWallet(password: string, mnemonicText: string): Wallet {
  return {
    password,
    mnemonic: mnemonicText,
    utxos: [],
    allocations: [],
    transactions: [],
    transfers: [],
    assets: new Map(),
    payments: [],
    nextTransferIdx: 1,
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
export function addUtxo(
  w: Wallet,
  txid: string,
  vout: number,
  amount: number,
  opts: { colorable?: boolean; confirmed?: boolean; trusted?: boolean } = {},
): Utxo {
  const u: Utxo = {
    outpoint: outpoint(txid, vout),
    txid,
    btc_amount: amount,
    colorable: opts.colorable ?? false,
    confirmed: opts.confirmed ?? false,
    trusted: opts.trusted ?? true,
    spent: false,
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
export function spendVanilla(
  world: WorldState,
  w: Wallet,
  amount: number,
  feeRate: number,
  outputs: number,
  type: TxType,
): { txid: string; fee: number } {
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
  w.transactions.push({
    txid,
    transaction_type: type,
    sent: gathered,
    received: change >= DUST_SAT ? change : 0,
    fee: fee + (change < DUST_SAT ? change : 0),
  });
  world.broadcast(txid);
  return { txid, fee };
}

export function newNodeAddress(world: WorldState, node: NodeState): string {
  const address = newAddress(node.network);
  world.addresses.set(address, node.nodeId);
  return address;
}

export function requireNonDust(amount: number): void {
  if (amount < DUST_SAT) throw badRequest('OutputBelowDustLimit', 'Output below the dust limit');
}
