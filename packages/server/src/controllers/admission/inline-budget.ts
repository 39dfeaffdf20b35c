/**
 * The inline budget, one mechanism for the classic and the CEL handler: with an evaluator (the
 * evaluation pool), a request is first evaluated on the serving thread within `inlineMs`, which costs
 * no thread hop (most requests take well under a millisecond, the hop more than that). What it does
 * with an attempt:
 *
 * - An evaluation that finished is used, however long it took on the clock: the result decides, and
 *   the same request is never evaluated twice. Only an attempt the deadline stopped (`cut`) was not
 *   finished.
 * - A cut attempt is judged by this thread's CPU time, not by the clock: on a busy machine the thread
 *   is descheduled for tens of milliseconds at a time, and a cheap policy caught in such a pause is
 *   not slow. Each policy's CPU time in the attempt is at least its time on the clock less the time
 *   the thread did not run (the attempt's time on the clock less its CPU time).
 * - A policy that used at least half the budget is an overrunner; one that used `SLOW_OVERRUN_FACTOR`
 *   budgets (a CEL loop runs on past the deadline) is remembered as slow at once, the others after
 *   `SLOW_STRIKES` requests in a row that overran (a garbage collection or code not yet compiled costs
 *   a cheap policy a few ms once, and it finishes inline in the next request, which clears its count).
 * - A cut attempt is tried again (`INLINE_ATTEMPTS` in all) unless a policy was found slow: on a busy
 *   node a cheap evaluation is often held up, and evaluating again here costs far less than the hop.
 *   An attempt in which this thread ran for less than half the budget (it was descheduled, not busy)
 *   does not count, up to `HELD_ATTEMPTS` more: otherwise a busy machine sends requests that cost well
 *   under a millisecond to the evaluator, which then starts a worker (a V8 isolate, ~30 MiB and more
 *   once warm; `bench:admission` on a loaded machine started both of its workers this way) and makes
 *   the request wait for it.
 *
 * Requests selecting a policy remembered as slow go to the evaluator at once for `SLOW_POLICY_MS`: a
 * tenant's hostile policy costs the serving thread nothing more than parsing.
 *
 * The thread's CPU time costs a system call to read: it is read when an attempt starts more than
 * `inlineMs` after the last reading, and after a cut attempt (which lasted more than `inlineMs`), so at
 * most once per inline budget.
 */
import type { ServerClock } from "../../clock.js";
import type { OffloadReason } from "../../metrics/recorder-types.js";

/** Inline attempts of one request. */
const INLINE_ATTEMPTS = 2;
/** Further attempts of one request that were cut while this thread was held up (see the header). */
const HELD_ATTEMPTS = 4;
/** How long a policy remembered as slow skips the inline attempt (ms). */
const SLOW_POLICY_MS = 60_000;
/** Budgets of CPU time one policy's cut evaluation must have used to count as slow at once. */
const SLOW_OVERRUN_FACTOR = 4;
/** Requests in a row (none finished inline in between) in which a policy overran before it counts as slow. */
const SLOW_STRIKES = 3;
/** Most policies counted or remembered (the memory is emptied when full). */
const SLOW_POLICIES_MAX = 1000;

/** What one inline attempt produced, as the handler's evaluation reports it. */
export interface InlineAttempt<R> {
  result: R;
  /** True when the deadline stopped the evaluation (a policy or rule was not evaluated in full). */
  cut: boolean;
  /** Each policy's time on the clock in the attempt (ms), by key. */
  policyMs: ReadonlyMap<string, number>;
}

/** See `createInlineBudget`. */
export interface InlineBudget {
  /** How long a request is first evaluated on the serving thread (ms); 0: never. */
  readonly inlineMs: number;
  /**
   * Evaluates inline with `run` (which stops at a deadline `budgetMs` from its start): the result of
   * an attempt that finished, or undefined when the evaluator must evaluate (`keys` selects a policy
   * remembered as slow, too little time is left, or every attempt was cut).
   */
  attempt<R>(
    keys: readonly string[],
    remainingMs: number,
    run: (budgetMs: number) => InlineAttempt<R>,
  ): R | undefined;
  /** True when one of `keys` is remembered as slow. */
  isSlow(keys: readonly string[]): boolean;
}

/** Options of `createInlineBudget`. */
export interface InlineBudgetOptions {
  clock: ServerClock;
  /** How long (ms) a request is first evaluated inline (0: never). */
  inlineMs: number;
  /** CPU time (ms) this thread has used; only differences are meaningful. Default: `process.threadCpuUsage()`. */
  threadCpuMs?: () => number;
  /** Called with the reason each time `attempt` leaves a request to the evaluator. */
  onOffload?: (reason: OffloadReason) => void;
}

const processThreadCpuMs = (): number => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

/** Creates the budget of one handler; it remembers the policies found slow and their strikes. */
export function createInlineBudget(options: InlineBudgetOptions): InlineBudget {
  const { clock, inlineMs } = options;
  const threadCpuMs = options.threadCpuMs ?? processThreadCpuMs;
  const onOffload = options.onOffload ?? (() => {});
  const offload = (reason: OffloadReason): undefined => {
    onOffload(reason);
    return undefined;
  };
  const until = new Map<string, number>();
  const strikes = new Map<string, number>();
  /** The last reading of the thread's CPU time, and when (monotonic) it was taken. */
  let checkpoint = { at: Number.NEGATIVE_INFINITY, cpu: 0 };

  function isSlow(keys: readonly string[]): boolean {
    if (until.size === 0) return false;
    const now = clock.monotonic();
    for (const key of keys) {
      const end = until.get(key);
      if (end === undefined) continue;
      if (end > now) return true;
      until.delete(key);
    }
    return false;
  }

  function remember(key: string, now: number): void {
    strikes.delete(key);
    if (until.size >= SLOW_POLICIES_MAX) until.clear();
    until.set(key, now + SLOW_POLICY_MS);
  }

  function strike(key: string, now: number): void {
    const count = (strikes.get(key) ?? 0) + 1;
    if (count >= SLOW_STRIKES) {
      remember(key, now);
      return;
    }
    if (strikes.size >= SLOW_POLICIES_MAX) strikes.clear();
    strikes.set(key, count);
  }

  /**
   * Judges a cut attempt that ran from `started` to `ended` (monotonic): `slow` when a policy was
   * found slow, `held` when this thread ran for less than half the budget (it was descheduled).
   * Overrunners count a strike on the request's last attempt (`last`).
   */
  function judge(
    policyMs: ReadonlyMap<string, number>,
    started: number,
    ended: number,
    last: boolean,
  ): { slow: boolean; held: boolean } {
    const before = checkpoint;
    const cpu = threadCpuMs();
    checkpoint = { at: ended, cpu };
    // The CPU time between the previous reading and the attempt's start is at most that wall time.
    const attemptCpu = cpu - before.cpu - Math.max(0, started - before.at);
    const idle = Math.max(0, ended - started - Math.max(0, attemptCpu));
    let slow = false;
    for (const [key, ms] of policyMs) {
      const policyCpu = ms - idle;
      if (policyCpu >= SLOW_OVERRUN_FACTOR * inlineMs) {
        remember(key, ended);
        slow = true;
      } else if (last && policyCpu >= inlineMs / 2) {
        strike(key, ended);
      }
    }
    return { slow, held: attemptCpu < inlineMs / 2 };
  }

  return {
    inlineMs,
    isSlow,
    attempt(keys, remainingMs, run) {
      if (inlineMs <= 0) return offload("inline_off");
      if (isSlow(keys)) return offload("slow_policy");
      const first = clock.monotonic();
      let started = first;
      let counted = 0;
      let held = 0;
      while (counted < INLINE_ATTEMPTS) {
        if (remainingMs - (started - first) <= inlineMs) return offload("deadline");
        if (started - checkpoint.at > inlineMs) checkpoint = { at: started, cpu: threadCpuMs() };
        const attempt = run(inlineMs);
        if (!attempt.cut) {
          if (strikes.size > 0) for (const key of keys) strikes.delete(key);
          return attempt.result;
        }
        const ended = clock.monotonic();
        const judged = judge(attempt.policyMs, started, ended, counted === INLINE_ATTEMPTS - 1);
        if (judged.slow) return offload("slow_policy");
        if (judged.held && held < HELD_ATTEMPTS) held++;
        else counted++;
        started = ended;
      }
      return offload("cut");
    },
  };
}
