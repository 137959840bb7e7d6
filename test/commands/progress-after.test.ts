/**
 * The progress message of a long command (a report over every node), as a pure unit on fake
 * timers: nothing is posted when the work ends within 2 s; past 2 s a message is posted where the
 * command was typed, edited as the work goes on (at most once a second), and a last time when done.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressAfter } from '../../commands/support/progress-after.js';
import type { CommandContext } from '../../commands/define-command.js';
import type { Message, ProgressReporter } from '../../src/vocabulary/index.js';
import { messageText } from '../support/reply-text.js';

function recorder() {
  const seen: Array<{ kind: 'post' | 'edit'; text: string }> = [];
  const progress: ProgressReporter = {
    start: async (_place, m: Message) => {
      seen.push({ kind: 'post', text: messageText(m) });
      return { update: async (u: Message) => void seen.push({ kind: 'edit', text: messageText(u) }) };
    },
  };
  const ctx = { services: { progress }, place: { platform: 'shell', channelId: 'terminal' } } as unknown as CommandContext<unknown>;
  return { seen, ctx };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('progressAfter', () => {
  it('posts nothing when the work ends within 2 s', async () => {
    const { seen, ctx } = recorder();
    const p = progressAfter(ctx, 'Balance report: all', 'Nodes');
    p.tell(10, 10);
    await vi.advanceTimersByTimeAsync(1_900);
    await p.finish('Done.');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(seen).toEqual([]);
  });

  it('past 2 s, posts a message, edits it as nodes answer, and a last time when done', async () => {
    const { seen, ctx } = recorder();
    const p = progressAfter(ctx, 'Balance report: all', 'Nodes');
    p.tell(100, 2000);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'post' });
    expect(seen[0].text).toContain('100 of 2000');
    for (let d = 101; d <= 1500; d++) p.tell(d, 2000);
    await vi.advanceTimersByTimeAsync(1_000);
    // Many tells within a second make one edit.
    expect(seen.filter((s) => s.kind === 'edit')).toHaveLength(1);
    expect(seen.at(-1)?.text).toContain('1500 of 2000');
    await p.finish('Done: 2000 node(s) answered. The report follows.');
    expect(seen.at(-1)?.text).toContain('Done: 2000 node(s) answered');
  });
});
