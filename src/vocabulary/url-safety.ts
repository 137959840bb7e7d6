/**
 * URLs that cannot reach inside: a webhook URL the hosting service will POST to, and the
 * escalation webhook and PagerDuty URLs the bot POSTs to, must not name a private, loopback,
 * link-local, shared (CGNAT) or cloud-metadata address, whether written as an address or as a
 * name that resolves to one. ALLOW_PRIVATE_URLS (a comma list of host names, addresses and CIDR
 * blocks, empty by default) is the one setting that lets some through.
 *
 * checkUrlTarget resolves the name when the URL is given (a webhook URL the service will use);
 * guardedLookup is a `lookup` for node:http(s) that checks the addresses a connection is about to
 * use, so a name that resolved to a public address when checked cannot turn private when used.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, BlockList } from 'node:net';

export interface AllowList {
  hosts: Set<string>;
  blocks: BlockList;
  /** As configured, for messages. */
  text: string;
}

/** Reads ALLOW_PRIVATE_URLS: `hooks.internal, 10.0.0.0/8, 192.168.1.5, fd00::/8`. Throws on a malformed CIDR. */
export function parseAllowList(text: string | undefined): AllowList {
  const hosts = new Set<string>();
  const blocks = new BlockList();
  for (const raw of (text ?? '').split(',')) {
    const item = raw
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '');
    if (!item) continue;
    const slash = item.indexOf('/');
    if (slash > 0) {
      const addr = item.slice(0, slash);
      const bits = Number(item.slice(slash + 1));
      const family = isIP(addr);
      if (!family || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128))
        throw new Error(`"${item}" is not a CIDR block (write 10.0.0.0/8 or fd00::/8)`);
      blocks.addSubnet(addr, bits, family === 4 ? 'ipv4' : 'ipv6');
    } else if (isIP(item)) {
      blocks.addAddress(item, isIP(item) === 4 ? 'ipv4' : 'ipv6');
      hosts.add(item);
    } else hosts.add(item.replace(/\.$/, ''));
  }
  return { hosts, blocks, text: (text ?? '').trim() };
}

export const EMPTY_ALLOW_LIST: AllowList = parseAllowList('');

const INSIDE = new BlockList();
const RANGES: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'a "this network" address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (where cloud metadata lives)'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'the unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];
for (const [a, bits, family] of RANGES) INSIDE.addSubnet(a, bits, family);

/** Why an address is inside (private, loopback…), or undefined for a public one. IPv4-mapped and NAT64 forms are read as IPv4. */
export function insideAddress(address: string): string | undefined {
  let a = address.toLowerCase().replace(/^\[|\]$/g, '');
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) a = mapped[1];
  // The same written in hex, as URL parsing writes it: ::ffff:7f00:1 is 127.0.0.1.
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    a = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  const family = isIP(a);
  if (!family) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!INSIDE.check(a, type)) return undefined;
  for (const [net, bits, fam, why] of RANGES) {
    if (fam !== type) continue;
    const one = new BlockList();
    one.addSubnet(net, bits, fam);
    if (one.check(a, type)) return why;
  }
  return 'a private address';
}

/** Names that always mean this machine or a cloud's metadata service, whatever the resolver says. */
const INSIDE_NAMES = /^(?:localhost|.*\.localhost|metadata|metadata\.google\.internal|instance-data|.*\.internal|.*\.local)$/i;

function allowed(allow: AllowList, host: string, address?: string): boolean {
  if (allow.hosts.has(host.toLowerCase())) return true;
  if (address && isIP(address)) return allow.blocks.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
  return false;
}

export type Lookup = (host: string) => Promise<string[]>;

const systemLookup: Lookup = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) => (err ? reject(err) : resolve(addresses.map((x) => x.address)))),
  );

/**
 * Why the URL may not be used (it names or resolves to an inside address, or it does not
 * resolve), or undefined. `what` names it in the reason ("webhook URL").
 */
export async function checkUrlTarget(
  url: string,
  allow: AllowList,
  o: { what?: string; lookup?: Lookup } = {},
): Promise<string | undefined> {
  const what = o.what ?? 'the URL';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${what} is not a URL`;
  }
  const host = u.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const hint = 'If it must reach a private address, an admin can list it in ALLOW_PRIVATE_URLS (hosts or CIDR blocks).';
  if (isIP(host)) {
    const why = insideAddress(host);
    return why && !allowed(allow, host, host) ? `${what} names ${why} (${host}). ${hint}` : undefined;
  }
  if (INSIDE_NAMES.test(host) && !allowed(allow, host)) return `${what} names a host inside this network (${host}). ${hint}`;
  let addresses: string[];
  try {
    addresses = await (o.lookup ?? systemLookup)(host);
  } catch (e) {
    return `${what}'s host ${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? 'lookup failed'}).`;
  }
  for (const a of addresses) {
    const why = insideAddress(a);
    if (why && !allowed(allow, host, a)) return `${what}'s host ${host} resolves to ${why} (${a}). ${hint}`;
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s).request that refuses to connect to an inside address unless the
 * allow list names the host or the address: checked when the connection is made.
 */
export function guardedLookup(allow: AllowList) {
  return (host: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options;
    dnsLookup(host, { ...opts, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, opts.all ? [] : '', 0);
      const bad = addresses.find((a) => insideAddress(a.address) && !allowed(allow, host, a.address));
      if (bad) {
        const e = Object.assign(
          new Error(`${host} resolves to ${insideAddress(bad.address)} (${bad.address}), which ALLOW_PRIVATE_URLS does not allow`),
          { code: 'EPRIVATEADDRESS' },
        );
        return callback(e, opts.all ? [] : '', 0);
      }
      if (opts.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
