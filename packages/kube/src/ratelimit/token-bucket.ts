/**
 * A token bucket (client-go's `flowcontrol` / `workqueue.BucketRateLimiter`): `qps` tokens per second,
 * holding at most `burst`. Reservations are taken in call order and may drive the balance negative, so
 * every caller learns at once how long it must wait and callers are served first come, first served.
 */
import { type Clock, sleep, systemClock } from "@kyverno-ts/api";

/** Options of `createTokenBucket`. */
export interface TokenBucketOptions {
  /** Tokens added per second; `Infinity` (or ≤ 0) disables limiting. */
  qps: number;
  /** Bucket size: how many requests may go at once after a quiet period (at least 1). */
  burst: number;
  clock?: Clock;
}

/** A shared rate limit; one instance is shared by every request of a client. */
export interface TokenBucket {
  /** Takes a token now and returns how many ms the caller must wait before using it (0: go ahead). */
  reserve(): number;
  /**
   * Takes a token and waits until it may be used. Resolves `false` (and gives the token back) if
   * `signal` aborts first.
   */
  take(signal?: AbortSignal): Promise<boolean>;
}

/** Creates a token bucket that starts full. Use `reserve()` for computed delays, `take()` to wait. */
export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  const clock = options.clock ?? systemClock;
  const unlimited = !(options.qps > 0) || options.qps === Number.POSITIVE_INFINITY;
  const burst = Math.max(1, Math.floor(options.burst));
  const perTokenMs = 1000 / options.qps;
  let tokens = burst;
  let last = clock.now();

  const reserve = (): number => {
    if (unlimited) return 0;
    const now = clock.now();
    tokens = Math.min(burst, tokens + (now - last) / perTokenMs);
    last = now;
    tokens -= 1;
    return tokens >= 0 ? 0 : Math.ceil(-tokens * perTokenMs);
  };

  return {
    reserve,
    async take(signal?: AbortSignal): Promise<boolean> {
      if (signal?.aborted === true) return false;
      const wait = reserve();
      if (wait === 0) return true;
      const waited = await sleep(clock, wait, signal);
      if (!waited && !unlimited) tokens = Math.min(burst, tokens + 1);
      return waited;
    },
  };
}
