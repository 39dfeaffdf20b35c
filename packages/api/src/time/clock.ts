/**
 * Time, injected: the one clock of the whole repository. Everything that reads the time or waits
 * (the engine's time functions and deadlines, rate limiters, work queues, informer backoff, leader
 * election, the reporter's ingest hold and retries) takes a `Clock`, so tests drive it with
 * {@link createManualClock} instead of sleeping.
 */

/** Reads the time and schedules callbacks. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` milliseconds; the returned function cancels it (idempotent). */
  after(ms: number, callback: () => void): () => void;
}

/** Options of {@link createSystemClock}. */
export interface SystemClockOptions {
  /**
   * Unref'd timers: a pending callback does not keep the process alive (for holds and retries that
   * must not delay an exit). Default false: a process waiting on the clock stays up.
   */
  readonly unref?: boolean;
}

/** The real clock: `Date.now()` and Node's timers. */
export function createSystemClock(options: SystemClockOptions = {}): Clock {
  const unref = options.unref === true;
  return Object.freeze({
    now: () => Date.now(),
    after(ms: number, callback: () => void): () => void {
      const timer = setTimeout(callback, Math.max(0, ms));
      if (unref) timer.unref();
      return () => clearTimeout(timer);
    },
  });
}

/** The real clock with referenced timers. */
export const systemClock: Clock = createSystemClock();

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

/** Lets pending promise callbacks and I/O callbacks run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A clock that only moves when told to; for tests. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing due callbacks in time order (each sees `now()` at its time). */
  advance(ms: number): void;
  /** Moves time to `at` (never backwards), firing due callbacks. */
  set(at: number): void;
  /**
   * Like `advance`, but lets pending promise and I/O callbacks run before, between and after the
   * due callbacks, for code that awaits between timers (leader election, retries, work queues).
   */
  settle(ms: number): Promise<void>;
  /** Number of callbacks not yet fired or cancelled. */
  pending(): number;
}

/** Creates a {@link ManualClock} starting at `start` (default 2026-01-01T00:00:00Z). */
export function createManualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let now = start;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const earliest = (limit: number): [number, { at: number; fn: () => void }] | undefined => {
    let due: [number, { at: number; fn: () => void }] | undefined;
    for (const entry of timers) {
      if (entry[1].at <= limit && (due === undefined || entry[1].at < due[1].at)) due = entry;
    }
    return due;
  };
  const fire = (due: [number, { at: number; fn: () => void }]): void => {
    timers.delete(due[0]);
    now = Math.max(now, due[1].at);
    due[1].fn();
  };
  const moveTo = (target: number): void => {
    for (let due = earliest(target); due !== undefined; due = earliest(target)) fire(due);
    now = Math.max(now, target);
  };
  return {
    now: () => now,
    after(ms, callback) {
      const id = ++next;
      timers.set(id, { at: now + Math.max(0, ms), fn: callback });
      return () => {
        timers.delete(id);
      };
    },
    advance: (ms) => moveTo(now + ms),
    set: (at) => moveTo(at),
    async settle(ms) {
      const target = now + ms;
      await flush();
      for (let due = earliest(target); due !== undefined; due = earliest(target)) {
        fire(due);
        await flush();
      }
      now = Math.max(now, target);
      await flush();
    },
    pending: () => timers.size,
  };
}
