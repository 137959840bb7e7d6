/**
 * `swap decode` on nodes of the latest image (6887cbf), against the emulator: both sides of a swap string
 * in their units (BTC in sats and msat, an asset by ticker where the node knows it), the expiry, and the
 * node's own part in the swap. (On an f379330 node it refuses before any call: needs-capability.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swapCommands } from '../../commands/swap.js';
import { createReadyNode, findCommand, messageOf, runCommand, startEnv, textOf, type TestEnv } from '../support/commands.js';

const cmd = (path: string) => findCommand(swapCommands, path);

describe('swap decode', () => {
  let env: TestEnv;
  let swapstring: string;
  let assetId: string;
  beforeAll(async () => {
    env = await startEnv();
    const maker = await createReadyNode(env, 'mk', { utxos: true });
    await createReadyNode(env, 'tk');
    ({
      asset: { asset_id: assetId },
    } = await env.api(maker).issueassetnia({ amounts: [100_000], ticker: 'SWD', name: 'Swap decode', precision: 2 }));
    const init = await runCommand(env, cmd('swap maker-init'), { node: 'mk', qty_from: '3000 sat', qty_to: '10.5 SWD' });
    const code = messageOf(init).message.blocks.find((b) => b.type === 'code');
    swapstring = code && code.type === 'code' ? code.text : '';
  });
  afterAll(async () => {
    await env?.close();
  });

  it('shows both sides in their units and the maker’s own swap', async () => {
    const text = textOf(await runCommand(env, cmd('swap decode'), { node: 'mk', swapstring }));
    expect(text).toContain('Swap string · mk');
    expect(text).toContain('Maker gives: 3,000 sats (3,000,000 msat)');
    expect(text).toContain('Maker gets: 10.50 SWD');
    expect(text).toContain('mk in it: as maker (Waiting)');
    expect(text).toMatch(/Expires: \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(text).toContain(`Asset got: ${assetId}`);
    expect(text).toContain('Take it with `swap taker mk <swapstring>`.');
  });

  it('on a node that does not hold the asset: raw units, saying so; not in the swap', async () => {
    const text = textOf(await runCommand(env, cmd('swap decode'), { node: 'tk', swapstring }));
    expect(text).toMatch(/Maker gets: 1,050 raw units of rgb:/);
    expect(text).toContain('tk in it: no');
    expect(text).toContain('tk does not hold every asset named');
  });

  it('says an expired offer is expired', async () => {
    const old = swapstring.replace(/\/(\d+)\/([0-9a-f]{64})$/, '/1000000/$2');
    const text = textOf(await runCommand(env, cmd('swap decode'), { node: 'tk', swapstring: old }));
    expect(text).toContain('Expired: 1970-01-12');
    expect(text).toContain('The offer has expired: ask the maker for a new swap string.');
  });

  it('passes on what the node says of a string that is none', async () => {
    await expect(runCommand(env, cmd('swap decode'), { node: 'tk', swapstring: 'not/a/swap/string' })).rejects.toMatchObject({
      rlnName: 'InvalidSwapString',
      status: 400,
    });
  });
});
