/**
 * Time source injected into everything that waits or timestamps (ingest hold, write retries),
 * so tests advance time instead of sleeping.
 */

/** A handle returned by {@link Clock.setTimeout}, passed back to {@link Clock.clearTimeout}. */
export interface TimerHandle {
  readonly id: number;
}

/** Current time and timers. Use {@link systemClock} in production and {@link createManualClock} in tests. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: `Date.now()` and unref'd Node timers (a pending hold never keeps the process alive). */
export function systemClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 0;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = ++next;
      const timer = setTimeout(() => {
        timers.delete(id);
        fn();
      }, ms);
      timer.unref();
      timers.set(id, timer);
      return { id };
    },
    clearTimeout(handle) {
      const timer = timers.get(handle.id);
      if (timer) clearTimeout(timer);
      timers.delete(handle.id);
    },
  };
}

/** A clock that only moves when told to; for tests. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing due timers in order. */
  advance(ms: number): void;
  /** Number of timers not yet fired. */
  pending(): number;
}

/** Creates a {@link ManualClock} starting at `start` (default 2026-01-01T00:00:00Z). */
export function createManualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let now = start;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = ++next;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return { id };
    },
    clearTimeout(handle) {
      timers.delete(handle.id);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) {
          if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
        }
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = target;
    },
    pending: () => timers.size,
  };
}
