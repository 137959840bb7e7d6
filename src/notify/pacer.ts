/**
 * Pacing per channel: every chat call in a channel (post, edit, thread line) waits for the
 * channel's next slot, so a round of several messages is spread out rather than sent as a
 * burst. The next slot counts from when a call finished, so the gap holds where the platform
 * sees it. A 429 holds the channel until its Retry-After.
 */
import { sleep } from '../vocabulary/index.js';
import type { Platform } from '../vocabulary/index.js';

export interface PacerOptions {
  now: () => number;
  /** Least time between two calls in one channel. */
  intervalMs: number;
  /** The same, per platform (overrides intervalMs for that platform). */
  perPlatformMs?: Partial<Record<Platform, number>>;
}

export class ChannelPacer {
  private readonly next = new Map<string, number>();

  constructor(private readonly o: PacerOptions) {}

  /** Whether a call in the channel may go out at `now` without waiting. */
  ready(platform: Platform, channelId: string, now: number): boolean {
    return (this.next.get(key(platform, channelId)) ?? 0) <= now;
  }

  /** Runs `call` in the channel's next slot. */
  async run<T>(platform: Platform, channelId: string, call: () => Promise<T>): Promise<T> {
    const k = key(platform, channelId);
    const wait = (this.next.get(k) ?? 0) - this.o.now();
    if (wait > 0) await sleep(wait);
    try {
      return await call();
    } finally {
      const interval = this.o.perPlatformMs?.[platform] ?? this.o.intervalMs;
      this.next.set(k, Math.max(this.next.get(k) ?? 0, this.o.now() + interval));
    }
  }

  /** When the channel's next call may go out (0: now). */
  nextAt(platform: Platform, channelId: string): number {
    return this.next.get(key(platform, channelId)) ?? 0;
  }

  /** No call in the channel before `at` (the platform asked to wait). */
  holdUntil(platform: Platform, channelId: string, at: number): void {
    this.next.set(key(platform, channelId), at);
  }
}

function key(platform: Platform, channelId: string): string {
  return `${platform}|${channelId}`;
}
