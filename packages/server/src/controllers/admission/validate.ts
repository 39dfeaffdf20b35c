/**
 * The validate webhook's decision: failures of Enforce rules deny with upstream's message, and so do
 * errors of Enforce rules in failurePolicy Fail policies; Audit rules never block (warnings with
 * `emitWarning`); on UPDATE a rule the old object already violated does not block
 * (`allowExistingViolations`).
 */
import type { Engine, EngineRequest, PolicyResponse, RuleResponse } from "@kyverno-ts/engine";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import {
  type Evaluated,
  evaluate,
  pastDeadline,
  recordRules,
  type StepContext,
  unevaluated,
} from "./evaluation.js";
import {
  type BlockingRule,
  blockedMessage,
  EvaluationMessages,
  resourceName,
  ruleWarning,
} from "./messages.js";

/** What the validate step decided. */
export interface ValidationOutcome {
  allowed: boolean;
  /** The denial message when not allowed. */
  message?: string;
  warnings: string[];
  /** Responses of every evaluated policy, for reports. */
  responses: PolicyResponse[];
}

/** Whether a rule (autogen rules carry their origin's `validate`) lets existing violations through (default true). */
function allowsExistingViolations(policy: CachedPolicy, ruleName: string): boolean {
  const rule = policy.compiled.rules.find((r) => r.name === ruleName)?.rule;
  return rule?.validate?.allowExistingViolations !== false;
}

const blocks = (rule: RuleResponse): boolean => rule.status === "fail" && rule.failureAction === "Enforce";

/**
 * On UPDATE, an Enforce failure the old object also had becomes `skip` (upstream's message), unless
 * the rule sets `allowExistingViolations: false`. The old object is only evaluated when needed.
 */
function forgiveExistingViolations(
  engine: Engine,
  ctx: StepContext,
  evaluated: Evaluated,
  request: EngineRequest,
): void {
  const oldObject = ctx.review.oldObject;
  if (ctx.review.request.operation !== "UPDATE" || oldObject === undefined) return;
  const candidates = evaluated.response.rules.filter(
    (r) => blocks(r) && allowsExistingViolations(evaluated.policy, r.name),
  );
  if (candidates.length === 0) return;
  const before = evaluate(ctx, evaluated.policy, "Validation", engine.validate, {
    ...request,
    resource: oldObject,
  });
  for (const rule of candidates) {
    const old = before.response.rules.find((r) => r.name === rule.name);
    if (old?.status === "fail") {
      rule.status = "skip";
      rule.message = EvaluationMessages.existingViolation;
    }
  }
}

/**
 * Evaluates the validate rules of `policies` in order and decides the answer. Stops at the deadline:
 * policies left with failurePolicy Fail deny, those with Ignore only warn.
 */
export function runValidation(
  engine: Engine,
  ctx: StepContext,
  policies: readonly CachedPolicy[],
  requestFor: (policy: CachedPolicy) => EngineRequest,
): ValidationOutcome {
  const blocking: BlockingRule[] = [];
  const warnings: string[] = [];
  const responses: PolicyResponse[] = [];
  let skipped: readonly CachedPolicy[] = [];
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CachedPolicy;
    if (pastDeadline(ctx)) {
      skipped = policies.slice(i);
      ctx.stopped = true;
      break;
    }
    const request = requestFor(policy);
    const evaluated = evaluate(ctx, policy, "Validation", engine.validate, request);
    forgiveExistingViolations(engine, ctx, evaluated, request);
    recordRules(ctx, evaluated, "validate");
    const { response } = evaluated;
    if (response.rules.length > 0) responses.push(response);
    const name = policy.policy.metadata.name;
    for (const rule of response.rules) {
      const blockingError =
        rule.status === "error" && rule.failureAction === "Enforce" && policy.failurePolicy === "Fail";
      if (blocks(rule) || blockingError) {
        blocking.push({ policy: name, rule: rule.name, message: rule.message });
      } else if (
        policy.policy.spec.emitWarning &&
        (rule.status === "fail" || rule.status === "error" || rule.status === "warn")
      ) {
        warnings.push(ruleWarning(name, rule.name, rule.message));
      }
    }
  }
  const { subject } = ctx;
  if (blocking.length > 0) {
    const message = blockedMessage(resourceName(subject.kind, subject.namespace, subject.name), blocking);
    return { allowed: false, message, warnings: [], responses };
  }
  if (skipped.length === 0) return { allowed: true, warnings, responses };
  // Policies that can only audit never block, whether or not they were evaluated in time.
  const left = unevaluated(skipped.filter((p) => p.mayEnforce));
  if (left.fail.length > 0)
    return {
      allowed: false,
      message: EvaluationMessages.deadlineDeny(ctx.deadlineMs, left.fail),
      warnings: [],
      responses,
    };
  if (left.ignore.length > 0) warnings.push(EvaluationMessages.deadlineWarning(ctx.deadlineMs, left.ignore));
  return { allowed: true, warnings, responses };
}
