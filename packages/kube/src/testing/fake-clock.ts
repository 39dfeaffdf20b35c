/** A manual clock for tests: time moves only when `advance` is called. */
import type { Clock } from "../clock/clock.js";

/** A `Clock` driven by the test. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing due callbacks in order and letting promises settle after each. */
  advance(ms: number): Promise<void>;
  /** Callbacks not yet fired. */
  pending(): number;
}

/** Lets pending promise callbacks and I/O callbacks run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Creates a fake clock at `start` ms. */
export function createFakeClock(start = 1_000_000): FakeClock {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const earliest = (limit: number): [number, { at: number; callback: () => void }] | undefined => {
    let found: [number, { at: number; callback: () => void }] | undefined;
    for (const entry of timers)
      if (entry[1].at <= limit && (found === undefined || entry[1].at < found[1].at)) found = entry;
    return found;
  };
  return {
    now: () => now,
    after(ms, callback) {
      const id = seq++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return () => {
        timers.delete(id);
      };
    },
    async advance(ms) {
      const target = now + ms;
      await flush();
      for (let due = earliest(target); due !== undefined; due = earliest(target)) {
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].callback();
        await flush();
      }
      now = target;
      await flush();
    },
    pending: () => timers.size,
  };
}
