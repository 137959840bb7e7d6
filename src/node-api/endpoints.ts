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

export interface EndpointDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  request: Req;
  response: Res;
  /** Safe to retry on network errors and 5xx: it reads and changes nothing. */
  idempotent: boolean;
}

const post = <Req extends z.ZodType, Res extends z.ZodType>(path: string, request: Req, response: Res, idempotent = false): EndpointDef<Req, Res> =>
  ({ method: 'POST', path, request, response, idempotent });
const read = <Req extends z.ZodType, Res extends z.ZodType>(path: string, request: Req, response: Res) => post(path, request, response, true);
const get = <Res extends z.ZodType>(path: string, response: Res): EndpointDef<typeof NoBody, Res> =>
  ({ method: 'GET', path, request: NoBody, response, idempotent: true });
const NoInput = Empty.optional();

/** Every RLN node API endpoint (section 4.2 of the interface document and the rest of the RLN OpenAPI). */
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
  listassets: read('/listassets', A.ListAssetsRequest, A.ListAssetsResponse),
  assetmetadata: read('/assetmetadata', A.AssetIdRequest, A.AssetMetadataResponse),
  getassetmedia: read('/getassetmedia', A.GetAssetMediaRequest, A.GetAssetMediaResponse),
  postassetmedia: post('/postassetmedia', A.PostAssetMediaRequest, A.PostAssetMediaResponse),
  sendasset: post('/sendasset', A.SendAssetRequest, A.SendAssetResponse),
  listtransfers: read('/listtransfers', A.ListTransfersRequest, A.ListTransfersResponse),
  refreshtransfers: post('/refreshtransfers', A.RefreshRequest, Empty),
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
  // node lifecycle
  init: post('/init', L.InitRequest, L.InitResponse),
  unlock: post('/unlock', L.UnlockRequest, Empty),
  lock: post('/lock', NoInput, Empty),
  changepassword: post('/changepassword', L.ChangePasswordRequest, Empty),
  backup: post('/backup', L.BackupRequest, Empty),
  restore: post('/restore', L.RestoreRequest, Empty),
  sync: post('/sync', NoInput, Empty),
  shutdown: post('/shutdown', NoInput, Empty),
  revoketoken: post('/revoketoken', L.RevokeTokenRequest, Empty),
} as const satisfies Record<string, EndpointDef>;

export type EndpointName = keyof typeof endpoints;
/** What a method of the client accepts (amounts as number or bigint). */
export type RequestOf<E extends EndpointName> = z.input<(typeof endpoints)[E]['request']>;
/** What a method of the client resolves to (amounts above 2^53 as bigint). */
export type ResponseOf<E extends EndpointName> = z.output<(typeof endpoints)[E]['response']>;

export const endpointNames = Object.keys(endpoints) as EndpointName[];
