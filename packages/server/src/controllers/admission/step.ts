/**
 * One admission step as data: the validate or mutate step of a request over its selected policies,
 * from a job (what the main thread selected) to the outcome and the rule results to record. The
 * handler runs it inline, an evaluation worker runs the same function (see `evaluation-pool/`), so
 * both paths decide alike. Metrics, events and reports stay with the caller: the step only returns
 * what to record.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createRequestCache, type Engine, type EngineRequest } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { PolicyLabels, RuleResultRecorder } from "../../metrics/metrics.js";
import type { CachedPolicy, PolicyCache } from "../../policycache/policy-cache.js";
import { type StepContext, unevaluated } from "./evaluation.js";
import { EvaluationMessages } from "./messages.js";
import { type MutationOutcome, runMutation } from "./mutate.js";
import type { RequestSubject } from "./request.js";
import type { ParsedReview, ReviewParse } from "./review.js";
import type { ReviewBody } from "./review-shell.js";
import { runValidation, type ValidationOutcome } from "./validate.js";

/** What a step is asked to do; plain data, so it can cross to a worker thread. */
export interface StepJob {
  step: "validate" | "mutate";
  /** Keys of the selected policies, in evaluation order. */
  policies: string[];
  /** The engine request every policy starts from (without a request cache or loader). */
  request: EngineRequest;
  review: ParsedReview;
  subject: RequestSubject;
  /** Milliseconds left before the request's deadline when the job was handed over. */
  remainingMs: number;
  /** The whole per-request budget in milliseconds (for messages). */
  deadlineMs: number;
  /** A large review's text when the job's objects are shells (see review-shell.ts). */
  body?: ReviewBody;
}

/** One rule result to record in `kyverno_policy_results_total` (the arguments of `RuleResultRecorder.record`). */
export type RuleRecord = [
  policy: PolicyLabels,
  rule: string,
  result: string,
  validationMode: "enforce" | "audit",
  ruleType: "validate" | "mutate" | "generate",
  durationSeconds: number,
];

/** What a step decided, and the rule results it produced. */
export interface StepResult {
  outcome: ValidationOutcome | MutationOutcome;
  /** Present when the step was asked to collect rule results (the caller records them). */
  rules: RuleRecord[];
}

/**
 * Runs steps elsewhere (the evaluation pool's worker threads). `tenant` is whose turn the job takes
 * (the request's namespace). A rejection means the step could not be evaluated in time: the handler
 * answers as when the deadline passes.
 */
export interface StepEvaluator {
  evaluate(job: StepJob, tenant: string): Promise<StepResult>;
  /** Parses a large review's text into its shell (see review-shell.ts); rejects as `evaluate` does. */
  parseReview?(text: string, remainingMs: number): Promise<ReviewParse>;
}

/** A job for `StepEvaluator`: the base engine request without what cannot leave this thread. */
export function stepJob(
  step: StepJob["step"],
  policies: readonly CachedPolicy[],
  base: EngineRequest,
  review: ParsedReview,
  subject: RequestSubject,
  times: { remainingMs: number; deadlineMs: number },
): StepJob {
  const { cache: _cache, contextLoader: _loader, ruleValues: _values, ...request } = base;
  return {
    step,
    policies: policies.map((p) => p.key),
    request,
    review,
    subject,
    remainingMs: times.remainingMs,
    deadlineMs: times.deadlineMs,
  };
}

/** A recorder that keeps the rule results as data, for a caller on another thread to record. */
function collectingRecorder(into: RuleRecord[]): RuleResultRecorder {
  return { record: (...args) => void into.push(args) };
}

/** Records collected rule results into the real recorder. */
export function replayRules(records: readonly RuleRecord[], recorder: RuleResultRecorder | undefined): void {
  if (recorder === undefined) return;
  for (const r of records) recorder.record(...r);
}

/**
 * The engine request of each policy: the base request with the policy's PolicyExceptions and, for
 * mutate, the object as the policies before it patched it.
 */
function requestsFor(
  cache: Pick<PolicyCache, "exceptionsFor">,
  base: EngineRequest,
): (policy: CachedPolicy, resource?: KubeObject) => EngineRequest {
  return (policy, resource) => {
    const exceptions = cache.exceptionsFor(policy);
    if (resource === undefined && exceptions.length === 0) return base;
    return { ...base, exceptions, ...(resource ? { resource } : {}) };
  };
}

/** Runs the validate or mutate step of `ctx` over `policies`. */
function runStep(
  engine: Engine,
  cache: Pick<PolicyCache, "exceptionsFor">,
  step: StepJob["step"],
  ctx: StepContext,
  policies: readonly CachedPolicy[],
  base: EngineRequest,
): ValidationOutcome | MutationOutcome {
  const requestFor = requestsFor(cache, base);
  return step === "mutate"
    ? runMutation(engine, ctx, policies, requestFor)
    : runValidation(engine, ctx, policies, requestFor);
}

/**
 * Runs a job against a policy cache of its own (an evaluation worker's): the policies the job names
 * that the cache holds, under a deadline `remainingMs` from now on `clock`, collecting rule results.
 * `stopped` tells whether the deadline stopped it (see `StepContext.stopped`).
 */
export function runJob(
  engine: Engine,
  cache: Pick<PolicyCache, "exceptionsFor" | "get">,
  clock: ServerClock,
  job: StepJob,
): StepResult & { stopped: boolean } {
  const now = clock.monotonic();
  const rules: RuleRecord[] = [];
  const ctx: StepContext = {
    review: job.review,
    subject: job.subject,
    clock,
    ruleMetrics: collectingRecorder(rules),
    deadline: now + job.remainingMs,
    deadlineMs: job.deadlineMs,
    now,
  };
  const policies: CachedPolicy[] = [];
  for (const key of job.policies) {
    const policy = cache.get(key);
    if (policy !== undefined) policies.push(policy);
  }
  const base: EngineRequest = {
    ...job.request,
    cache: createRequestCache(),
    deadline: clock.now() + job.remainingMs,
  };
  const outcome = runStep(engine, cache, job.step, ctx, policies, base);
  return { outcome, rules, stopped: ctx.stopped === true };
}

/**
 * The outcome of a step whose evaluation was abandoned at the deadline (its worker overran and was
 * replaced): as when the deadline passes before a policy, policies with failurePolicy Fail deny
 * (for validate, those that can enforce) and the others only warn.
 */
export function abandonedOutcome(
  step: StepJob["step"],
  policies: readonly CachedPolicy[],
  deadlineMs: number,
): ValidationOutcome | MutationOutcome {
  const left = unevaluated(step === "validate" ? policies.filter((p) => p.mayEnforce) : policies);
  const warnings =
    left.ignore.length > 0 ? [EvaluationMessages.deadlineWarning(deadlineMs, left.ignore)] : [];
  const denied = left.fail.length > 0;
  const message = denied ? EvaluationMessages.deadlineDeny(deadlineMs, left.fail) : undefined;
  if (step === "mutate")
    return denied
      ? { allowed: false, message, warnings: [], patch: [], responses: [] }
      : { allowed: true, warnings, patch: [], responses: [] };
  return denied
    ? { allowed: false, message, warnings: [], responses: [] }
    : { allowed: true, warnings, responses: [] };
}
