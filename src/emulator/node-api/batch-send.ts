/**
 * RGB sends: `/sendasset` (f379330, one recipient) and `/sendrgb` (6887cbf, a `recipient_map` of assets to
 * recipients, RLN 0a93462). Every recipient of one call goes in one transaction, as rgb-lib's batch
 * transfer does: one txid, one fee, the witness sats of every witness recipient; each recipient gets its
 * own Send transfer (so failing one side fails its counterpart), and an asset's spendable balance must
 * cover the sum sent of it.
 */
import { holdConsignment } from './out-of-band.js';
import { badRequest, failed, forbidden, insufficientAssets } from './errors.js';
import { nowSec } from './ids.js';
import { type Body, type Ctx, optBool, optFungible, optNumber, optStringArray, reqString, validFeeRate } from './input.js';
import { knownAsset } from './assets.js';
import { DEFAULT_PROXY, type NodeState, type Transfer, type WorldState } from './state.js';
import { addUtxo, spendVanilla } from './wallet-coins.js';
import { assetBalance, changeOutpoint, lockAllocations, newTransfer } from './allocations.js';

export interface OneSend {
  assetId: string;
  recipientId: string;
  amount: number | undefined;
  witnessData?: Body;
  endpoints: string[];
}

/** Checks every recipient, then sends to all of them in one transaction; `{ txid }`. */
export function sendBatch(
  world: WorldState,
  node: NodeState,
  sends: OneSend[],
  o: { feeRate: number; donation?: boolean },
): { txid: string } {
  if (sends.length === 0) throw badRequest('InvalidRecipientMap', 'The provided recipient map is invalid');
  if (new Set(sends.map((s) => s.recipientId)).size !== sends.length)
    throw badRequest('InvalidRecipientMap', 'The provided recipient map is invalid');
  const plans = sends.map((s) => {
    knownAsset(world, node, s.assetId);
    if (s.amount === undefined || s.amount <= 0)
      throw badRequest('InvalidAmount', 'Invalid amount: assignment must be Fungible with a positive value');
    const rec = world.recipients.get(s.recipientId);
    if (!rec) throw badRequest('InvalidRecipientID', 'Invalid recipient ID (the emulator delivers only to RGB invoices of its own nodes)');
    if (rec.nodeId === node.nodeId) throw badRequest('InvalidRecipientID', "Invalid recipient ID: it is one of this node's own invoices");
    if (rec.network !== node.network) throw badRequest('InvalidRecipientID', 'Invalid recipient ID: network mismatch');
    if (rec.asset_id && rec.asset_id !== s.assetId) throw badRequest('InvalidRecipientID', 'The invoice asks for a different asset');
    if (rec.witness && !s.witnessData) throw badRequest('InvalidRecipientData', 'A witness recipient needs witness_data');
    const receiver = world.nodes.get(rec.nodeId);
    const incoming = receiver?.wallet?.transfers.find((t) => t.idx === rec.transferIdx);
    if (!receiver?.wallet || !incoming) throw failed('Proxy', 'Proxy error: the recipient is gone');
    if (incoming.status !== 'WaitingCounterparty' || incoming.txid) throw forbidden('RecipientIDAlreadyUsed', 'Recipient ID already used');
    const witnessSat = rec.witness ? Number(s.witnessData?.amount_sat ?? 1000) : 0;
    return { ...s, amount: s.amount, rec, receiver, incoming, witnessSat };
  });
  const byAsset = new Map<string, number>();
  for (const p of plans) byAsset.set(p.assetId, (byAsset.get(p.assetId) ?? 0) + p.amount);
  for (const [assetId, total] of byAsset) {
    const { spendable } = assetBalance(world, node, assetId);
    if (spendable < total) throw insufficientAssets(spendable);
  }

  const w = node.wallet!;
  const witnessTotal = plans.reduce((a, p) => a + p.witnessSat, 0);
  const { txid } = spendVanilla(world, w, witnessTotal, o.feeRate, 1 + plans.filter((p) => p.rec.witness).length, 'RgbSend');
  let vout = 1;
  for (const p of plans) {
    const send: Transfer = newTransfer(w, {
      asset_id: p.assetId,
      status: 'WaitingConfirmations',
      kind: 'Send',
      requested: p.amount,
      assignments: [p.amount],
      txid,
      recipient_id: p.recipientId,
      endpoints: p.endpoints,
      counterpart: { nodeId: p.receiver.nodeId, idx: p.incoming.idx },
    });
    // An asset's inputs are locked once, for the sum sent of it, by its first transfer (which takes the change).
    const total = byAsset.get(p.assetId);
    if (total !== undefined) {
      byAsset.delete(p.assetId);
      const locked = lockAllocations(w, p.assetId, total, send.idx);
      if (locked > total) {
        send.change_utxo = changeOutpoint(w, send.idx);
        w.allocations.push({
          asset_id: p.assetId,
          outpoint: send.change_utxo,
          amount: locked - total,
          settled: false,
          pendingOf: send.idx,
        });
      }
    }
    const rw = p.receiver.wallet!;
    // What the receiver learns from the consignment: through the proxy at once, out of band when it is given.
    const deliver = (status: 'WaitingConfirmations' | 'WaitingBroadcast') => {
      let receiveUtxo = p.incoming.receive_utxo;
      if (p.rec.witness) receiveUtxo = addUtxo(rw, txid, vout++, p.witnessSat, { colorable: true, trusted: false }).outpoint;
      p.incoming.asset_id = p.assetId;
      p.incoming.status = status;
      p.incoming.txid = txid;
      p.incoming.receive_utxo = receiveUtxo;
      p.incoming.assignments = [p.amount];
      p.incoming.updated_at = nowSec();
      rw.allocations.push({ asset_id: p.assetId, outpoint: receiveUtxo!, amount: p.amount, settled: false, pendingOf: p.incoming.idx });
      if (!rw.assets.has(p.assetId)) rw.assets.set(p.assetId, nowSec());
      rw.transactions.push({ txid, transaction_type: 'User', received: p.witnessSat, sent: 0, fee: 0 });
    };
    if (node.api === '6887cbf' && p.endpoints.length === 0 && p.rec.endpoints.length === 0) {
      holdConsignment(world, {
        senderId: node.nodeId,
        receiverId: p.receiver.nodeId,
        send,
        incomingIdx: p.incoming.idx,
        donation: o.donation ?? false,
        deliver,
      });
    } else deliver('WaitingConfirmations');
  }
  return { txid };
}

/** f379330's `/sendasset`: one recipient of one asset (sent as a batch of one). */
export function sendasset({ world, node, body }: Ctx) {
  const send: OneSend = {
    assetId: reqString(body, 'asset_id'),
    recipientId: reqString(body, 'recipient_id'),
    amount: optFungible(body, 'assignment'),
    witnessData: body.witness_data as Body | undefined,
    endpoints: optStringArray(body, 'transport_endpoints') ?? [DEFAULT_PROXY],
  };
  return sendBatch(world, node, [send], {
    feeRate: validFeeRate(optNumber(body, 'fee_rate')),
    donation: optBool(body, 'donation') ?? false,
  });
}
