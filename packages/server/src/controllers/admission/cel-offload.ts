/**
 * Where a CEL request's ValidatingPolicies or MutatingPolicies are evaluated: on the serving thread
 * first, within the inline budget (the CEL engine stops at that deadline), and in the evaluator (the
 * evaluation pool's workers) when that attempt overran. A policy whose own evaluation overran the
 * budget many times over, as a hostile loop does, skips the inline attempt for a while.
 *
 * What counts as a policy's overrun is the serving thread's CPU time, not the time on the clock: on
 * a busy machine the thread is descheduled for tens of milliseconds at a time, and a cheap policy
 * caught in such a pause is not slow. Marked by wall time, one pause sent every request of the
 * policies to the workers for a minute (each costing the serving thread more than the evaluation
 * itself: the job and its results cross threads), which is what `npm run bench:admission` measured
 * on a loaded machine (CEL at 33-37 % of the classic set's requests per CPU second).
 */
import type { CelEngine } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import type { CachedCelPolicy } from "../../policycache/cel-policy-store.js";
import {
  type CelEvaluation,
  type CelEvaluator,
  type CelJob,
  celErrorResponse,
  evaluateCelPolicies,
} from "./cel-step.js";

/** A request's job with the policies it names, as this thread holds them. */
export interface PreparedCelJob {
  job: CelJob;
  policies: readonly CachedCelPolicy[];
}

/** Options of `createCelOffload`. */
export interface CelOffloadOptions {
  engine: CelEngine;
  clock: ServerClock;
  logger: Logger;
  /** How long (ms) a request is first evaluated inline (0: never). */
  inlineMs: number;
  /** CPU time (ms) this thread has used; only differences are meaningful. Default: `process.threadCpuUsage()`. */
  threadCpuMs?: () => number;
}

/** See `createCelOffload`. */
export interface CelOffload {
  /** The evaluations when they finished inline within the budget; undefined when the evaluator must do it. */
  inline(prepared: PreparedCelJob): CelEvaluation[] | undefined;
  /** Evaluates in the evaluator; a job it could not finish in time answers `error` for each policy. */
  offThread(evaluator: CelEvaluator, prepared: PreparedCelJob): Promise<CelEvaluation[]>;
}

/** How long a policy whose inline attempt overran is evaluated by the evaluator only (ms). */
const SLOW_POLICY_MS = 60_000;
/**
 * How many times the inline budget one policy's evaluation must have taken to count as an overrun:
 * a hostile loop runs on for tens to hundreds of ms past the deadline, while a garbage collection
 * pause or a first, not yet optimised run costs a few ms once and must not send every request of the
 * policy to the workers for a minute.
 */
const SLOW_OVERRUN_FACTOR = 4;
const SLOW_POLICIES_MAX = 1000;
/** Inline attempts of one request (see `inline`). */
const INLINE_ATTEMPTS = 2;

const processThreadCpuMs = (): number => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

/** Creates the offload decision of one CEL handler (it remembers the policies found slow). */
export function createCelOffload(options: CelOffloadOptions): CelOffload {
  const { engine, clock, logger, inlineMs } = options;
  const threadCpuMs = options.threadCpuMs ?? processThreadCpuMs;
  /** Policies whose inline attempt overran, by key: until when (monotonic) they skip it. */
  const slow = new Map<string, number>();
  /**
   * The thread's CPU time read at `at` (monotonic), at most `inlineMs` before the current attempt
   * started: reading it costs a system call, so it is refreshed once per budget, not per request.
   * The CPU time an attempt used is then at least `cpu now - checkpoint.cpu - inlineMs`.
   */
  let checkpoint = { at: Number.NEGATIVE_INFINITY, cpu: 0 };

  /** Marks the policies that overran by far, when this thread's CPU time shows the overrun was theirs. */
  function markSlow(evaluations: readonly CelEvaluation[], started: number): void {
    const overrunMs = SLOW_OVERRUN_FACTOR * inlineMs;
    const suspects = evaluations.filter((e) => e.seconds * 1000 >= overrunMs);
    if (suspects.length === 0) return;
    // Descheduled, not busy: the attempt's CPU time is below the overrun.
    if (threadCpuMs() - checkpoint.cpu - inlineMs < overrunMs) return;
    for (const e of suspects) {
      if (slow.size >= SLOW_POLICIES_MAX) slow.clear();
      slow.set(e.key, started + SLOW_POLICY_MS);
    }
  }

  /** One inline attempt: the evaluations when they finished within the budget. */
  function attempt(prepared: PreparedCelJob, started: number): CelEvaluation[] | undefined {
    if (started - checkpoint.at > inlineMs) checkpoint = { at: started, cpu: threadCpuMs() };
    const request = { ...prepared.job.request, deadline: clock.now() + inlineMs };
    const evaluations = evaluateCelPolicies(engine, clock, prepared.job, prepared.policies, request);
    if (clock.monotonic() - started < inlineMs) return evaluations;
    // A CEL evaluation stopped at the deadline still finishes its loops (errors are values there):
    // policies that overran go straight to the evaluator for a while, costing this thread nothing.
    markSlow(evaluations, started);
    return undefined;
  }

  const isSlow = (prepared: PreparedCelJob, now: number): boolean =>
    prepared.policies.some((p) => (slow.get(p.key) ?? 0) > now);

  return {
    inline(prepared) {
      if (inlineMs <= 0) return undefined;
      // As the classic handler: an attempt that overran is tried once more, since on a busy node a
      // cheap evaluation is often held up (preempted, or stopped for a garbage collection) and doing
      // it again here costs far less than the hop to a worker; a slow policy is marked by then.
      const first = clock.monotonic();
      for (let i = 0; i < INLINE_ATTEMPTS; i++) {
        const started = i === 0 ? first : clock.monotonic();
        if (isSlow(prepared, started)) return undefined;
        if (prepared.job.remainingMs - (started - first) <= inlineMs) return undefined;
        const evaluations = attempt(prepared, started);
        if (evaluations !== undefined) return evaluations;
      }
      return undefined;
    },

    async offThread(evaluator, { job, policies }) {
      try {
        return (await evaluator.evaluateCel(job, job.subject.namespace)).evaluations;
      } catch (error) {
        logger.warn({ policies: job.policies, reason: String(error) }, "CEL admission evaluation abandoned");
        const message = `policy evaluation failed: ${error instanceof Error ? error.message : String(error)}`;
        return policies.map((p) => ({
          key: p.key,
          response: celErrorResponse(job.type, p, job.subject, message, clock.now()),
          seconds: 0,
        }));
      }
    },
  };
}
