/**
 * An approval in the terminal, with the whole bot against the emulator. The terminal user
 * (shell:local) asks through the shell adapter's text; `/as` (another branch) is not in this tree,
 * so the second person, shell:bea, clicks the printed button id through the same dispatcher the
 * adapter uses. The request outlives a restart of the bot.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';
import { messageText } from '../../support/reply-text.js';
import type { Reply } from '../../../src/engine/types.js';

const BEA = { platform: 'shell' as const, userId: 'bea', displayName: 'bea' };
const TERMINAL = { platform: 'shell' as const, channelId: 'terminal' };

describe('approvals in the terminal', () => {
  let h: Harness;
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (c) => (printed += c.toString()));

  beforeAll(async () => {
    h = await startHarness({
      emulator: { seed: 'demo', lifecycleDelayMs: 30 },
      shell: { input, output, prompt: false },
      env: { ADMIN_USERS: 'shell:bea', APPROVAL_POLICY: 'node.stop' },
    });
  }, 90_000);
  afterAll(async () => {
    input.end();
    await h?.close();
  });

  async function type(line: string, expected: string | RegExp): Promise<string> {
    const from = printed.length;
    input.write(`${line}\n`);
    const start = Date.now();
    while (!(typeof expected === 'string' ? printed.slice(from).includes(expected) : expected.test(printed.slice(from)))) {
      if (Date.now() - start > 5000) throw new Error(`the terminal never printed ${expected}:\n${printed.slice(from)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return printed.slice(from);
  }
  const textOf = (r: Reply) => (r.kind === 'message' ? messageText(r.message) : JSON.stringify(r));
  const statusOf = (name: string) => h.emulator.nodes().find((n) => n.name === name)!.status;

  it('posts the request in the terminal, refuses the requester’s own approval, and runs on a second person’s, after a restart', async () => {
    const prompt = await type('node stop alice', /confirm b_\S+/);
    const confirm = /confirm (b_\S+)/.exec(prompt)![1];
    const request = await type(`confirm ${confirm}`, /Approve\] → type: click b_\S+/);
    expect(request).toContain('Approval needed: node stop alice');
    expect(request).toContain('Requested by: local (shell:local)');
    const approve = /Approve\] → type: click (b_\S+)/.exec(request)![1];

    const own = await type(`click ${approve}`, 'someone else must approve it');
    expect(own).toContain('Not your own request');
    expect(statusOf('alice')).toBe('RUNNING');

    // The request is stored: a restart keeps it usable.
    const app = await h.restart();
    const done = await app.dispatcher.dispatch({ via: 'button', actor: BEA, place: TERMINAL, buttonId: approve });
    expect(textOf(done)).toContain('approved by bea (shell:bea)');
    expect(statusOf('alice')).not.toBe('RUNNING');
  });
});
