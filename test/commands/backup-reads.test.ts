/**
 * `node backup lock=yes` on an unlocked node: its state check, its dialog's fields and its preview
 * each need the node's lock state. They share one read per attempt (CommandContext.reads), so the
 * node is asked once before the dialog opens (three times before), and again at the submission,
 * a new attempt, whose handler reads what the node says then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCommands } from '../../commands/index.js';
import { createRegistry } from '../../src/engine/index.js';
import type { HostedNode } from '../../src/hosting/index.js';
import { testDispatcher } from '../support/dispatcher.js';
import { slackChannel, slackUser } from '../support/core.js';
import { createReadyNode, PASSWORD, startEnv, type TestEnv } from '../support/commands.js';

const ops = slackUser('UOPS');
let env: TestEnv;
let node: HostedNode;
const asked: string[] = [];

beforeAll(async () => {
  env = await startEnv();
  node = await createReadyNode(env, 'alice');
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

describe('node backup lock=yes: one read of the lock state per attempt', () => {
  it('asks nodeinfo once before its dialog opens, and the dialog still offers to lock the node', async () => {
    const d = testDispatcher({ registry: createRegistry(allCommands), services: env.services, operators: ['slack:UOPS'] });
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
