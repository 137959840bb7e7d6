/**
 * activityItems(node, events, context) → what to queue for each change the poller saw: a
 * neutral Message (payment received/sent/failed, channel opened/usable/closed, transfer
 * settled/failed, deposit confirmed, a liquidity crossing, a node that came back locked with an
 * Unlock button), the kind a watch chooses to hear it by, the amount for `min_amount`, and a
 * dedupe key that is the same when the same change is seen again (see the poller's header).
 * Pure.
 */
import { formatSats, msatToSat, shortId, thousands, withPrecision } from '../vocabulary/index.js';
import { msg, type Field, type Message, type Tone } from '../vocabulary/index.js';
import type { PublishContext } from './create-activity-poller.js';
import type { ActivityEvent, AssetInfo, ChannelState, Condition } from './types.js';

export interface ActivityItemOut {
  dedupeKey: string;
  kind: string;
  type: string;
  amountMsat?: number;
  message: Message;
  /** What the daily digest adds up, stored with the event: a payment's amounts and its asset. */
  facts?: ActivityFacts;
}

/** Amounts as exact decimal strings: msat, and the asset's raw units with its precision and label. */
export type ActivityFacts = {
  amtMsat?: string;
  assetId?: string;
  assetAmount?: string;
  assetLabel?: string;
  precision?: number;
};

type Ctx = Pick<PublishContext, 'since' | 'snapshot' | 'nameOf'>;

/** What the event is about (channel id, payment hash, …): with the node, the type and `since`, its dedupe key. */
function subjectOf(e: ActivityEvent): string {
  if (e.type === 'condition') return `${e.condition.key}:${e.recovered ? 'end' : 'begin'}`;
  switch (e.kind) {
    case 'channels':
      return e.channel.id;
    case 'payments':
      return `${e.payment.hash}:${e.payment.inbound ? 'in' : 'out'}`;
    case 'transfers':
      return e.transfer.key;
    case 'deposits':
      return e.deposit.txid;
    case 'liquidity':
      return e.type === 'channel_share' ? `${e.channel.id}:${e.band}` : e.type;
    case 'lock':
      return e.type;
  }
}

export function activityEventKey(nodeId: string, e: ActivityEvent, since: number): string {
  return `activity:${nodeId}:${since}:${e.type}:${subjectOf(e)}`;
}

function assetAmount(raw: string | undefined, assetId: string | undefined, assets: AssetInfo[] | undefined): string | undefined {
  if (raw === undefined || !assetId) return undefined;
  const a = assets?.find((x) => x.id === assetId);
  return a
    ? `${withPrecision(BigInt(raw), a.precision)} ${a.ticker ?? a.name ?? shortId(assetId, 14)}`
    : `${thousands(BigInt(raw))} raw of ${shortId(assetId, 14)}`;
}

const sats = (msat: string | undefined): string | undefined => (msat === undefined ? undefined : formatSats(msatToSat(BigInt(msat))));

function peerName(c: ChannelState, ctx: Ctx): string {
  return ctx.nameOf(c.peerPubkey) ?? shortId(c.peerPubkey, 16);
}

function channelFields(c: ChannelState, ctx: Ctx): Field[] {
  const fields: Field[] = [
    { label: 'Peer', value: peerName(c, ctx), inline: true },
    { label: 'Capacity', value: formatSats(BigInt(c.capacitySat)), inline: true },
    { label: 'Local / remote', value: `${sats(c.localMsat)} / ${sats(c.remoteMsat)}`, inline: true },
  ];
  const local = assetAmount(c.assetLocal, c.assetId, ctx.snapshot.assets);
  const remote = assetAmount(c.assetRemote, c.assetId, ctx.snapshot.assets);
  if (local || remote) fields.push({ label: 'Asset local / remote', value: `${local ?? '0'} / ${remote ?? '0'}`, inline: true });
  return fields;
}

function message(header: string, tone: Tone, fields: Field[], nodeId: string, note?: string): Message {
  return {
    header,
    tone,
    summary: header,
    blocks: [msg.fields(fields), msg.context([...(note ? [`${note} `] : []), { code: nodeId }])],
  };
}

function render(node: { nodeId: string; name: string }, e: ActivityEvent, ctx: Ctx): Message {
  const n = node.name;
  if (e.type === 'condition') return renderCondition(node, e.condition, e.recovered);
  switch (e.kind) {
    case 'payments': {
      const p = e.payment;
      const what = { payment_received: 'payment received', payment_sent: 'payment sent', payment_failed: 'payment failed' }[e.type];
      const tone: Tone = e.type === 'payment_failed' ? 'danger' : e.type === 'payment_received' ? 'success' : 'info';
      const asset = assetAmount(p.assetAmount, p.assetId, ctx.snapshot.assets);
      const amount = [asset, sats(p.amtMsat)].filter(Boolean).join(' + ') || 'unknown amount';
      return message(
        `${n}: ${what}, ${amount}`,
        tone,
        [
          { label: 'Node', value: n, inline: true },
          { label: 'Amount', value: amount, inline: true },
          { label: 'Payment hash', value: shortId(p.hash, 16), inline: true },
        ],
        node.nodeId,
      );
    }
    case 'channels': {
      const what = { channel_opened: 'channel opened', channel_usable: 'channel usable', channel_closed: 'channel closed' }[e.type];
      const tone: Tone = e.type === 'channel_closed' ? 'warning' : e.type === 'channel_usable' ? 'success' : 'info';
      const note =
        e.type === 'channel_closed'
          ? "The channel is gone from the node's list (closed cooperatively or by force, by us or the peer); its funds return on-chain."
          : undefined;
      return message(`${n}: ${what} with ${peerName(e.channel, ctx)}`, tone, channelFields(e.channel, ctx), node.nodeId, note);
    }
    case 'transfers': {
      const t = e.transfer;
      const settled = e.type === 'transfer_settled';
      const amount = assetAmount(t.amount, t.assetId, ctx.snapshot.assets) ?? 'unknown amount';
      // The reason the node gave when the poller refreshed it (6887cbf answers it; f379330 does not).
      const why = settled ? undefined : ctx.snapshot.transferFailures?.[String(t.idx)];
      return message(
        `${n}: RGB transfer ${settled ? 'settled' : 'failed'}, ${amount}${why ? ` (${why})` : ''}`,
        settled ? 'success' : 'danger',
        [
          { label: 'Node', value: n, inline: true },
          { label: 'Amount', value: amount, inline: true },
          { label: 'Kind', value: t.kind, inline: true },
          ...(why ? [{ label: 'The node says', value: why }] : []),
        ],
        node.nodeId,
      );
    }
    case 'deposits':
      return message(
        `${n}: deposit confirmed, ${formatSats(BigInt(e.deposit.receivedSat))}`,
        'success',
        [
          { label: 'Node', value: n, inline: true },
          { label: 'Amount', value: formatSats(BigInt(e.deposit.receivedSat)), inline: true },
          { label: 'Transaction', value: shortId(e.deposit.txid, 16), inline: true },
        ],
        node.nodeId,
      );
    case 'liquidity': {
      if (e.type === 'channel_share') {
        const pct = `${Math.round(e.share * 100)}%`;
        const what = e.band === 'ok' ? `back to ${pct} local` : `${e.band} local liquidity (${pct} local)`;
        return message(
          `${n}: channel with ${peerName(e.channel, ctx)} is ${what}`,
          e.band === 'ok' ? 'success' : 'warning',
          channelFields(e.channel, ctx),
          node.nodeId,
        );
      }
      const [side, state] = e.type.split('_') as ['inbound' | 'outbound', 'low' | 'recovered'];
      const header = `${n}: total ${side} liquidity ${state === 'low' ? `below ${formatSats(e.floorSat)}` : 'recovered'}`;
      return message(
        header,
        state === 'low' ? 'warning' : 'success',
        [
          { label: `Total ${side}`, value: formatSats(e.totalSat), inline: true },
          { label: 'Floor', value: formatSats(e.floorSat), inline: true },
        ],
        node.nodeId,
      );
    }
    case 'lock':
      if (e.type === 'node_unlocked')
        return message(`${n} is unlocked`, 'success', [{ label: 'Node', value: n, inline: true }], node.nodeId);
      {
        // Found locked when its watch began: since when is not known, only that it is.
        const what = e.type === 'node_found_locked' ? `${n} is LOCKED` : `${n} restarted and is LOCKED`;
        return {
          header: what,
          tone: 'danger',
          summary: `${what}: it cannot pay or be paid until it is unlocked`,
          blocks: [
            msg.text([
              `${n} cannot pay or be paid until someone unlocks it. `,
              { bold: `Unlock ${n}` },
              ' opens a private dialog for its password.',
            ]),
            msg.context([{ code: node.nodeId }]),
          ],
          // Named: several nodes' alerts may share one message (render-notifications.ts's activityMessage).
          buttons: [{ label: `Unlock ${n}`, style: 'primary', command: 'node unlock', args: { node: node.nodeId } }],
        };
      }
  }
}

/** A watch kind's condition: its facts and buttons when it begins, one line when it ends. */
function renderCondition(node: { nodeId: string; name: string }, c: Condition, recovered: boolean): Message {
  const n = node.name;
  if (recovered) {
    return message(`${n}: ${c.recovered}`, 'success', [{ label: 'Node', value: n, inline: true }], node.nodeId, `Recovered (${c.kind}).`);
  }
  return {
    ...message(
      `${n}: ${c.title}`,
      c.kind === 'liveness' ? 'danger' : 'warning',
      [{ label: 'Node', value: n, inline: true }, ...c.facts.map((f) => ({ ...f, inline: true }))],
      node.nodeId,
      `Watched with kinds=${c.kind}; told once, and again when it recovers.`,
    ),
    buttons: c.actions.map((a) => ({ label: a.label, style: a.style, command: a.command, args: { node: node.nodeId, ...a.args } })),
  };
}

/** The amount in msat, for a watch's `min_amount` (payments that move bitcoin). */
function amountMsatOf(e: ActivityEvent): number | undefined {
  return e.kind === 'payments' && e.payment.amtMsat !== undefined ? Number(e.payment.amtMsat) : undefined;
}

/** A payment's amounts for the digest; nothing for other events. */
function factsOf(e: ActivityEvent, ctx: Ctx): ActivityFacts | undefined {
  if (e.kind !== 'payments') return undefined;
  const p = e.payment;
  const a = p.assetId ? ctx.snapshot.assets?.find((x) => x.id === p.assetId) : undefined;
  const facts: ActivityFacts = {};
  if (p.amtMsat !== undefined) facts.amtMsat = p.amtMsat;
  if (p.assetId && p.assetAmount !== undefined) {
    facts.assetId = p.assetId;
    facts.assetAmount = p.assetAmount;
    if (a) {
      facts.assetLabel = a.ticker ?? a.name ?? shortId(p.assetId, 14);
      facts.precision = a.precision;
    }
  }
  return facts;
}

export function activityItems(node: { nodeId: string; name: string }, events: ActivityEvent[], ctx: Ctx): ActivityItemOut[] {
  return events.map((e) => ({
    dedupeKey: activityEventKey(node.nodeId, e, ctx.since),
    kind: e.kind,
    type: e.type,
    amountMsat: amountMsatOf(e),
    message: render(node, e, ctx),
    facts: factsOf(e, ctx),
  }));
}
