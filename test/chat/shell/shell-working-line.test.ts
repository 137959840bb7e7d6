/**
 * A slow command in the terminal (P32): the whole bot on the emulator, alice's node API holding
 * every request until the test lets it go. `report balance alice` says it is working while the
 * node is silent, and its report follows that line once the node answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { NodeWorld } from '../../../src/emulator/node-api/index.js';
import { WORKING_TEXT } from '../../../src/chat/shell/working-line.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

/** A node world in which one node holds every request until released. */
class HeldWorld extends NodeWorld {
  held?: string;
  private waiting: Array<() => void> = [];
  override async handle(...args: Parameters<NodeWorld['handle']>): ReturnType<NodeWorld['handle']> {
    if (args[0] === this.held) await new Promise<void>((r) => this.waiting.push(r));
    return super.handle(...args);
  }
  get holding(): number {
    return this.waiting.length;
  }
  release(): void {
    this.held = undefined;
    for (const r of this.waiting.splice(0)) r();
  }
}

describe('the terminal on a slow command', () => {
  let h: Harness;
  const world = new HeldWorld();
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (c) => (out += c.toString()));
  const until = (s: string | RegExp) =>
    waitFor(() => (typeof s === 'string' ? out.includes(s) : s.test(out)), { what: () => `output containing ${s}:\n${out}` });

  beforeAll(async () => {
    h = await startHarness({
      emulator: { seed: 'demo', world },
      shell: { input, output, prompt: false },
      env: { NODE_CALL_DEADLINE_S: '60' },
    });
  });
  afterAll(async () => {
    world.release();
    await h?.close();
    world.close();
  });

  it('says it is working while the node is silent, then prints the answer after that line', async () => {
    world.held = h.emulator.nodes().find((n) => n.name === 'alice')!.nodeId;
    input.write('report balance alice\n');
    await until(WORKING_TEXT);
    expect(world.holding).toBeGreaterThan(0);
    expect(out).not.toContain('Balance report');
    world.release();
    await until('Balance report · alice');
    expect(out.indexOf(WORKING_TEXT)).toBeLessThan(out.indexOf('Balance report · alice'));
    expect(out.split(WORKING_TEXT).length).toBe(2);
  }, 60_000);
});
