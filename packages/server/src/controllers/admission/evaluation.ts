/**
 * What the validate and mutate steps share: the per-request context, evaluating one policy without
 * letting an engine failure escape, the deadline, and rule metrics.
 */
import type { CompiledPolicy, EngineRequest, PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { RuleResultRecorder } from "../../metrics/metrics.js";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import { EvaluationMessages } from "./messages.js";
import type { RequestSubject } from "./request.js";
import type { ParsedReview } from "./review.js";

/** Everything a step needs about one admission request. */
export interface StepContext {
  review: ParsedReview;
  subject: RequestSubject;
  clock: ServerClock;
  /** Records the request's rule results; undefined without metrics. */
  ruleMetrics: RuleResultRecorder | undefined;
  /** Monotonic time after which no further policy is evaluated. */
  deadline: number;
  /**
   * The latest monotonic time read for this request (set when the context is built, then at the end
   * of every evaluation), so each policy costs one clock read.
   */
  now: number;
  /** The per-request budget in milliseconds (for messages). */
  deadlineMs: number;
  /**
   * Set once the deadline stopped the step: a policy was left unevaluated, or one ended past the
   * deadline with an `error` rule (the engine stops a rule at the deadline as `error`).
   */
  stopped?: boolean;
}

/** A policy's response and how long it took. */
export interface Evaluated {
  policy: CachedPolicy;
  response: PolicyResponse;
  elapsedMs: number;
}

/** A response standing for a policy whose evaluation threw: one `error` rule, so failurePolicy applies. */
function errorResponse(
  ctx: StepContext,
  policy: CachedPolicy,
  error: unknown,
  type: RuleResponse["type"],
): PolicyResponse {
  const { subject } = ctx;
  const object = subject.object;
  return {
    policy: {
      kind: policy.policy.kind,
      name: policy.policy.metadata.name,
      ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
    },
    resource: {
      apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
      kind: subject.kind,
      name: subject.name,
      namespace: subject.namespace,
      uid: typeof object.metadata?.uid === "string" ? object.metadata.uid : "",
    },
    rules: [
      {
        name: EvaluationMessages.policyErrorRule,
        type,
        status: "error",
        message: EvaluationMessages.engineError(error),
        failureAction: policy.policy.spec.validationFailureAction,
      },
    ],
    background: policy.policy.spec.background,
    timestamp: ctx.clock.now(),
  };
}

/**
 * Runs one engine call (`engine.validate` or `engine.mutate`, passed as is: no closure per policy on
 * the hot path), timing it; a throw becomes an `error` response instead of escaping.
 */
export function evaluate(
  ctx: StepContext,
  policy: CachedPolicy,
  type: RuleResponse["type"],
  run: (compiled: CompiledPolicy, request: EngineRequest) => PolicyResponse,
  request: EngineRequest,
): Evaluated {
  const start = ctx.now;
  let response: PolicyResponse;
  try {
    response = run(policy.compiled, request);
  } catch (error) {
    response = errorResponse(ctx, policy, error, type);
  }
  ctx.now = ctx.clock.monotonic();
  if (ctx.now > ctx.deadline && response.rules.some((r) => r.status === "error")) ctx.stopped = true;
  return { policy, response, elapsedMs: ctx.now - start };
}

/**
 * True when the deadline has passed (as of the end of the last evaluation): the remaining policies
 * are answered per their failure policy.
 */
export function pastDeadline(ctx: StepContext): boolean {
  return ctx.now > ctx.deadline;
}

/**
 * Records `kyverno_policy_results_total` and `kyverno_policy_execution_duration_seconds` for each rule
 * of a response. The engine times policies, not rules, so a policy's time is split evenly across its
 * rule results (sums per policy stay exact).
 */
export function recordRules(ctx: StepContext, evaluated: Evaluated, ruleType: "validate" | "mutate"): void {
  const recorder = ctx.ruleMetrics;
  const rules = evaluated.response.rules;
  if (recorder === undefined || rules.length === 0) return;
  const seconds = evaluated.elapsedMs / 1000 / rules.length;
  const labels = evaluated.policy.labels;
  for (const rule of rules) {
    const mode =
      ruleType === "validate"
        ? rule.failureAction === "Enforce"
          ? "enforce"
          : "audit"
        : labels.validationMode;
    recorder.record(labels, rule.name, rule.status, mode, ruleType, seconds);
  }
}

/** Splits policies left unevaluated at the deadline by failure policy. */
export function unevaluated(policies: readonly CachedPolicy[]): { fail: string[]; ignore: string[] } {
  const fail: string[] = [];
  const ignore: string[] = [];
  for (const p of policies) (p.failurePolicy === "Fail" ? fail : ignore).push(p.key);
  return { fail, ignore };
}
