/** Small presentation helpers shared by the node-operation commands. */
import {
  formatDuration,
  formatSats,
  msatToSat,
  msg,
  thousands,
  type Amount,
  type Block,
  type Field,
  type Message,
} from '../../src/vocabulary/index.js';
import type { HostedNode } from '../../src/hosting/index.js';

/** `Wallet balance · alice` */
export function titled(title: string, node?: Pick<HostedNode, 'name'>): string {
  return node ? `${title} · ${node.name}` : title;
}

/** What a command learnt of a node, as its reply: `Fee estimate · alice`, the facts, and what follows them. */
export function nodeFacts(
  node: Pick<HostedNode, 'name'>,
  title: string,
  fields: Field[],
  o: { tone?: Message['tone']; after?: Block[] } = {},
): Message {
  return { header: titled(title, node), tone: o.tone ?? 'info', blocks: [msg.fields(fields), ...(o.after ?? [])] };
}

export function yesNo(v: boolean | undefined | null): string {
  return v === undefined || v === null ? '—' : v ? 'yes' : 'no';
}

/** Unix seconds, an ISO string or a Date to "2026-11-22 11:02 UTC" (the one formatTime, in the vocabulary). */
export { formatTime } from '../../src/vocabulary/index.js';

/** The RLN error name of a NodeApiError (duck-typed so this file needs no client import). */
export function rlnNameOf(err: unknown): string | undefined {
  if (err && typeof err === 'object' && typeof (err as { rlnName?: unknown }).rlnName === 'string') {
    return (err as { rlnName: string }).rlnName;
  }
  return undefined;
}

/** Turns `undefined` fields away so a request body carries only what was given. */
export function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** The command's arguments as a request body: without the `node` argument, and without what was not given. */
export function bodyOf<T extends { node: unknown }>(args: T): Omit<T, 'node'> {
  const { node: _n, ...body } = args;
  return compact(body);
}

/** `txid:vout` shortened so outputs of one transaction stay apart: `5821d5105bab…:3`. */
export function shortOutpoint(outpoint: string, keep = 12): string {
  const m = /^([0-9a-fA-F]+):(\d+)$/.exec(outpoint);
  if (!m) return outpoint.length > keep + 1 ? `${outpoint.slice(0, keep)}…` : outpoint;
  const [, txid, vout] = m;
  return `${txid.length > keep + 1 ? `${txid.slice(0, keep)}…` : txid}:${vout}`;
}

/** Where other Lightning nodes reach this one (`host:port`), from the service's `peerDNS`/`peerPort`. */
export function peerAddressOf(node: HostedNode): string | undefined {
  const host = typeof node.peerDNS === 'string' && node.peerDNS ? node.peerDNS : undefined;
  const port =
    typeof node.peerPort === 'number' || (typeof node.peerPort === 'string' && /^\d+$/.test(node.peerPort))
      ? String(node.peerPort)
      : undefined;
  return host && port ? `${host}:${port}` : undefined;
}

/** Seconds as a person reads them: `1h`, `1d`, `1h 30m` (never `3,600 s`). */
export function formatSeconds(sec: number): string {
  return formatDuration(sec * 1000).replace(/ 0[smh]$/, '');
}

/** Millisats as sats, keeping the exact msat when they differ: `3,000 sats (3,000,000 msat)`. */
export function formatMsat(msat: Amount): string {
  const m = BigInt(msat);
  return m % 1000n === 0n ? `${formatSats(msatToSat(m))} (${thousands(m)} msat)` : `${thousands(m)} msat`;
}
