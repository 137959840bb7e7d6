/**
 * 6887cbf's out-of-band RGB transfers (RLN 358f71b): an RGB invoice and a send with no transport
 * endpoints leave the consignment with the sender. The sender gets it (`/getconsignment`), the receiver
 * is given it (`/provideoutofbandconsignment`, multipart, any field but `media`) and waits for the
 * broadcast (WaitingBroadcast), and the sender is given the receiver's ACK (`/provideoutofbandack`), which
 * completes the batch (WaitingConfirmations). The emulator puts the transaction in the mempool at the send,
 * as it does for every send: a block mined before the ACK confirms it (RLN would wait for the ACK).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { badRequest } from './errors.js';
import { nowSec } from './ids.js';
import { type Ctx, reqString } from './input.js';
import type { Transfer, WorldState } from './state.js';

interface Held {
  senderId: string;
  receiverId: string;
  send: Transfer;
  incomingIdx: number;
  donation: boolean;
  deliver(status: 'WaitingBroadcast'): void;
  bytes: Buffer;
  delivered: boolean;
}

/** The consignments held by the senders of each world, by `asset_id txid`. */
const held = new WeakMap<WorldState, Map<string, Held>>();
const heldOf = (world: WorldState) => {
  let m = held.get(world);
  if (!m) held.set(world, (m = new Map<string, Held>()));
  return m;
};

/** A send with no transport endpoints: the receiver learns of it only when given its consignment. */
export function holdConsignment(world: WorldState, h: Omit<Held, 'bytes' | 'delivered'>): void {
  // Not a real consignment: "RGB" and a NUL, then bytes that only this emulator recognises.
  const bytes = Buffer.concat([Buffer.from('52474200', 'hex'), randomBytes(96)]);
  if (!h.donation) h.send.status = 'WaitingCounterparty';
  heldOf(world).set(`${h.send.asset_id} ${h.send.txid}`, { ...h, bytes, delivered: false });
}

export function getconsignment({ world, node, body }: Ctx) {
  const h = heldOf(world).get(`${reqString(body, 'asset_id')} ${reqString(body, 'txid')}`);
  if (!h || h.senderId !== node.nodeId) throw badRequest('ConsignmentNotFound', 'Consignment not found');
  return { bytes_hex: h.bytes.toString('hex') };
}

export function provideoutofbandconsignment({ world, node, body }: Ctx) {
  const file = body.file;
  if (!(file instanceof Uint8Array)) throw badRequest('ConsignmentFileNotProvided', 'Consignment file has not been provided');
  if (file.length === 0) throw badRequest('ConsignmentFileEmpty', 'Consignment file is empty');
  const h = [...heldOf(world).values()].find((x) => Buffer.from(file).equals(x.bytes));
  if (!h) throw badRequest('InvalidConsignment', 'Invalid consignment');
  if (h.receiverId !== node.nodeId)
    throw badRequest(
      'CannotProvideOutOfBandConsignment',
      'Cannot provide out-of-band consignment: no transfer of this wallet waits for it',
    );
  if (h.delivered) return { transfers: {} };
  h.delivered = true;
  h.deliver('WaitingBroadcast');
  return { transfers: { [String(h.incomingIdx)]: { updated_status: 'WaitingBroadcast', failure: null } } };
}

export function provideoutofbandack({ world, node, body }: Ctx) {
  const recipientId = reqString(body, 'recipient_id');
  const h = [...heldOf(world).values()].find((x) => x.senderId === node.nodeId && x.send.recipient_id === recipientId);
  if (!h || h.send.status !== 'WaitingCounterparty') {
    throw badRequest(
      'CannotProvideOutOfBandAck',
      `Cannot provide out-of-band ACK: ${h ? `the transfer is ${h.send.status}` : 'no transfer to this recipient waits for an ACK'}`,
    );
  }
  h.send.status = 'WaitingConfirmations';
  h.send.updated_at = nowSec();
  return { operation: { txid: h.send.txid, batch_transfer_idx: h.send.idx, entropy: randomInt(1, 2 ** 47) } };
}
