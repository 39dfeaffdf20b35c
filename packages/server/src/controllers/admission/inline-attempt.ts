/**
 * The classic handler's inline attempt: a job evaluated on the serving thread within the inline
 * budget (see inline-budget.ts, shared with the CEL handler), its result used when it finished.
 */
import type { Engine } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import type { InlineAttempt, InlineBudget } from "./inline-budget.js";
import { runJob, type StepJob, type StepResult } from "./step.js";

/** What an inline attempt uses (the handler's dependencies have it). */
export interface InlineDeps {
  readonly engine: Engine;
  readonly policyCache: PolicyCache;
  readonly clock: ServerClock;
  readonly inline: InlineBudget;
}

/**
 * Evaluates a job here within the inline budget (the engine stops at that deadline): its result when
 * it finished, undefined when it needs the evaluator.
 */
export function inlineAttempt(
  d: InlineDeps,
  job: StepJob,
  policies: readonly CachedPolicy[],
): StepResult | undefined {
  const keys = policies.map((p) => p.key);
  return d.inline.attempt(keys, job.remainingMs, (budgetMs): InlineAttempt<StepResult> => {
    const { stopped, ...result } = runJob(d.engine, d.policyCache, d.clock, {
      ...job,
      remainingMs: budgetMs,
    });
    return { result, cut: stopped, policyMs: stopped ? policyTimes(result, policies) : NO_TIMES };
  });
}

const NO_TIMES: ReadonlyMap<string, number> = new Map();

/** Each policy's time (ms) in `result`, from its rule results. */
function policyTimes(result: StepResult, policies: readonly CachedPolicy[]): Map<string, number> {
  const seconds = new Map<CachedPolicy["labels"], number>();
  for (const [labels, , , , , duration] of result.rules)
    seconds.set(labels, (seconds.get(labels) ?? 0) + duration);
  const out = new Map<string, number>();
  for (const policy of policies) {
    const s = seconds.get(policy.labels);
    if (s !== undefined) out.set(policy.key, s * 1000);
  }
  return out;
}
