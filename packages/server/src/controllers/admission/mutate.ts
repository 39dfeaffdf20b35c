/**
 * The mutate webhook's answer: policies applied in order, each seeing the object as patched by the
 * ones before it; their RFC 6902 operations are concatenated into the response patch. A rule that
 * fails or errors denies under failurePolicy Fail and is passed over under Ignore.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { Engine, EngineRequest, PolicyResponse } from "@kyverno-ts/engine";
import type { CachedPolicy } from "../../policycache/policy-cache.js";
import { evaluate, pastDeadline, recordRules, type StepContext, unevaluated } from "./evaluation.js";
import {
  type BlockingRule,
  blockedMessage,
  EvaluationMessages,
  resourceName,
  ruleWarning,
} from "./messages.js";

/** What the mutate step decided. */
export interface MutationOutcome {
  allowed: boolean;
  message?: string;
  warnings: string[];
  /** RFC 6902 operations from the request object to the mutated object. */
  patch: JsonValue[];
  /** The responses of the policies with a matching mutate rule, for reports. */
  responses: PolicyResponse[];
}

/**
 * Applies the mutate rules of `policies` in order. With `emitWarning`, every applied rule is
 * reported as a warning (`policy <p>.<rule>: <message>`), as are passed-over failures.
 */
export function runMutation(
  engine: Engine,
  ctx: StepContext,
  policies: readonly CachedPolicy[],
  requestFor: (policy: CachedPolicy, resource: KubeObject) => EngineRequest,
): MutationOutcome {
  const blocking: BlockingRule[] = [];
  const warnings: string[] = [];
  const patch: JsonValue[] = [];
  const responses: PolicyResponse[] = [];
  let current = ctx.subject.object;
  let skipped: readonly CachedPolicy[] = [];
  for (let i = 0; i < policies.length; i++) {
    const policy = policies[i] as CachedPolicy;
    if (pastDeadline(ctx)) {
      skipped = policies.slice(i);
      ctx.stopped = true;
      break;
    }
    const request = requestFor(policy, current);
    const evaluated = evaluate(ctx, policy, "Mutation", engine.mutate, request);
    recordRules(ctx, evaluated, "mutate");
    const { response } = evaluated;
    if (response.rules.length > 0) responses.push(response);
    const name = policy.policy.metadata.name;
    const emit = policy.policy.spec.emitWarning;
    for (const rule of response.rules) {
      const failed = rule.status === "fail" || rule.status === "error";
      if (failed && policy.failurePolicy === "Fail")
        blocking.push({ policy: name, rule: rule.name, message: rule.message });
      else if (emit && (failed || rule.status === "pass"))
        warnings.push(ruleWarning(name, rule.name, rule.message));
    }
    const ops = response.patch ?? [];
    if (ops.length > 0 && response.patchedResource !== undefined) {
      patch.push(...ops);
      current = response.patchedResource as KubeObject;
    }
  }
  const { subject } = ctx;
  if (blocking.length > 0) {
    const message = blockedMessage(resourceName(subject.kind, subject.namespace, subject.name), blocking);
    return { allowed: false, message, warnings: [], patch: [], responses };
  }
  const left = unevaluated(skipped);
  if (left.fail.length > 0)
    return {
      allowed: false,
      message: EvaluationMessages.deadlineDeny(ctx.deadlineMs, left.fail),
      warnings: [],
      patch: [],
      responses,
    };
  if (left.ignore.length > 0) warnings.push(EvaluationMessages.deadlineWarning(ctx.deadlineMs, left.ignore));
  return { allowed: true, warnings, patch, responses };
}
