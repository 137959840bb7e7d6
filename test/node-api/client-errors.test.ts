import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeApiClient, NodeApiError, type NodeApiClient } from '../../src/node-api/index.js';
import { LARGE_AMOUNT_OFFSET, NodeWorld } from '../../src/emulator/node-api/index.js';
import { startNodeWorldServer, type NodeWorldServer } from '../support/node-world-server.js';

const TOKEN = 'secret-token-4f7a9c';
/** Regtest funding of a new wallet in this world, given explicitly so the balance read back can be checked. */
const FUNDING_SAT = 7_654_321;
let server: NodeWorldServer;
let client: NodeApiClient;

async function failure(p: Promise<unknown>): Promise<NodeApiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(NodeApiError);
  const err = e as NodeApiError;
  expect(`${err.message} ${err.hint} ${JSON.stringify(err)}`).not.toContain(TOKEN);
  return err;
}

beforeAll(async () => {
  const world = new NodeWorld({ fundingSat: FUNDING_SAT });
  world.addNode('n1', { network: 'regtest' });
  world.addNode('locked', { network: 'regtest' });
  server = await startNodeWorldServer({ world, token: TOKEN });
  await world.seedReadyNode('n1', 'password1');
  await world.handle('locked', 'POST', 'init', { password: 'password1' });
  client = createNodeApiClient({
    baseUrl: server.urlOf('n1'),
    credentials: { kind: 'token', token: TOKEN },
    timeoutMs: 2000,
    retryBaseMs: 5,
  });
});
afterAll(() => server.close());

describe('node API client errors', () => {
  it('turns 403 LockedNode into a NodeApiError with the RLN name and an unlock hint', async () => {
    const locked = createNodeApiClient({ baseUrl: server.urlOf('locked'), credentials: { kind: 'token', token: TOKEN } });
    const e = await failure(locked.btcbalance({ skip_sync: false }));
    expect(e).toMatchObject({ kind: 'rln', status: 403, rlnName: 'LockedNode', name: 'LockedNode', endpoint: 'btcbalance' });
    expect(e.hint).toContain('node unlock');
    expect(e.message).toContain('/btcbalance');
  });

  it('names NotInitialized, AlreadyInitialized and WrongPassword (401) with hints', async () => {
    const fresh = createNodeApiClient({ baseUrl: server.urlOf('locked'), credentials: { kind: 'token', token: TOKEN } });
    expect(await failure(fresh.init({ password: 'password1' }))).toMatchObject({ status: 403, rlnName: 'AlreadyInitialized' });
    const e = await failure(fresh.unlock({ password: 'not-the-password' }));
    expect(e).toMatchObject({ status: 401, rlnName: 'WrongPassword' });
    expect(e.message).not.toContain('not-the-password');
    server.world.addNode('blank', { network: 'regtest' });
    const blank = createNodeApiClient({ baseUrl: server.urlOf('blank'), credentials: { kind: 'token', token: TOKEN } });
    expect((await failure(blank.listchannels())).hint).toContain('node init');
  });

  it('reports 400 bad input and 403 InsufficientFunds with what to do', async () => {
    expect(await failure(client.issueassetnia({ ticker: 'bad ticker', name: 'x', amounts: [1], precision: 0 }))).toMatchObject({
      status: 400,
      rlnName: 'InvalidTicker',
    });
    const e = await failure(client.openchannel({ peer_pubkey_and_opt_addr: `02${'11'.repeat(32)}@h:1`, capacity_sat: 17_000_000 }));
    expect(e.status).toBe(400);
    const poor = await failure(client.sendbtc({ amount: 999_999_999, address: 'bcrt1qqqqqqqqqqqqqqqqqqqqqqqqqqqq' }));
    expect(poor).toMatchObject({ status: 403, rlnName: 'InsufficientFunds' });
    expect(poor.hint).toContain('wallet address');
  });

  it('refuses an invalid request before sending it, naming the field', async () => {
    const before = server.hits.get('keysend') ?? 0;
    const e = await failure(client.keysend({ dest_pubkey: 'x', amt_msat: -1 }));
    expect(e).toMatchObject({ kind: 'invalid-request', field: 'amt_msat' });
    expect(server.hits.get('keysend') ?? 0).toBe(before);
  });

  it('says the token is wrong on a 401 without leaking it', async () => {
    const wrong = createNodeApiClient({ baseUrl: server.urlOf('n1'), credentials: { kind: 'token', token: 'wrong-token-xyz' } });
    const e = await failure(wrong.nodeinfo());
    expect(e).toMatchObject({ status: 401 });
    expect(e.hint).toContain('NODE_API_TOKEN');
    expect(e.message).not.toContain('wrong-token-xyz');
    expect(server.lastHeaders?.authorization).toBe('Bearer wrong-token-xyz');
  });

  it('retries idempotent reads on 5xx and succeeds', async () => {
    server.faults.push({ endpoint: 'btcbalance', status: 503, times: 2 });
    const before = server.hits.get('btcbalance') ?? 0;
    const b = await client.btcbalance({ skip_sync: false });
    expect(b.vanilla.settled).toBe(FUNDING_SAT);
    expect((server.hits.get('btcbalance') ?? 0) - before).toBe(3);
    server.faults.push({ endpoint: 'listchannels', status: 500, times: 1 });
    expect((await client.listchannels()).channels).toEqual([]);
  });

  it('gives up on reads after the retries, with a 5xx hint', async () => {
    server.faults.push({ endpoint: 'nodeinfo', status: 502, times: 10 });
    const before = server.hits.get('nodeinfo') ?? 0;
    const e = await failure(client.nodeinfo());
    expect(e).toMatchObject({ kind: 'rln', status: 502 });
    expect((server.hits.get('nodeinfo') ?? 0) - before).toBe(3);
    expect(e.hint).toContain('node logs');
    server.faults.length = 0;
  });

  it('never retries writes (payments, issuance, channel opening, init) on 5xx', async () => {
    for (const [endpoint, call] of [
      ['sendpayment', () => client.sendpayment({ invoice: 'lnbcrt1x' })],
      ['issueassetnia', () => client.issueassetnia({ ticker: 'AAA', name: 'a', amounts: [1], precision: 0 })],
      ['openchannel', () => client.openchannel({ peer_pubkey_and_opt_addr: 'x', capacity_sat: 1 })],
      ['unlock', () => client.unlock({ password: 'password1' })],
    ] as const) {
      server.faults.push({ endpoint, status: 500, times: 1 });
      const before = server.hits.get(endpoint) ?? 0;
      expect((await failure(call())).status).toBe(500);
      expect((server.hits.get(endpoint) ?? 0) - before).toBe(1);
    }
  });

  it('reports a body that is not JSON as malformed', async () => {
    server.faults.push({ endpoint: 'listpeers', status: 200, raw: '<html>oops</html>', times: 3 });
    expect(await failure(client.listpeers())).toMatchObject({ kind: 'malformed', endpoint: 'listpeers' });
    server.faults.length = 0;
  });

  it('reports a truncated body as malformed or cut off, not as data', async () => {
    server.faults.push({ endpoint: 'address', status: 200, raw: '{"address":"bcrt1q', times: 1 });
    expect(await failure(client.address())).toMatchObject({ kind: 'malformed' });
    server.faults.push({ endpoint: 'btcbalance', truncate: true, times: 3 });
    const e = await failure(client.btcbalance({ skip_sync: false }));
    expect(['malformed', 'network']).toContain(e.kind);
    server.faults.length = 0;
  });

  it('says which field of which endpoint is wrong in an unexpected response', async () => {
    server.faults.push({
      endpoint: 'listchannels',
      status: 200,
      raw: JSON.stringify({ channels: [{ channel_id: 'c', peer_pubkey: 'p', status: 42 }] }),
      times: 1,
    });
    const e = await failure(client.listchannels());
    expect(e).toMatchObject({ kind: 'invalid-response', endpoint: 'listchannels', field: 'channels.0.status' });
    expect(e.message).toContain('/listchannels');
    expect(e.message).toContain('channels.0.status');
  });

  it('keeps an enum value it does not know (a newer image’s) as it came, instead of refusing the answer', async () => {
    const channel = {
      channel_id: 'c',
      peer_pubkey: 'p',
      status: 'Splicing',
      ready: true,
      capacity_sat: 1,
      local_balance_sat: 1,
      outbound_balance_msat: 1,
      inbound_balance_msat: 1,
      next_outbound_htlc_limit_msat: 1,
      next_outbound_htlc_minimum_msat: 1,
      is_usable: true,
      public: false,
    };
    server.faults.push({ endpoint: 'listchannels', status: 200, raw: JSON.stringify({ channels: [channel] }), times: 1 });
    expect((await client.listchannels()).channels[0].status).toBe('Splicing');
  });

  it('parses a u64 amount above 2^53 losslessly as a bigint', async () => {
    const normal = await client.btcbalance({ skip_sync: false });
    server.world.setLargeAmounts('n1', true);
    const big = await client.btcbalance({ skip_sync: false });
    server.world.setLargeAmounts('n1', false);
    const expected = BigInt(normal.vanilla.settled) + LARGE_AMOUNT_OFFSET;
    expect(big.vanilla.settled).toBe(expected);
    expect(typeof big.vanilla.settled).toBe('bigint');
    expect(big.colored.settled).toBe(normal.colored.settled);
    expect(typeof big.colored.settled).toBe('number');
  });

  it('refuses a u64 above 2^53 in a field that is not an amount, instead of rounding it', async () => {
    server.faults.push({ endpoint: 'networkinfo', status: 200, raw: '{"network":"Regtest","height":9007199254740993}', times: 1 });
    const e = await failure(client.networkinfo());
    expect(e).toMatchObject({ kind: 'invalid-response', field: 'height' });
    expect(e.message).toContain('9007199254740993');
  });

  it('summarises a list just over the long-list bound, in the shortest text that can hold it', async () => {
    // 1,001 one-digit elements: 2,001 characters of list, the least a list over 1,000 can take.
    server.faults.push({ endpoint: 'listpeers', status: 200, raw: `{"peers":[${Array(1001).fill('7').join(',')}]}`, times: 1 });
    const e = await failure(client.listpeers());
    expect(e).toMatchObject({ kind: 'invalid-response', field: 'peers[0]' });
    expect(e.message).toMatch(/of a list of 1001: .*\(the rest was not checked\)$/);
  });

  it('times out a slow node, and reports an unreachable one as a network error', async () => {
    const slow = createNodeApiClient({
      baseUrl: server.urlOf('n1'),
      credentials: { kind: 'token', token: TOKEN },
      timeoutMs: 50,
      retries: 0,
    });
    server.faults.push({ endpoint: 'listpayments', delayMs: 300, status: 200, raw: '{"payments":[]}', times: 1 });
    const e = await failure(slow.listpayments());
    expect(e.kind).toBe('timeout');
    expect(e.message).toContain('50 ms');
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const { port } = dead.address() as AddressInfo;
    await new Promise<void>((r) => dead.close(() => r()));
    const gone = createNodeApiClient({ baseUrl: `http://127.0.0.1:${port}/x`, credentials: { kind: 'none' }, retries: 1, retryBaseMs: 1 });
    const n = await failure(gone.networkinfo());
    expect(n.kind).toBe('network');
    expect(n.hint).toContain('RUNNING');
  });
});
