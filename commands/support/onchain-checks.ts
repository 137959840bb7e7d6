/**
 * What can be checked on-chain before a confirmation: a channel's size against the node's limits,
 * and a send against what the wallet can spend. Said before anything is confirmed (issue 26).
 */
import { formatSats } from '../../src/vocabulary/index.js';
import type { Refusal } from '../../src/engine/index.js';
import type { NodeApiClient } from '../../src/node-api/index.js';

/** A capacity outside the sizes the node opens (its nodeinfo's limits; an RGB channel has its own minimum). */
export async function capacityRefusal(api: NodeApiClient, name: string, capacity: number, rgb: boolean): Promise<Refusal | undefined> {
  const info = await api.nodeinfo().catch(() => undefined);
  const min = Number((rgb ? info?.rgb_channel_capacity_min_sat : undefined) ?? info?.channel_capacity_min_sat ?? 0);
  const max =
    info?.channel_capacity_max_sat !== undefined && info.channel_capacity_max_sat !== null
      ? Number(info.channel_capacity_max_sat)
      : undefined;
  if (capacity >= min && (max === undefined || capacity <= max)) return undefined;
  const range = `${formatSats(min)}${max !== undefined ? ` to ${formatSats(max)}` : ' or more'}`;
  return {
    reason: `${name} opens ${rgb ? 'RGB channels' : 'channels'} of ${range}; ${formatSats(capacity)} is ${capacity < min ? 'below' : 'above'} that.`,
    next: `Give a capacity in that range (\`node info ${name}\` shows the limits).`,
  };
}

/** More sats than the node's wallet can spend now (vanilla, spendable). */
export async function fundsRefusal(api: NodeApiClient, name: string, sats: number): Promise<Refusal | undefined> {
  const b = await api.btcbalance({ skip_sync: true }).catch(() => undefined);
  if (!b) return undefined;
  const spendable = Number(b.vanilla?.spendable ?? 0);
  if (sats <= spendable) return undefined;
  return {
    reason: `${name} can spend ${formatSats(spendable)} on-chain now, less than the ${formatSats(sats)} this needs (before the fee).`,
    next: `Fund it first: \`wallet address ${name}\`; see \`wallet balance ${name}\`.`,
  };
}
