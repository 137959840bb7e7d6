import { badRequest } from './errors.js';
import { sha256 } from './ids.js';
import { type Ctx, optBool, optInt, optNumber, reqInt, reqString, validFeeRate } from './input.js';
import { DUST_SAT } from './state.js';
import { addUtxo, btcBalances, newNodeAddress, requireNonDust, spendVanilla } from './wallet-coins.js';

/** 2^53 + 1: added to balances when a node is set to answer large amounts, so they need lossless parsing. */
export const LARGE_AMOUNT_OFFSET = 2n ** 53n + 1n;

export function address({ world, node }: Ctx) {
  return { address: newNodeAddress(world, node) };
}

export function btcbalance({ node }: Ctx) {
  const b = btcBalances(node.wallet!);
  if (!node.largeAmounts) return b;
  const big = (v: { settled: number; future: number; spendable: number }) => ({
    settled: BigInt(v.settled) + LARGE_AMOUNT_OFFSET,
    future: BigInt(v.future) + LARGE_AMOUNT_OFFSET,
    spendable: BigInt(v.spendable) + LARGE_AMOUNT_OFFSET,
  });
  return { vanilla: big(b.vanilla), colored: b.colored };
}

export function listunspents({ node }: Ctx) {
  const w = node.wallet!;
  return {
    unspents: w.utxos
      .filter((u) => !u.spent)
      .map((u) => ({
        utxo: { outpoint: u.outpoint, btc_amount: u.btc_amount, colorable: u.colorable },
        rgb_allocations: w.allocations
          .filter((a) => a.outpoint === u.outpoint && a.lockedBy === undefined)
          .map((a) => ({ asset_id: a.asset_id, assignment: { type: 'Fungible', value: a.amount }, settled: a.settled })),
      })),
  };
}

export function createutxos({ world, node, body }: Ctx) {
  const upTo = optBool(body, 'up_to') ?? false;
  const num = optInt(body, 'num') ?? 5;
  const size = optInt(body, 'size') ?? 32_500;
  const feeRate = validFeeRate(optNumber(body, 'fee_rate'));
  if (num < 1) throw badRequest('InvalidAmount', 'Invalid amount: num must be at least 1');
  requireNonDust(size);
  const w = node.wallet!;
  const existing = w.utxos.filter((u) => !u.spent && u.colorable).length;
  const count = upTo ? num - existing : num;
  if (count <= 0) throw badRequest('AllocationsAlreadyAvailable', `Already have ${existing} colored UTXOs (up_to: ${num})`);
  const { txid } = spendVanilla(world, w, count * size, feeRate, count, 'CreateUtxos');
  for (let i = 0; i < count; i++) addUtxo(w, txid, i, size, { colorable: true, trusted: true });
  return {};
}

export function sendbtc({ world, node, body }: Ctx) {
  const amount = reqInt(body, 'amount');
  const to = reqString(body, 'address');
  const feeRate = validFeeRate(optNumber(body, 'fee_rate'));
  if (!/^(bc|tb|bcrt)1[0-9a-z]{20,}$/.test(to)) throw badRequest('InvalidAddress', `Invalid address: ${to}`);
  requireNonDust(amount);
  const { txid } = spendVanilla(world, node.wallet!, amount, feeRate, 1, 'User');
  const receiver = world.nodes.get(world.addresses.get(to) ?? '');
  if (receiver?.wallet) {
    addUtxo(receiver.wallet, txid, 1, amount, { trusted: false });
    receiver.wallet.transactions.push({ txid, transaction_type: 'User', received: amount, sent: 0, fee: 0 });
  }
  return { txid };
}

export function listtransactions({ node }: Ctx) {
  return {
    transactions: node.wallet!.transactions.map((t) => ({
      // 6887cbf splits f379330's User into SendBtc (ours) and Incoming.
      transaction_type:
        node.api === '6887cbf' && t.transaction_type === 'User' ? (t.sent > 0 ? 'SendBtc' : 'Incoming') : t.transaction_type,
      txid: t.txid,
      received: t.received,
      sent: t.sent,
      fee: t.fee,
      ...(t.height !== undefined ? { confirmation_time: { height: t.height, timestamp: t.timestamp } } : {}),
    })),
  };
}

export function estimatefee({ body }: Ctx) {
  const blocks = optInt(body, 'blocks') ?? 6;
  if (blocks < 1) throw badRequest('InvalidAmount', 'Invalid amount: blocks must be at least 1');
  return { fee_rate: Math.max(1, Math.round(200 / (blocks + 1)) / 10) };
}

export function signmessage({ node, body }: Ctx) {
  const message = reqString(body, 'message');
  return { signed_message: `d${sha256(`${node.pubkey}:${node.wallet!.mnemonic}:${message}`)}` };
}

export { DUST_SAT };
