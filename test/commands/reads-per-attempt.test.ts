/**
 * The steps of one attempt that only look share their reads (CommandContext.reads, readOnce):
 *   - `node backup lock=yes` on an unlocked node: its state check, its dialog's fields and its
 *     preview each need the node's lock state. The node is asked once before the dialog opens
 *     (three times before), and again at the submission, a new attempt, whose handler reads what
 *     the node says then.
 *   - `asset inflate`: its check, its spend hook and its confirmation's preview each worked out
 *     the plan (the asset's metadata, the amounts): once now before the confirmation, and again by
 *     the handler when it is confirmed.
 *   - `pay send`: its check (expiry, paid already, amount), spend hook and preview each had the
 *     node decode the invoice: once now.
 *   - `node upgrade`: its check and preview each asked the service for the node and the latest
 *     image: once now, and again when confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry, type Reply } from '../../src/engine/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { slackChannel, slackUser } from '../support/core.js';
import { createReadyNode, PASSWORD, startEnv, type TestEnv } from '../support/commands.js';

const ops = slackUser('UOPS');
const admin = slackUser('UADMIN');
let env: TestEnv;
let node: HostedNode;
let issuer: HostedNode;
let payee: HostedNode;
const asked: string[] = [];

beforeAll(async () => {
  env = await startEnv();
  node = await createReadyNode(env, 'alice');
  issuer = await createReadyNode(env, 'f1', { utxos: true });
  payee = await createReadyNode(env, 'payee');
  // Every node API request the emulator answers, by endpoint (the call goes through unchanged).
  const handle = env.world.handle.bind(env.world);
  env.world.handle = async (nodeId, method, endpoint, body) => {
    asked.push(endpoint);
    return handle(nodeId, method, endpoint, body);
  };
});

afterAll(async () => {
  await env?.close();
});

const count = (endpoint: string) => asked.filter((e) => e === `/${endpoint}` || e === endpoint).length;
const dispatcher = () =>
  testDispatcher({ registry: createRegistry(allCommands), services: env.services, operators: ['slack:UOPS'], admins: ['slack:UADMIN'] });

describe('node backup lock=yes: one read of the lock state per attempt', () => {
  it('asks nodeinfo once before its dialog opens, and the dialog still offers to lock the node', async () => {
    const d = dispatcher();
    asked.length = 0;
    const open = await d.dispatch({ via: 'typed', actor: ops, place: slackChannel, text: `node backup ${node.name} lock=yes` });
    expect(open.kind).toBe('dialog');
    if (open.kind !== 'dialog') return;
    // The fields and the preview read the lock state after the check: all three saw "unlocked".
    expect(open.dialog.fields.map((f) => f.name)).toEqual(['lock_first', 'password']);
    expect(open.dialog.intro).toContain('is unlocked: RLN backs up a locked node only');
    expect(count('nodeinfo')).toBe(1);

    // The submission is an attempt of its own: its check asks again, and the handler locks and backs up.
    asked.length = 0;
    const done = await d.dispatch({
      via: 'dialog',
      actor: ops,
      place: slackChannel,
      dialogId: open.dialog.id,
      values: { lock_first: 'true', password: PASSWORD },
    });
    expect(done.kind).toBe('message');
    expect(JSON.stringify(done)).toContain('was locked for the backup');
    expect(count('nodeinfo')).toBe(1);
    expect(count('lock')).toBe(1);
  });
});

/** An admin's typed command, and a click on the Confirm button of the prompt it answered (which must have one). */
const adminTypes = (d: ReturnType<typeof dispatcher>, text: string) =>
  d.dispatch({ via: 'typed', actor: admin, place: slackChannel, text });
const confirmOf = (r: Reply): string => {
  const button = r.kind === 'message' ? r.message.buttons?.find((b) => b.label === 'Confirm') : undefined;
  if (!button?.id) throw new Error(`no Confirm button in ${JSON.stringify(r).slice(0, 300)}`);
  return button.id;
};
const adminConfirms = (d: ReturnType<typeof dispatcher>, r: Reply) =>
  d.dispatch({ via: 'button', actor: admin, place: slackChannel, buttonId: confirmOf(r) });

describe('asset inflate: one plan per attempt', () => {
  it('reads the asset once for its check, spend and preview, and again when confirmed', async () => {
    const d = dispatcher();
    await adminConfirms(d, await adminTypes(d, `asset issue-ifa ${issuer.name} USDX "Dollar X" 1000 inflation=500`));
    asked.length = 0;
    const prompt = await adminTypes(d, `asset inflate ${issuer.name} USDX 100`);
    expect(JSON.stringify(prompt)).toContain('Known circulating');
    expect(count('assetmetadata')).toBe(1);
    asked.length = 0;
    const done = await adminConfirms(d, prompt);
    expect(JSON.stringify(done)).toContain('USDX');
    expect(count('inflate')).toBe(1);
    // The click's looking steps share one read; the handler reads again, on what the node says when it acts.
    expect(count('assetmetadata')).toBe(2);
  });
});

describe('pay send: one decoding of the invoice per attempt', () => {
  it('has the node decode the invoice once before the confirmation, which still shows its amount', async () => {
    const d = dispatcher();
    const { invoice } = await env.api(payee).lninvoice({ amt_msat: 3_000_000, expiry_sec: 600 });
    asked.length = 0;
    const prompt = await adminTypes(d, `pay send ${issuer.name} ${invoice}`);
    expect(JSON.stringify(prompt)).toContain('3,000 sats');
    expect(confirmOf(prompt)).toBeTruthy();
    expect(count('decodelninvoice')).toBe(1);

    // The click: its check decodes once more, and the handler once for all it does and shows,
    // the reason of the failure included (the payer has no channel to the payee).
    asked.length = 0;
    const done = await adminConfirms(d, prompt);
    expect(JSON.stringify(done)).toContain('Payment failed');
    expect(JSON.stringify(done)).toContain('"label":"Why"');
    expect(count('sendpayment')).toBe(1);
    expect(count('decodelninvoice')).toBe(2);
  });
});

describe('node upgrade: one read of the node and the latest image per attempt', () => {
  it('asks the service once for each before the confirmation, and again when confirmed', async () => {
    const target = await createReadyNode(env, 'upg');
    env.emulator.setLatestImage('v12.0.0');
    // The service's calls, counted (each goes through unchanged).
    const hosting = env.services.hosting;
    const getNode = hosting.getNode.bind(hosting);
    const latestImage = hosting.latestImage.bind(hosting);
    const calls = { getNode: 0, latestImage: 0 };
    hosting.getNode = (id) => (calls.getNode++, getNode(id));
    hosting.latestImage = () => (calls.latestImage++, latestImage());
    try {
      const d = dispatcher();
      const prompt = await adminTypes(d, `node upgrade ${target.name}`);
      expect(JSON.stringify(prompt)).toContain('v12.0.0');
      expect(calls).toEqual({ getNode: 1, latestImage: 1 });
      const done = await adminConfirms(d, prompt);
      expect(JSON.stringify(done)).toContain('Node upgrading');
      expect(calls).toEqual({ getNode: 3, latestImage: 3 });
    } finally {
      Object.assign(hosting, { getNode, latestImage });
    }
  });
});
