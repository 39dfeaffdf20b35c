import { systemClock as apiSystemClock, type Clock } from "@kyverno-ts/api";

/**
 * The server's one source of time: the repository's `Clock` (`@kyverno-ts/api`: epoch milliseconds and
 * timers, which
 * informers, work queues, leader election and rescans run on) plus a monotonic millisecond counter for
 * deadlines and durations. Injected everywhere so tests control time; the engines take it as it is
 * (they read `now()`).
 */
export interface ServerClock extends Clock {
  /** Monotonic milliseconds (like `performance.now()`); only differences are meaningful. */
  monotonic(): number;
}

/** The real clock: `Date.now()`, `setTimeout` and `performance.now()`. */
export function systemClock(): ServerClock {
  return {
    now: () => Date.now(),
    after: (ms, callback) => apiSystemClock.after(ms, callback),
    monotonic: () => performance.now(),
  };
}
