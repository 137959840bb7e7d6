import { RlnError, badRequest, failed, lockedNode, notFound, notInitialized } from './errors.js';
import { bitcoinNetwork } from './ids.js';
import type { Body, Ctx, Handler } from './input.js';
import { WorldState, type NodeState } from './state.js';
import * as lifecycle from './lifecycle.js';
import * as wallet from './wallet.js';
import * as assets from './assets.js';
import * as sends from './batch-send.js';
import * as invoices from './invoices.js';
import * as payments from './payments.js';
import * as channels from './channels.js';
import * as peers from './peers.js';
import * as swaps from './swaps.js';
import { type ApiGeneration, checkRequired, NO_WALLET_6887CBF, ONLY_6887CBF, ROUTES_6887CBF, STATELESS_6887CBF } from './generations.js';
import { injectFault, type NodeFault } from './faults.js';

/** What a call needs from the node's state: nothing, or an unlocked wallet (most calls, as in RLN). */
type Needs = 'none' | 'unlocked';

interface Route {
  method: 'GET' | 'POST';
  needs: Needs;
  handler: Handler;
}

const post = (handler: Handler, needs: Needs = 'unlocked'): Route => ({ method: 'POST', needs, handler });
const get = (handler: Handler): Route => ({ method: 'GET', needs: 'unlocked', handler });

/** Every endpoint of the RLN OpenAPI document of f379330, with its method (6887cbf's differences: generations.ts). */
export const ROUTES: Record<string, Route> = {
  // lifecycle
  init: post(lifecycle.init, 'none'),
  unlock: post(lifecycle.unlock, 'none'),
  lock: post(lifecycle.lock, 'none'),
  changepassword: post(lifecycle.changepassword, 'none'),
  backup: post(lifecycle.backup, 'none'),
  restore: post(lifecycle.restore, 'none'),
  sync: post(lifecycle.sync),
  shutdown: post(lifecycle.shutdown),
  revoketoken: post(lifecycle.revoketoken),
  // wallet
  address: post(wallet.address),
  btcbalance: post(wallet.btcbalance),
  listunspents: post(wallet.listunspents),
  createutxos: post(wallet.createutxos),
  sendbtc: post(wallet.sendbtc),
  listtransactions: post(wallet.listtransactions),
  estimatefee: post(wallet.estimatefee),
  signmessage: post(wallet.signmessage),
  // assets
  issueassetnia: post(assets.issueassetnia),
  issueassetcfa: post(assets.issueassetcfa),
  issueassetuda: post(assets.issueassetuda),
  listassets: post(assets.listassets),
  assetbalance: post(assets.assetbalance),
  assetmetadata: post(assets.assetmetadata),
  getassetmedia: post(assets.getassetmedia),
  postassetmedia: post(assets.postassetmedia),
  sendasset: post(sends.sendasset),
  listtransfers: post(assets.listtransfers),
  refreshtransfers: post(assets.refreshtransfers),
  failtransfers: post(assets.failtransfers),
  // invoices
  lninvoice: post(invoices.lninvoice),
  rgbinvoice: post(invoices.rgbinvoice),
  decodelninvoice: post(invoices.decodelninvoice),
  decodergbinvoice: post(invoices.decodergbinvoice),
  invoicestatus: post(invoices.invoicestatus),
  // payments
  sendpayment: post(payments.sendpayment),
  keysend: post(payments.keysend),
  listpayments: get(payments.listpayments),
  getpayment: post(payments.getpayment),
  // channels
  openchannel: post(channels.openchannel),
  closechannel: post(channels.closechannel),
  listchannels: get(channels.listchannels),
  getchannelid: post(channels.getchannelid),
  // peers and network
  connectpeer: post(peers.connectpeer),
  disconnectpeer: post(peers.disconnectpeer),
  listpeers: get(peers.listpeers),
  networkinfo: get(peers.networkinfo),
  nodeinfo: get(peers.nodeinfo),
  checkindexerurl: post(peers.checkindexerurl),
  checkproxyendpoint: post(peers.checkproxyendpoint),
  sendonionmessage: post(peers.sendonionmessage),
  // swaps
  makerinit: post(swaps.makerinit),
  makerexecute: post(swaps.makerexecute),
  taker: post(swaps.taker),
  listswaps: get(swaps.listswaps),
  getswap: post(swaps.getswap),
};

export type NodeApiReply = { status: number; body: unknown; raw?: string };

/** The route of an endpoint on a node of this generation, or undefined when that generation has none. */
export function routeOf(endpoint: string, gen: ApiGeneration): Route | undefined {
  if (gen === '6887cbf' && endpoint in ROUTES_6887CBF) {
    const handler = ROUTES_6887CBF[endpoint];
    return handler
      ? { method: 'POST', needs: STATELESS_6887CBF.has(endpoint) || NO_WALLET_6887CBF.has(endpoint) ? 'none' : 'unlocked', handler }
      : undefined;
  }
  if (gen === 'f379330' && ONLY_6887CBF.has(endpoint)) return undefined;
  return ROUTES[endpoint];
}

function hasBigint(v: unknown): boolean {
  if (typeof v === 'bigint') return true;
  if (Array.isArray(v)) return v.some(hasBigint);
  if (v && typeof v === 'object') return Object.values(v).some(hasBigint);
  return false;
}

/** The body that unlocks a node of this generation with the emulator's chain backends. */
export function unlockBody(api: ApiGeneration, password: string): Record<string, unknown> {
  if (api === 'f379330') return { password };
  return {
    password,
    ldk_chain_sync: { mode: 'TransactionSync', config: { indexer_url: DEFAULT_INDEXER } },
    indexer_url: DEFAULT_INDEXER,
    announce_addresses: [],
  };
}

/** The indexer the emulator's nodes are said to use (nothing is contacted). */
export const DEFAULT_INDEXER = '127.0.0.1:50001';

/**
 * 6887cbf answers some objects with more fields than f379330 (every field of its structs is in its
 * document, `null` when absent): what the emulator adds to an answer on a node of that generation.
 */
function as6887cbf(endpoint: string, result: unknown): unknown {
  const r = result as Record<string, unknown>;
  switch (endpoint) {
    case 'listunspents':
      return {
        unspents: (r.unspents as Array<Record<string, unknown>>).map((u) => ({
          ...u,
          utxo: { ...(u.utxo as object), exists: true, derivation_index: null },
          pending_blinded: 0,
        })),
      };
    case 'sendpayment':
      return { payment_id: r.payment_hash, ...r };
    case 'listassets':
      return { nia: r.nia ?? null, uda: r.uda ?? null, cfa: r.cfa ?? null, ifa: r.ifa ?? null };
    default:
      return result;
  }
}

/** JSON text with bigints written as exact integers. */
export function stringifyExact(v: unknown): string {
  const marker = '\u0000big:';
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${marker}${x.toString()}` : x));
  return text.replace(/"\\u0000big:(\d+)"/g, '$1');
}

const toPlain = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x))) as unknown;

/**
 * The state machine of the RLN nodes of one emulator: wallets, assets, invoices, channels, payments, transfers and
 * swaps between nodes of the same world, over a shared in-memory "chain" that advances with `mine()`.
 */
export class NodeWorld {
  private readonly state: WorldState;
  private mineTimer?: NodeJS.Timeout;

  constructor(private readonly opts: { fundingSat?: number; autoMineMs?: number } = {}) {
    this.state = new WorldState(opts.fundingSat ?? 10_000_000);
    if (opts.autoMineMs !== undefined) {
      this.state.onMempool = () => {
        if (this.mineTimer) return;
        this.mineTimer = setTimeout(() => {
          this.mineTimer = undefined;
          this.mine(1);
        }, opts.autoMineMs);
        this.mineTimer.unref?.();
      };
    }
  }

  /** A node whose image speaks `api` (default f379330, the demo's image). */
  addNode(nodeId: string, opts: { network: string; alias?: string; api?: ApiGeneration }): void {
    if (this.state.nodes.has(nodeId)) return;
    this.state.nodes.set(nodeId, this.state.newNode(nodeId, bitcoinNetwork(opts.network), opts.alias, opts.api));
  }

  /** The generation the node's image speaks. */
  apiOf(nodeId: string): ApiGeneration {
    return this.node(nodeId).api;
  }

  /**
   * The node now runs an image that speaks `api` (an upgrade): the process restarted, so the node is
   * locked and its peers are gone, as the service leaves a node after every upgrade.
   */
  moveToImage(nodeId: string, api: ApiGeneration): void {
    this.lockNode(nodeId);
    this.node(nodeId).api = api;
  }

  removeNode(nodeId: string): void {
    const node = this.state.nodes.get(nodeId);
    if (!node) return;
    for (const peer of node.peers) this.state.nodeByPubkey(peer)?.peers.delete(node.pubkey);
    for (const [id, c] of this.state.channels) if (c.opener === nodeId || c.acceptor === nodeId) this.state.channels.delete(id);
    this.state.nodes.delete(nodeId);
  }

  hasNode(nodeId: string): boolean {
    return this.state.nodes.has(nodeId);
  }

  /** The words of the node's wallet (tests: a wallet restored from a mnemonic is that mnemonic's); undefined before init. */
  mnemonicOf(nodeId: string): string | undefined {
    return this.node(nodeId).wallet?.mnemonic;
  }

  /** The node's public key (stable for its id), e.g. to build `pubkey@host:port` in tests. */
  pubkeyOf(nodeId: string): string {
    return this.node(nodeId).pubkey;
  }

  async handle(nodeId: string, method: 'GET' | 'POST', endpoint: string, body: unknown): Promise<NodeApiReply> {
    try {
      const node = this.state.nodes.get(nodeId);
      if (!node) throw notFound('NotFound', `Unknown node ${nodeId}`);
      // The demo's `api-dead`: the process is up (the service says RUNNING), its API answers 500.
      if (node.faults.apiDead) return { status: 500, body: { error: 'Internal Server Error', code: 500 } };
      const name = endpoint.replace(/^\/+/, '');
      const route = routeOf(name, node.api);
      if (!route) throw notFound('NotFound', `Unknown endpoint /${name}`);
      if (method.toUpperCase() !== route.method) {
        throw new RlnError(405, 'MethodNotAllowed', `/${endpoint} expects ${route.method}, got ${method}`);
      }
      let input: Body = {};
      if (route.method === 'POST' && body !== undefined && body !== null && body !== '') {
        if (body instanceof Uint8Array && endpoint === 'postassetmedia') input = { file: body };
        else if (typeof body !== 'object' || Array.isArray(body))
          throw badRequest('InvalidRequest', 'Failed to parse the request body as a JSON object');
        else input = body as Body;
      }
      // RLN reads the body before it looks at the wallet: a body of the other generation is refused first.
      if (route.method === 'POST') checkRequired(node.api, name, input);
      if (route.needs === 'unlocked') {
        if (!node.wallet) throw notInitialized();
        if (!node.unlocked) throw lockedNode();
      }
      const ctx: Ctx = { world: this.state, node, body: input };
      const result = node.api === '6887cbf' ? as6887cbf(name, route.handler(ctx)) : route.handler(ctx);
      if (hasBigint(result)) return { status: 200, body: toPlain(result), raw: stringifyExact(result) };
      return { status: 200, body: result };
    } catch (e) {
      const err = e instanceof RlnError ? e : failed('Unexpected', `Unexpected error: ${(e as Error)?.message ?? String(e)}`);
      return { status: err.status, body: err.toBody() };
    }
  }

  /** Initializes and unlocks a node (funding its wallet), as a user would, in the node's generation. */
  async seedReadyNode(nodeId: string, password: string): Promise<void> {
    const node = this.node(nodeId);
    if (!node.wallet) await this.expectOk(nodeId, 'init', { password });
    if (!node.unlocked) await this.expectOk(nodeId, 'unlock', unlockBody(node.api, password));
  }

  /** Mines blocks: confirms pending txs, settles on-chain balances, moves channels Opening -> Opened, Closing -> closed. */
  mine(blocks = 1): void {
    this.state.mine(blocks);
  }

  /**
   * The node's process restarted (the service restarts a hosted node): its wallet is locked and
   * its peers are disconnected, as after `shutdown`, until someone calls `unlock`. Nothing when
   * the node is not initialised.
   */
  lockNode(nodeId: string): void {
    const node = this.node(nodeId);
    if (!node.wallet || !node.unlocked) return;
    lifecycle.shutdown({ world: this.state, node, body: {} });
  }

  /** Injects one of the demo's faults (faults.ts) into the node; returns what happened, in words. */
  fault(nodeId: string, fault: NodeFault): string {
    return injectFault(this.state, this.node(nodeId), fault);
  }

  /** btcbalance answers vanilla amounts above 2^53 (exact only in `raw`), to test lossless parsing. */
  setLargeAmounts(nodeId: string, on: boolean): void {
    this.node(nodeId).largeAmounts = on;
  }

  /** Stops the auto-mining timer, if any. */
  close(): void {
    if (this.mineTimer) clearTimeout(this.mineTimer);
    this.mineTimer = undefined;
  }

  private node(nodeId: string): NodeState {
    const node = this.state.nodes.get(nodeId);
    if (!node) throw new Error(`NodeWorld: unknown node ${nodeId}`);
    return node;
  }

  private async expectOk(nodeId: string, endpoint: string, body: unknown): Promise<void> {
    const r = await this.handle(nodeId, 'POST', endpoint, body);
    if (r.status !== 200) throw new Error(`NodeWorld: ${endpoint} failed on ${nodeId}: ${(r.body as { error?: string }).error}`);
  }
}
