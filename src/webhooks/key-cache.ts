/**
 * The account's webhook public key, fetched once and cached. When a signature does not
 * verify, the key may have been rotated: the cache refetches it once and verifies again,
 * at most once per `refetchIntervalMs` so forged requests cannot make it hammer the service.
 */
import type { KeyObject } from 'node:crypto';
import { parsePublicKeys } from './parse-public-key.js';
import { verifySignature } from './verify-signature.js';

export interface KeyCacheOptions {
  /** Returns the raw key as served (`hosting.webhookPublicKey()`). */
  fetchKey: () => Promise<unknown>;
  /**
   * Least time between two refetches caused by failed verifications. Default 60 000 ms. The
   * first failure after start always refetches (a key rotated while the bot was down).
   */
  refetchIntervalMs?: number;
  /**
   * After a fetch that failed (service down, a key that does not parse), the least time before
   * the next try. Until then requests are answered "key unavailable" (503, redelivered later)
   * without calling the service, so a flood of webhooks cannot turn into a flood of fetches.
   * Default 5 000 ms.
   */
  failedFetchRetryMs?: number;
  now?: () => number;
}

/** The key could not be fetched or read: the request cannot be verified now (answer 503). */
export class KeyUnavailableError extends Error {
  override readonly name = 'KeyUnavailableError';
}

export class KeyCache {
  private keys: KeyObject[] | undefined;
  /** When the last refetch caused by a failed verification started (the first fetch does not count). */
  private lastRefetch = Number.NEGATIVE_INFINITY;
  /** When the last fetch failed, and why (answered without fetching until the retry time). */
  private lastFailure: { at: number; message: string } | undefined;
  private inflight: Promise<KeyObject[]> | undefined;
  /** Number of key fetches so far (for tests and diagnostics). */
  fetches = 0;
  private readonly interval: number;
  private readonly failedRetry: number;
  private readonly now: () => number;

  constructor(private readonly opts: KeyCacheOptions) {
    this.interval = opts.refetchIntervalMs ?? 60_000;
    this.failedRetry = opts.failedFetchRetryMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  /** Fetches (or reuses an in-flight fetch of) the key. */
  private fetch(): Promise<KeyObject[]> {
    if (!this.inflight) {
      const failed = this.lastFailure;
      if (failed && this.now() - failed.at < this.failedRetry) {
        return Promise.reject(
          new KeyUnavailableError(`${failed.message} (tried again at most every ${Math.ceil(this.failedRetry / 1000)} s)`),
        );
      }
      this.fetches++;
      this.inflight = (async () => {
        let raw: unknown;
        try {
          raw = await this.opts.fetchKey();
        } catch (err) {
          throw this.failure(`could not fetch the webhook public key: ${(err as Error).message}`);
        }
        try {
          const keys = parsePublicKeys(raw);
          this.keys = keys;
          this.lastFailure = undefined;
          return keys;
        } catch (err) {
          throw this.failure((err as Error).message);
        }
      })().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private failure(message: string): KeyUnavailableError {
    this.lastFailure = { at: this.now(), message };
    return new KeyUnavailableError(message);
  }

  /** The cached keys, fetched on first use. Throws KeyUnavailableError. */
  async current(): Promise<KeyObject[]> {
    return this.keys ?? this.fetch();
  }

  /**
   * Verifies with the cached key; on failure refetches once (rate-limited) and retries.
   * Rejects with KeyUnavailableError when no key can be had at all. Answers a plain boolean
   * when the cached key decides (a valid signature, or an invalid one while a refetch is not
   * due): the request path then has no promise to wait for. `await` works on either.
   */
  verify(rawBody: Buffer, signature: string): boolean | Promise<boolean> {
    const keys = this.keys;
    if (!keys) return this.current().then((fetched) => this.verifyWith(fetched, rawBody, signature));
    return this.verifyWith(keys, rawBody, signature);
  }

  private verifyWith(keys: KeyObject[], rawBody: Buffer, signature: string): boolean | Promise<boolean> {
    if (verifySignature(keys, rawBody, signature)) return true;
    if (this.now() - this.lastRefetch < this.interval) return false;
    this.lastRefetch = this.now();
    return this.fetch().then(
      (fresh) => verifySignature(fresh, rawBody, signature),
      () => false,
    );
  }

  /** Forgets the key (the next verification fetches it). */
  clear(): void {
    this.keys = undefined;
    this.lastRefetch = Number.NEGATIVE_INFINITY;
    this.lastFailure = undefined;
  }
}
