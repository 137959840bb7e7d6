/**
 * The two generations of the RLN node API, learnt per node and per capability (not from a version string).
 *
 * RLN's breaking changes landed one by one between February and August 2026, so an image in between can
 * speak some `f379330` shapes and some `6887cbf` shapes. For each endpoint whose request changed, the
 * client keeps which shape the node takes. It learns it from the node's image where the service gives one
 * (a known `rln_commit_id`), else from the node's own answers: a 404 on a path one generation lacks, or a
 * refusal that names the missing field of the other shape. It forgets what it learnt when the node's image
 * changes (an upgrade) and when the node answers locked (a restart, which the service follows with a locked
 * node too).
 *
 * What changed, with RLN's commits (`git log f379330..6887cbf -- openapi.yaml` upstream):
 * - send: `/sendasset` is gone; `/sendrgb` takes a `recipient_map` (0a93462).
 * - unlock: `ldk_chain_sync` replaces the top-level `bitcoind_rpc_*` fields; `indexer_url` and
 *   `announce_addresses` are required; `proxy_endpoint` is gone (45d951b, 284106c).
 * - rgbinvoice: `expiration_timestamp` replaces `duration_seconds`; `transport_endpoints` is required (244f44c).
 * - listtransfers: `asset_filter` replaces `asset_id` (9354d7e).
 * - sync: requires `options { keychain, strategy }` (bf0a18e).
 * - refreshtransfers: requires a `filter` and answers what changed per transfer (358f71b).
 * - listunspents: requires `settled_only` (its document lists it from 6887cbf on).
 * `/checkproxyendpoint` is not among them: the f379330 document says `proxy_url`, but the node at f379330
 * already read `proxy_endpoint` (the document was corrected in de0ffac), so one body fits both.
 */

/** A generation of the node API, named after the RLN commit of its OpenAPI document. */
export type ApiShape = 'f379330' | '6887cbf';
export const API_SHAPES: readonly ApiShape[] = ['f379330', '6887cbf'];
export const otherShape = (s: ApiShape): ApiShape => (s === 'f379330' ? '6887cbf' : 'f379330');

/** The endpoints whose request differs between the generations; each is learnt on its own. */
const CHANGED = ['send', 'unlock', 'rgbinvoice', 'listtransfers', 'sync', 'refreshtransfers', 'listunspents'] as const;

/**
 * Endpoints that only later images have, grouped by the RLN commit that added them: a node takes the
 * `6887cbf` "shape" of such a capability when it has them, `f379330` when it answers 404. Each is learnt
 * on its own, since the commits landed months apart. Commands that need one refuse on a node without it
 * and offer the upgrade (commands/support/needs-capability.ts).
 */
export const ADDED = {
  /** Inflatable fungible assets: `/issueassetifa`, `/inflate` (bfeb557, 2026-03-22). */
  ifa: { paths: ['/issueassetifa', '/inflate'], since: 'bfeb557' },
  /** Decoding a swap string: `/decodeswapstring` (8694898, 2026-05-19). */
  swapstring: { paths: ['/decodeswapstring'], since: '8694898' },
  /** Out-of-band transfers: `/getconsignment`, `/provideoutofbandconsignment`, `/provideoutofbandack` (358f71b, 2026-07-19). */
  outofband: { paths: ['/getconsignment', '/provideoutofbandconsignment', '/provideoutofbandack'], since: '358f71b' },
} as const satisfies Record<string, { paths: readonly string[]; since: string }>;
export type AddedCapability = keyof typeof ADDED;
export const isAdded = (cap: Capability): cap is AddedCapability => cap in ADDED;

export const CAPABILITIES = [...CHANGED, ...(Object.keys(ADDED) as AddedCapability[])] as const;
export type Capability = (typeof CHANGED)[number] | AddedCapability;

/** RLN commits whose API is known: every capability takes that commit's shape. */
const KNOWN_COMMITS: ReadonlyArray<readonly [string, ApiShape]> = [
  ['f37933079be958908ebc7b24c604bd5558d24865', 'f379330'],
  // 75f9ac5 (2026-02-02): the last image before the first breaking change; same API as f379330.
  ['75f9ac50b0ec5c595fa3dcab34f91eb7e5f74d35', 'f379330'],
  ['6887cbf95eaa0208a42ff73b41bd4b3959655bf4', '6887cbf'],
];

/** The API generation of an image, from its RLN commit (7 hex digits or more); undefined when not known. */
export function shapeOfCommit(commit: string | undefined): ApiShape | undefined {
  const c = commit?.trim().toLowerCase();
  if (!c || !/^[0-9a-f]{7,40}$/.test(c)) return undefined;
  return KNOWN_COMMITS.find(([full]) => full.startsWith(c))?.[1];
}

/** What the client remembers of one node: the image it was learnt on, and a shape per capability. */
export class NodeShapes {
  private readonly known = new Map<Capability, ApiShape>();
  private image?: string;

  /** The node's image as the service gives it: a different image forgets everything learnt. */
  seenImage(image: string | undefined): void {
    if (image === undefined || image === this.image) return;
    if (this.image !== undefined) this.known.clear();
    this.image = image;
  }

  /** The shape of a capability: learnt, else the image's, else undefined (to be learnt from the node). */
  get(cap: Capability): ApiShape | undefined {
    return this.known.get(cap) ?? shapeOfCommit(this.image);
  }

  /** The generation the node's image says (a known RLN commit), whatever was learnt since. */
  imageShape(): ApiShape | undefined {
    return shapeOfCommit(this.image);
  }

  set(cap: Capability, shape: ApiShape): void {
    this.known.set(cap, shape);
  }

  /** After a restart or an upgrade: learn again. The image stays (it is the service's word). */
  forget(): void {
    this.known.clear();
  }

  /** What is known now, for a diagnostic or a test. */
  snapshot(): Partial<Record<Capability, ApiShape>> {
    const out: Partial<Record<Capability, ApiShape>> = {};
    for (const c of CAPABILITIES) {
      const s = this.get(c);
      if (s) out[c] = s;
    }
    return out;
  }
}

/** One memory for the whole process: the shapes of every node, by node id. */
export class ApiShapes {
  private readonly nodes = new Map<string, NodeShapes>();

  /** The node's memory; `image` is its RLN commit (or image version) as the service gives it. */
  of(nodeId: string, image?: string): NodeShapes {
    let n = this.nodes.get(nodeId);
    if (!n) {
      if (this.nodes.size > 10_000) this.nodes.clear();
      this.nodes.set(nodeId, (n = new NodeShapes()));
    }
    n.seenImage(image);
    return n;
  }

  /** Forgets a node's shapes (it was upgraded, restarted or destroyed). */
  forget(nodeId: string): void {
    this.nodes.get(nodeId)?.forget();
  }
}

/** The image of a node as the service describes it: `rln_commit_id`, else `imageVersion`. */
export function imageOfNode(node: Record<string, unknown>): string | undefined {
  for (const key of ['rln_commit_id', 'rlnCommitId', 'imageVersion']) {
    const v = node[key];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

/** The field a node's refusal names as missing (`missing field \`x\``), if it does. */
export function missingField(text: string | undefined): string | undefined {
  return text ? /missing field `([A-Za-z0-9_]+)`/.exec(text)?.[1] : undefined;
}

/**
 * How a node's answer to a body of `tried` shape tells its shape. A body refused for a field only the
 * other shape has, or a path one generation lacks (404): the other shape. Else nothing is learnt.
 */
const OTHER_SHAPE_FIELDS: Record<Capability, Record<ApiShape, string[]>> = {
  send: { f379330: [], '6887cbf': [] },
  unlock: {
    f379330: ['bitcoind_rpc_username', 'bitcoind_rpc_password', 'bitcoind_rpc_host', 'bitcoind_rpc_port'],
    '6887cbf': ['ldk_chain_sync', 'indexer_url', 'announce_addresses'],
  },
  rgbinvoice: { f379330: ['min_confirmations', 'witness'], '6887cbf': ['expiration_timestamp', 'transport_endpoints'] },
  listtransfers: { f379330: ['asset_id'], '6887cbf': ['asset_filter'] },
  sync: { f379330: [], '6887cbf': ['options'] },
  refreshtransfers: { f379330: ['skip_sync'], '6887cbf': ['filter'] },
  listunspents: { f379330: ['skip_sync'], '6887cbf': ['settled_only'] },
  ifa: { f379330: [], '6887cbf': [] },
  swapstring: { f379330: [], '6887cbf': [] },
  outofband: { f379330: [], '6887cbf': [] },
};

/** The shape a refusal points to, given the shape of the body that was refused. */
export function shapeFromRefusal(
  cap: Capability,
  tried: ApiShape,
  status: number | undefined,
  text: string | undefined,
): ApiShape | undefined {
  if (status === 404 && cap === 'send') return otherShape(tried);
  if (status === 404 && isAdded(cap)) return 'f379330';
  if (status !== 400 && status !== 422) return undefined;
  const field = missingField(text);
  if (!field) return undefined;
  const other = otherShape(tried);
  return OTHER_SHAPE_FIELDS[cap][other].includes(field) ? other : undefined;
}

/**
 * A request that tells the generation of a capability without doing anything: each is refused before
 * the node acts (RLN reads the body before it looks at the wallet), except `/sync` on f379330, which
 * takes no body and syncs the wallet (harmless).
 */
export const PROBES: Record<Capability, { path: string; body: Record<string, unknown> }> = {
  send: { path: '/sendrgb', body: {} },
  unlock: { path: '/unlock', body: { password: '' } },
  rgbinvoice: { path: '/rgbinvoice', body: {} },
  listtransfers: { path: '/listtransfers', body: {} },
  sync: { path: '/sync', body: {} },
  refreshtransfers: { path: '/refreshtransfers', body: {} },
  listunspents: { path: '/listunspents', body: {} },
  // An added endpoint: RLN refuses an empty body before acting (no field it needs), or answers 404 without it.
  ifa: { path: ADDED.ifa.paths[0], body: {} },
  swapstring: { path: ADDED.swapstring.paths[0], body: {} },
  outofband: { path: ADDED.outofband.paths[0], body: {} },
};

/** The shape a probe's answer shows, or undefined when it shows none (an error of another kind). */
export function shapeFromProbe(cap: Capability, status: number, text: string | undefined): ApiShape | undefined {
  if (cap === 'send') return status === 404 ? 'f379330' : status === 400 || status === 422 ? '6887cbf' : undefined;
  // An added endpoint that the node routes: it read the body (refused it, or refused the wallet's state).
  if (isAdded(cap)) return status === 404 ? 'f379330' : [400, 403, 422].includes(status) ? '6887cbf' : undefined;
  // f379330 reads these bodies whole (its /sync takes none; its /unlock leaves the bitcoind fields to the
  // service in front of it): the node went on to act, or to refuse for the wallet's state or the password.
  if (cap === 'sync' && (status === 200 || (status === 403 && /LockedNode|NotInitialized/.test(text ?? '')))) return 'f379330';
  if (cap === 'unlock' && (status === 401 || status === 403)) return 'f379330';
  const field = missingField(text);
  if (!field) return undefined;
  for (const shape of API_SHAPES) if (OTHER_SHAPE_FIELDS[cap][shape].includes(field)) return shape;
  return undefined;
}
