import type { Clock as EngineClock } from "@kyverno-ts/engine";
import { type Clock, systemClock as kubeSystemClock } from "@kyverno-ts/kube";

/**
 * The server's one source of time: the kube package's `Clock` (epoch milliseconds, and timers, which
 * informers, work queues, leader election and rescans run on) plus a monotonic millisecond counter for
 * deadlines and durations. Injected everywhere so tests control time. The engine takes its own
 * `{ now(): Date }`: adapt with `engineClock` where a controller creates its engine.
 */
export interface ServerClock extends Clock {
  /** Monotonic milliseconds (like `performance.now()`); only differences are meaningful. */
  monotonic(): number;
}

/** The real clock: `Date.now()`, `setTimeout` and `performance.now()`. */
export function systemClock(): ServerClock {
  return {
    now: () => Date.now(),
    after: (ms, callback) => kubeSystemClock.after(ms, callback),
    monotonic: () => performance.now(),
  };
}

/** The engine's view of a clock (`now()` as a `Date`), for `createEngine({ clock })`. */
export function engineClock(clock: Pick<Clock, "now">): EngineClock {
  return { now: () => new Date(clock.now()) };
}
