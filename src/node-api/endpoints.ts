import type { z } from 'zod';
import { Empty, NoBody } from './schemas/common.js';
import * as W from './schemas/wallet.js';
import * as A from './schemas/assets.js';
import * as I from './schemas/invoices.js';
import * as P from './schemas/payments.js';
import * as C from './schemas/channels.js';
import * as N from './schemas/peers.js';
import * as S from './schemas/swaps.js';
import * as L from './schemas/lifecycle.js';
import type { ApiShape, Capability } from './generations.js';

export interface EndpointDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  request: Req;
  response: Res;
  /** Safe to retry on network errors and 5xx: it reads and changes nothing. */
  idempotent: boolean;
  /** Only on nodes of this generation (`6887cbf`: new endpoints). */
  since?: '6887cbf';
}

const post = <Req extends z.ZodType, Res extends z.ZodType>(
  path: string,
  request: Req,
  response: Res,
  idempotent = false,
): EndpointDef<Req, Res> => ({ method: 'POST', path, request, response, idempotent });
const read = <Req extends z.ZodType, Res extends z.ZodType>(path: string, request: Req, response: Res) =>
  post(path, request, response, true);
const get = <Res extends z.ZodType>(path: string, response: Res): EndpointDef<typeof NoBody, Res> => ({
  method: 'GET',
  path,
  request: NoBody,
  response,
  idempotent: true,
});
const NoInput = Empty.optional();
const since6887cbf = <D extends EndpointDef>(d: D): D => ({ ...d, since: '6887cbf' as const });

/**
 * Every RLN node API endpoint of both generations (f379330 and 6887cbf). The endpoints whose request
 * changed (`SHAPED` below) take one generation-neutral request here; the client sends it in the shape
 * the node takes (see generations.ts).
 */
export const endpoints = {
  // wallet and balances
  address: post('/address', NoInput, W.AddressResponse),
  btcbalance: read('/btcbalance', W.BtcBalanceRequest, W.BtcBalanceResponse),
  assetbalance: read('/assetbalance', A.AssetIdRequest, A.AssetBalanceResponse),
  listunspents: read('/listunspents', W.ListUnspentsRequest, W.ListUnspentsResponse),
  createutxos: post('/createutxos', W.CreateUtxosRequest, Empty),
  sendbtc: post('/sendbtc', W.SendBtcRequest, W.SendBtcResponse),
  listtransactions: read('/listtransactions', W.ListTransactionsRequest, W.ListTransactionsResponse),
  estimatefee: read('/estimatefee', W.EstimateFeeRequest, W.EstimateFeeResponse),
  signmessage: post('/signmessage', W.SignMessageRequest, W.SignMessageResponse),
  // assets
  issueassetnia: post('/issueassetnia', A.IssueAssetNIARequest, A.IssueAssetNIAResponse),
  issueassetcfa: post('/issueassetcfa', A.IssueAssetCFARequest, A.IssueAssetCFAResponse),
  issueassetuda: post('/issueassetuda', A.IssueAssetUDARequest, A.IssueAssetUDAResponse),
  issueassetifa: since6887cbf(post('/issueassetifa', A.IssueAssetIFARequest, A.IssueAssetIFAResponse)),
  inflate: since6887cbf(post('/inflate', A.InflateRequest, A.InflateResponse)),
  listassets: read('/listassets', A.ListAssetsRequest, A.ListAssetsResponse),
  assetmetadata: read('/assetmetadata', A.AssetIdRequest, A.AssetMetadataResponse),
  getassetmedia: read('/getassetmedia', A.GetAssetMediaRequest, A.GetAssetMediaResponse),
  postassetmedia: post('/postassetmedia', A.PostAssetMediaRequest, A.PostAssetMediaResponse),
  sendasset: post('/sendasset', A.SendAssetRequest, A.SendAssetResponse),
  sendrgb: since6887cbf(post('/sendrgb', A.SendRgbRequest, A.SendRgbResponse)),
  getconsignment: since6887cbf(read('/getconsignment', A.GetConsignmentRequest, A.GetConsignmentResponse)),
  provideoutofbandconsignment: since6887cbf(
    post('/provideoutofbandconsignment', A.ProvideOutOfBandConsignmentRequest, A.ProvideOutOfBandConsignmentResponse),
  ),
  provideoutofbandack: since6887cbf(post('/provideoutofbandack', A.ProvideOutOfBandAckRequest, A.ProvideOutOfBandAckResponse)),
  listtransfers: read('/listtransfers', A.ListTransfersRequest, A.ListTransfersResponse),
  refreshtransfers: post('/refreshtransfers', A.RefreshRequest, A.RefreshResponse),
  failtransfers: post('/failtransfers', A.FailTransfersRequest, A.FailTransfersResponse),
  // invoices and payments
  lninvoice: post('/lninvoice', I.LNInvoiceRequest, I.LNInvoiceResponse),
  rgbinvoice: post('/rgbinvoice', I.RgbInvoiceRequest, I.RgbInvoiceResponse),
  decodelninvoice: read('/decodelninvoice', I.InvoiceRequest, I.DecodeLNInvoiceResponse),
  decodergbinvoice: read('/decodergbinvoice', I.InvoiceRequest, I.DecodeRGBInvoiceResponse),
  invoicestatus: read('/invoicestatus', I.InvoiceRequest, I.InvoiceStatusResponse),
  sendpayment: post('/sendpayment', P.SendPaymentRequest, P.SendPaymentResponse),
  keysend: post('/keysend', P.KeysendRequest, P.KeysendResponse),
  listpayments: get('/listpayments', P.ListPaymentsResponse),
  getpayment: read('/getpayment', P.GetPaymentRequest, P.GetPaymentResponse),
  // channels
  openchannel: post('/openchannel', C.OpenChannelRequest, C.OpenChannelResponse),
  closechannel: post('/closechannel', C.CloseChannelRequest, Empty),
  listchannels: get('/listchannels', C.ListChannelsResponse),
  getchannelid: read('/getchannelid', C.GetChannelIdRequest, C.GetChannelIdResponse),
  // peers and network
  connectpeer: post('/connectpeer', N.ConnectPeerRequest, Empty),
  disconnectpeer: post('/disconnectpeer', N.DisconnectPeerRequest, Empty),
  listpeers: get('/listpeers', N.ListPeersResponse),
  networkinfo: get('/networkinfo', N.NetworkInfoResponse),
  nodeinfo: get('/nodeinfo', N.NodeInfoResponse),
  checkindexerurl: read('/checkindexerurl', N.CheckIndexerUrlRequest, N.CheckIndexerUrlResponse),
  checkproxyendpoint: read('/checkproxyendpoint', N.CheckProxyEndpointRequest, Empty),
  sendonionmessage: post('/sendonionmessage', N.SendOnionMessageRequest, Empty),
  // swaps
  makerinit: post('/makerinit', S.MakerInitRequest, S.MakerInitResponse),
  makerexecute: post('/makerexecute', S.MakerExecuteRequest, Empty),
  taker: post('/taker', S.TakerRequest, Empty),
  listswaps: get('/listswaps', S.ListSwapsResponse),
  getswap: read('/getswap', S.GetSwapRequest, S.GetSwapResponse),
  decodeswapstring: since6887cbf(read('/decodeswapstring', S.DecodeSwapstringRequest, S.DecodeSwapstringResponse)),
  // node lifecycle
  init: post('/init', L.InitRequest, L.InitResponse),
  unlock: post('/unlock', L.UnlockRequest, Empty),
  lock: post('/lock', NoInput, Empty),
  changepassword: post('/changepassword', L.ChangePasswordRequest, Empty),
  backup: post('/backup', L.BackupRequest, Empty),
  restore: post('/restore', L.RestoreRequest, Empty),
  sync: post('/sync', L.SyncRequest, Empty),
  shutdown: post('/shutdown', NoInput, Empty),
  revoketoken: post('/revoketoken', L.RevokeTokenRequest, Empty),
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof endpoints;

/** A changed endpoint's body in one generation: where it goes and the schema it must satisfy there. */
export interface ShapedBody {
  path: string;
  request: z.ZodType;
  response?: z.ZodType;
  body: unknown;
}

/** A neutral request that the node's generation cannot say (its message says why, for a person). */
export class CannotSay extends Error {
  override name = 'CannotSay';
}

/** The seconds of a day: the default expiry of a send's transfer and of an RGB invoice. */
const DAY_S = 86_400;

type Neutral<E extends EndpointName> = z.output<(typeof endpoints)[E]['request']>;

/**
 * The endpoints whose request differs between generations: the capability that tells which shape a
 * node takes, and the body of each shape built from the neutral request (`now` in unix seconds).
 * A neutral request that one shape cannot say throws CannotSay: why.
 */
export const SHAPED = {
  sendasset: {
    cap: 'send',
    build: (shape: ApiShape, r: Neutral<'sendasset'>, now: number): ShapedBody =>
      shape === 'f379330'
        ? {
            path: '/sendasset',
            request: A.SendAssetF379330,
            body: compactBody({
              asset_id: r.asset_id,
              assignment: r.assignment,
              recipient_id: r.recipient_id,
              witness_data: r.witness_data,
              donation: r.donation ?? false,
              fee_rate: r.fee_rate ?? 5,
              min_confirmations: r.min_confirmations ?? 1,
              transport_endpoints: r.transport_endpoints ?? [],
              skip_sync: r.skip_sync ?? false,
            }),
          }
        : {
            path: '/sendrgb',
            request: A.SendRgbRequest,
            response: A.SendRgbResponse,
            body: {
              donation: r.donation ?? false,
              fee_rate: r.fee_rate ?? 5,
              min_confirmations: r.min_confirmations ?? 1,
              expiration_timestamp: r.expiration_timestamp ?? now + DAY_S,
              recipient_map: {
                [r.asset_id]: [
                  compactBody({
                    recipient_id: r.recipient_id,
                    witness_data: r.witness_data,
                    assignment: r.assignment,
                    transport_endpoints: r.transport_endpoints ?? [],
                  }),
                ],
              },
            },
          },
  },
  unlock: {
    cap: 'unlock',
    build: (shape: ApiShape, r: Neutral<'unlock'>): ShapedBody => {
      if (shape === 'f379330') {
        if (r.chain_sync === 'TransactionSync')
          throw new CannotSay('this node’s image (f379330) follows the chain only through bitcoind (BlockSync)');
        const { chain_sync: _mode, ...rest } = r;
        return { path: '/unlock', request: L.UnlockF379330, body: compactBody(rest) };
      }
      if (r.proxy_endpoint !== undefined)
        throw new CannotSay('this node’s image (6887cbf) takes no proxy_endpoint at unlock: give the endpoints with each invoice');
      const mode =
        r.chain_sync ?? (r.bitcoind_rpc_host !== undefined || r.bitcoind_rpc_username !== undefined ? 'BlockSync' : 'TransactionSync');
      const indexer = r.indexer_url;
      if (!indexer) throw new CannotSay('this node’s image (6887cbf) needs an indexer URL (indexer_url=…)');
      let ldk_chain_sync: unknown;
      if (mode === 'BlockSync') {
        const missing = (['bitcoind_rpc_username', 'bitcoind_rpc_password', 'bitcoind_rpc_host', 'bitcoind_rpc_port'] as const).filter(
          (k) => r[k] === undefined || r[k] === '',
        );
        if (missing.length) throw new CannotSay(`BlockSync needs every bitcoind RPC field; missing: ${missing.join(', ')}`);
        ldk_chain_sync = {
          mode,
          config: {
            bitcoind_rpc_username: r.bitcoind_rpc_username,
            bitcoind_rpc_password: r.bitcoind_rpc_password,
            bitcoind_rpc_host: r.bitcoind_rpc_host,
            bitcoind_rpc_port: r.bitcoind_rpc_port,
          },
        };
      } else {
        ldk_chain_sync = { mode, config: { indexer_url: indexer } };
      }
      return {
        path: '/unlock',
        request: L.UnlockG6887cbf,
        body: compactBody({
          password: r.password,
          ldk_chain_sync,
          indexer_url: indexer,
          announce_addresses: r.announce_addresses ?? [],
          announce_alias: r.announce_alias,
        }),
      };
    },
  },
  rgbinvoice: {
    cap: 'rgbinvoice',
    build: (shape: ApiShape, r: Neutral<'rgbinvoice'> | undefined, now: number): ShapedBody => {
      const q = r ?? {};
      const base = {
        min_confirmations: q.min_confirmations ?? 1,
        asset_id: q.asset_id,
        assignment: q.assignment,
        witness: q.witness ?? false,
      };
      if (shape === 'f379330') {
        if (q.transport_endpoints?.length)
          throw new CannotSay(
            'this node’s image (f379330) puts the proxy it was unlocked with in its invoices: transport endpoints cannot be chosen',
          );
        const duration =
          q.duration_seconds ?? (q.expiration_timestamp !== undefined ? Math.max(1, q.expiration_timestamp - now) : undefined);
        return { path: '/rgbinvoice', request: I.RgbInvoiceF379330, body: compactBody({ ...base, duration_seconds: duration }) };
      }
      const expiration = q.expiration_timestamp ?? now + (q.duration_seconds ?? DAY_S);
      return {
        path: '/rgbinvoice',
        request: I.RgbInvoiceG6887cbf,
        body: compactBody({ ...base, expiration_timestamp: expiration, transport_endpoints: q.transport_endpoints ?? [] }),
      };
    },
  },
  listtransfers: {
    cap: 'listtransfers',
    build: (shape: ApiShape, r: Neutral<'listtransfers'> | undefined): ShapedBody => {
      if (shape === 'f379330') {
        if (!r?.asset_id) throw new CannotSay('this node’s image (f379330) lists the transfers of one asset at a time: name the asset');
        if (r.txid) throw new CannotSay('this node’s image (f379330) cannot filter transfers by txid');
        return { path: '/listtransfers', request: A.ListTransfersF379330, body: { asset_id: r.asset_id } };
      }
      return {
        path: '/listtransfers',
        request: A.ListTransfersG6887cbf,
        body: compactBody({ asset_filter: r?.asset_id ? { type: 'Id', value: r.asset_id } : { type: 'AnyOrNone' }, txid: r?.txid }),
      };
    },
  },
  sync: {
    cap: 'sync',
    build: (shape: ApiShape, r: Neutral<'sync'> | undefined): ShapedBody =>
      shape === 'f379330'
        ? { path: '/sync', request: L.SyncF379330, body: {} }
        : { path: '/sync', request: L.SyncG6887cbf, body: { options: { keychain: 'Colored', strategy: r?.strategy ?? 'FastSync' } } },
  },
  refreshtransfers: {
    cap: 'refreshtransfers',
    build: (shape: ApiShape, r: Neutral<'refreshtransfers'> | undefined): ShapedBody => {
      if (shape === 'f379330') {
        if (r?.asset_id) throw new CannotSay('this node’s image (f379330) refreshes the transfers of every asset at once');
        return { path: '/refreshtransfers', request: A.RefreshF379330, body: { skip_sync: r?.skip_sync ?? false } };
      }
      return {
        path: '/refreshtransfers',
        request: A.RefreshG6887cbf,
        body: compactBody({ asset_id: r?.asset_id, filter: [], skip_sync: r?.skip_sync ?? false }),
      };
    },
  },
  listunspents: {
    cap: 'listunspents',
    build: (shape: ApiShape, r: Neutral<'listunspents'> | undefined): ShapedBody => {
      if (shape === 'f379330') {
        if (r?.settled_only) throw new CannotSay('this node’s image (f379330) cannot list only settled allocations');
        return { path: '/listunspents', request: W.ListUnspentsF379330, body: { skip_sync: r?.skip_sync ?? false } };
      }
      return {
        path: '/listunspents',
        request: W.ListUnspentsG6887cbf,
        body: { settled_only: r?.settled_only ?? false, skip_sync: r?.skip_sync ?? false },
      };
    },
  },
} as const satisfies Partial<Record<EndpointName, { cap: Capability; build(shape: ApiShape, r: never, now: number): ShapedBody }>>;

export type ShapedName = keyof typeof SHAPED;
export const isShaped = (name: EndpointName): name is ShapedName => name in SHAPED;

/** A body without its undefined fields (a node reads an absent field and a null alike, but the documents only list the absent one). */
function compactBody<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
/** What a method of the client accepts (amounts as number or bigint). */
export type RequestOf<E extends EndpointName> = z.input<(typeof endpoints)[E]['request']>;
/** What a method of the client resolves to (amounts above 2^53 as bigint). */
export type ResponseOf<E extends EndpointName> = z.output<(typeof endpoints)[E]['response']>;

export const endpointNames = Object.keys(endpoints) as EndpointName[];
