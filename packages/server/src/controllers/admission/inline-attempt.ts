/**
 * The inline attempt: with an evaluator (the evaluation pool), a request is first evaluated on the
 * serving thread for `inlineMs`, which costs no thread hop. Most requests take well under a
 * millisecond there, and the hop to a worker costs more than that (bench:admission).
 */
import type { Engine } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { runJob, type StepJob, type StepResult } from "./step.js";

/** Inline attempts of one request (see `inlineAttempt`). */
const INLINE_ATTEMPTS = 3;
/** How long a policy remembered as slow skips the inline attempt (ms). */
const SLOW_POLICY_MS = 60_000;
/**
 * Requests in a row (none of the policy's requests finished inline in between) in which a policy
 * overran every inline attempt before it counts as slow. On a busy node a cheap policy is sometimes
 * preempted in every attempt of a request; it also finishes inline in the next one, which clears its
 * count. A hostile policy overruns in every request.
 */
const SLOW_STRIKES = 3;
/** Most policies counted or remembered (the memory is emptied when full). */
const SLOW_POLICIES_MAX = 1000;

/**
 * Policies whose inline evaluation overran, by key. Requests selecting a policy remembered as slow go
 * to the evaluator at once for a while: a tenant's hostile policy costs the serving thread nothing
 * more than parsing, instead of `inlineMs` (three times) for each of its requests.
 */
export interface SlowPolicies {
  /** True when one of `policies` is remembered as slow. */
  any(policies: readonly CachedPolicy[]): boolean;
  /** Counts an overrun of `policy` in every inline attempt of a request. */
  overran(policy: CachedPolicy): void;
  /** The policies of a request finished inline: their overruns no longer count. */
  finished(policies: readonly CachedPolicy[]): void;
}

/** Creates an empty memory, its times read on `clock`. */
export function createSlowPolicies(clock: ServerClock): SlowPolicies {
  const until = new Map<string, number>();
  const strikes = new Map<string, number>();
  return {
    any(policies) {
      if (until.size === 0) return false;
      const now = clock.monotonic();
      for (const p of policies) {
        const end = until.get(p.key);
        if (end === undefined) continue;
        if (end > now) return true;
        until.delete(p.key);
      }
      return false;
    },
    overran(policy) {
      const count = (strikes.get(policy.key) ?? 0) + 1;
      if (strikes.size >= SLOW_POLICIES_MAX) strikes.clear();
      if (count < SLOW_STRIKES) {
        strikes.set(policy.key, count);
        return;
      }
      strikes.delete(policy.key);
      if (until.size >= SLOW_POLICIES_MAX) until.clear();
      until.set(policy.key, clock.monotonic() + SLOW_POLICY_MS);
    },
    finished(policies) {
      if (strikes.size === 0) return;
      for (const p of policies) strikes.delete(p.key);
    },
  };
}

/** What an inline attempt uses (the handler's dependencies have it). */
export interface InlineDeps {
  readonly engine: Engine;
  readonly policyCache: PolicyCache;
  readonly clock: ServerClock;
  /** How long a request is first evaluated on the serving thread (ms). */
  readonly inlineMs: number;
  readonly slow: SlowPolicies;
}

/**
 * Evaluates a job here within `inlineMs` (the engine stops at that deadline): its result when it
 * finished in time, undefined when it needs the evaluator. An attempt that ran past `inlineMs` is
 * tried again, up to three attempts: on a busy node the thread is often held up (preempted, or
 * stopped for a garbage collection) in the middle of a cheap evaluation, and the first reviews after
 * a start run code that is not compiled yet (each attempt compiles more of it); evaluating again here
 * costs far less than the hop, a worker's evaluation and a worker's start. When the last attempt
 * overruns too, the policies that took at least half of the budget in it count an overrun (see
 * `SlowPolicies`).
 */
export function inlineAttempt(
  d: InlineDeps,
  job: StepJob,
  policies: readonly CachedPolicy[],
): StepResult | undefined {
  if (d.inlineMs <= 0 || d.slow.any(policies)) return undefined;
  const first = d.clock.monotonic();
  let result: StepResult | undefined;
  for (let attempt = 0; attempt < INLINE_ATTEMPTS; attempt++) {
    const started = attempt === 0 ? first : d.clock.monotonic();
    if (job.remainingMs - (started - first) <= d.inlineMs) return undefined;
    result = runJob(d.engine, d.policyCache, d.clock, { ...job, remainingMs: d.inlineMs });
    if (d.clock.monotonic() - started < d.inlineMs) {
      d.slow.finished(policies);
      return result;
    }
  }
  if (result !== undefined) markSlow(d, result, policies);
  return undefined;
}

/** Counts an overrun for the policies whose rules took at least half the inline budget in `result`. */
function markSlow(d: InlineDeps, result: StepResult, policies: readonly CachedPolicy[]): void {
  const seconds = new Map<CachedPolicy["labels"], number>();
  for (const [labels, , , , , duration] of result.rules)
    seconds.set(labels, (seconds.get(labels) ?? 0) + duration);
  for (const policy of policies)
    if ((seconds.get(policy.labels) ?? 0) * 1000 >= d.inlineMs / 2) d.slow.overran(policy);
}
