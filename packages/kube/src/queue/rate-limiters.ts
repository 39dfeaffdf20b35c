/**
 * Per-item retry delays for the work queue, as client-go's `workqueue` rate limiters: exponential per
 * item, an overall token bucket, and the maximum of several.
 */
import { type Clock, systemClock } from "@kyverno-ts/api";
import { createTokenBucket } from "../ratelimit/token-bucket.js";

/** Decides how long a key waits before it is retried. */
export interface RateLimiter<K> {
  /** Records one more failure of `key` and returns the delay (ms) before its retry. */
  when(key: K): number;
  /** Clears `key`'s failure history (after a success or a final drop). */
  forget(key: K): void;
}

/** `baseMs · 2^failures`, capped at `maxMs` (client-go: 5 ms → 1000 s). */
export function exponentialRateLimiter<K>(options: { baseMs?: number; maxMs?: number } = {}): RateLimiter<K> {
  const base = options.baseMs ?? 5;
  const max = options.maxMs ?? 1_000_000;
  const failures = new Map<K, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(max, base * 2 ** Math.min(n, 60));
    },
    forget: (key) => {
      failures.delete(key);
    },
  };
}

/** An overall limit on retries of all keys together: `qps` per second, `burst` at once (default 10 / 100). */
export function bucketRateLimiter<K>(
  options: { qps?: number; burst?: number; clock?: Clock } = {},
): RateLimiter<K> {
  const bucket = createTokenBucket({
    qps: options.qps ?? 10,
    burst: options.burst ?? 100,
    clock: options.clock ?? systemClock,
  });
  return { when: () => bucket.reserve(), forget: () => undefined };
}

/** The longest delay of several limiters. */
export function maxOfRateLimiters<K>(...limiters: RateLimiter<K>[]): RateLimiter<K> {
  return {
    when: (key) => Math.max(0, ...limiters.map((l) => l.when(key))),
    forget(key) {
      for (const l of limiters) l.forget(key);
    },
  };
}

/** client-go's `DefaultControllerRateLimiter`: exponential per item (5 ms → 1000 s) and a 10 qps / 100 burst bucket. */
export function defaultControllerRateLimiter<K>(clock: Clock = systemClock): RateLimiter<K> {
  return maxOfRateLimiters<K>(exponentialRateLimiter<K>(), bucketRateLimiter<K>({ clock }));
}
