/** RGB allocations of a wallet: asset balances, free colored UTXOs, locking, settling and reverting transfers. */
import { nowSec } from './ids.js';
import { noAvailableUtxos } from './errors.js';
import { MAX_ALLOCATIONS_PER_UTXO, type NodeState, type Transfer, type Utxo, type Wallet, type WorldState } from './state.js';

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
  for (const a of w.allocations)
    if (a.pendingOf === transferIdx) {
      a.settled = true;
      a.pendingOf = undefined;
    }
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
