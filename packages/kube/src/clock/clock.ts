/**
 * Time, injected. Everything in this package that waits (rate limiters, the work queue's delayed adds,
 * informer backoff, leader election) reads the time and schedules callbacks through a `Clock`, so tests
 * drive it with a fake clock instead of sleeping.
 */

/** Reads the time and schedules callbacks; `systemClock` unless a test injects a fake. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; the returned function cancels it. */
  after(ms: number, callback: () => void): () => void;
}

/** The real clock: `Date.now()` and `setTimeout`. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  after(ms: number, callback: () => void): () => void {
    const timer = setTimeout(callback, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
});

/**
 * Waits `ms` on `clock`; resolves `true` when the time has passed, `false` as soon as `signal` aborts
 * (immediately if it already has). Never rejects.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  if (ms <= 0 && signal === undefined) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      cancel();
      resolve(false);
    };
    const cancel = clock.after(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
