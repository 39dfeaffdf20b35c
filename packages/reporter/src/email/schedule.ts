/**
 * Cron schedules on the injected {@link Clock}: croner computes the next run (UTC), the clock's timer
 * waits for it, so tests drive the schedule with a manual clock instead of waiting for 8 o'clock.
 */

import type { Clock } from "@kyverno-ts/api";
import { Cron } from "croner";

/** Longest single timer (Node caps timeouts at 2^31-1 ms); longer waits re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

/** Throws (croner's message) when `pattern` is not a valid cron expression. */
export function validateCron(pattern: string): void {
  new Cron(pattern, { timezone: "UTC", paused: true }).stop();
}

/** The next run of `pattern` strictly after `after` (ms since the epoch), in UTC; undefined when none. */
export function nextCronRun(pattern: string, after: number): number | undefined {
  const cron = new Cron(pattern, { timezone: "UTC", paused: true });
  const next = cron.nextRun(new Date(after));
  cron.stop();
  return next === null ? undefined : next.getTime();
}

/** A running schedule. */
export interface CronSchedule {
  /** When the next run is due (ms since the epoch), undefined once stopped or exhausted. */
  next(): number | undefined;
  stop(): void;
}

/**
 * Runs `fire` at every occurrence of `pattern` (UTC). `fire` is not awaited; a run that is still
 * going when the next one is due is the caller's concern.
 */
export function scheduleCron(pattern: string, clock: Clock, fire: (at: number) => void): CronSchedule {
  let cancel: (() => void) | undefined;
  let due: number | undefined;
  let stopped = false;
  const arm = (after: number): void => {
    due = nextCronRun(pattern, after);
    if (due === undefined || stopped) return;
    const target = due;
    const wait = (): void => {
      const left = target - clock.now();
      if (left > MAX_TIMER_MS) {
        cancel = clock.after(MAX_TIMER_MS, wait);
        return;
      }
      cancel = clock.after(Math.max(0, left), () => {
        if (stopped) return;
        fire(target);
        arm(Math.max(target, clock.now()));
      });
    };
    wait();
  };
  arm(clock.now());
  return {
    next: () => (stopped ? undefined : due),
    stop() {
      stopped = true;
      cancel?.();
      cancel = undefined;
    },
  };
}
