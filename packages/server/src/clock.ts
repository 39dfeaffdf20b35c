import type { Clock } from "@kyverno-ts/engine";

/**
 * The server's source of time: wall-clock dates (for reports and the engine, whose `Clock` this
 * extends) and a monotonic millisecond counter (for deadlines and durations). Injected everywhere so
 * tests control time.
 */
export interface ServerClock extends Clock {
  /** Monotonic milliseconds (like `performance.now()`); only differences are meaningful. */
  monotonic(): number;
}

/** The real clock: `new Date()` and `performance.now()`. */
export function systemClock(): ServerClock {
  return { now: () => new Date(), monotonic: () => performance.now() };
}
