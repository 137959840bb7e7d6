import type { SigningKey } from './create-signing-key.js';
import type { Delivery, Faults } from './types.js';

export interface WebhookSenderOptions {
  key: SigningKey;
  faults: Faults;
  deliveries: Delivery[];
  attempts: number;
  baseDelayMs: number;
  /** Per-attempt time limit, ms. */
  timeoutMs?: number;
}

/**
 * Delivers signed webhook events. Events of one node go out in order (a queue per node);
 * a failed attempt (non-2xx or network error) is retried with exponential backoff up to
 * `attempts` times. Fault flags drop or duplicate whole events.
 */
export class WebhookSender {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private readonly controllers = new Set<AbortController>();
  private closed = false;

  constructor(private readonly opts: WebhookSenderOptions) {}

  /** Queues one event for `url`. The body is serialised once and those exact bytes are signed. */
  send(queueKey: string, url: string, payload: object): void {
    if (this.closed) return;
    const { faults } = this.opts;
    if (faults.webhookDrop > 0 && Math.random() < faults.webhookDrop) return;
    const body = JSON.stringify(payload);
    const signature = this.opts.key.sign(body);
    const copies = faults.webhookDuplicate > 0 && Math.random() < faults.webhookDuplicate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      const prev = this.queues.get(queueKey) ?? Promise.resolve();
      const next = prev.then(() => this.deliver(url, body, signature));
      this.queues.set(queueKey, next);
      this.pending.add(next);
      void next.finally(() => {
        this.pending.delete(next);
        if (this.queues.get(queueKey) === next) this.queues.delete(queueKey);
      });
    }
  }

  /** Resolves when nothing is queued or in flight. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [t, resolve] of this.timers) {
      clearTimeout(t);
      resolve();
    }
    this.timers.clear();
    for (const c of this.controllers) c.abort();
    await Promise.allSettled([...this.pending]);
  }

  private async deliver(url: string, body: string, signature: string): Promise<void> {
    for (let attempt = 1; attempt <= this.opts.attempts && !this.closed; attempt++) {
      const record: Delivery = { url, body, signature, attempt };
      this.opts.deliveries.push(record);
      const controller = new AbortController();
      this.controllers.add(controller);
      const timer = setTimeout(() => controller.abort(), this.opts.timeoutMs ?? 5_000);
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'user-agent': 'rln-hosting-emulator' },
          body,
          signal: controller.signal,
        });
        record.status = res.status;
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return;
      } catch (err) {
        record.error =
          (err as Error).name === 'AbortError' ? 'timeout' : ((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
      } finally {
        clearTimeout(timer);
        this.controllers.delete(controller);
      }
      if (attempt < this.opts.attempts) await this.sleep(this.opts.baseDelayMs * 2 ** (attempt - 1));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }
}
