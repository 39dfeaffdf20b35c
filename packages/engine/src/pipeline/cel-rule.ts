/**
 * The rule pipeline of the CEL policy kinds (ValidatingPolicy, MutatingPolicy, GeneratingPolicy,
 * DeletingPolicy, ImageValidatingPolicy and Kubernetes' admission policies): a CEL policy is one rule,
 * run through the steps every rule shares (`steps.ts`, `responses.ts`) — the background and namespace
 * gates, match (constraints and conditions) and PolicyExceptions (`cel-policies/prepare.ts`), the
 * evaluation budget and deadline, then the kind's handler and the response assembly.
 */
import type { FailureAction, JsonValue } from "@kyverno-ts/api";
import type { CompiledCelPolicyImpl } from "../cel-policies/compile.js";
import { type CelEvalEnv, prepareCel } from "../cel-policies/prepare.js";
import { requestTarget } from "../cel-policies/request.js";
import type { EngineRequest } from "../engine-types.js";
import { resourceRef } from "../evaluation/request-facts.js";
import type { PolicyResponse, RuleResponse } from "../response/types.js";
import type { CelOutcome, CelRuleHandler } from "./handler.js";
import { type ExemptedRule, exceptionSkip, newResponse, ruleResponse } from "./responses.js";
import { deadlinePassed, NEVER_EXPIRED, policyApplies } from "./steps.js";

/**
 * The name of a CEL policy's results, as upstream's: a GeneratingPolicy's are named after the policy
 * (the exceptions guide's GeneratingPolicy report: `rule: generate-configmap`), the other kinds'
 * after no rule.
 */
function ruleName(policy: CompiledCelPolicyImpl, handler: CelRuleHandler): string {
  return handler.type === "Generation" ? policy.name : "";
}

/**
 * The result of a PolicyException that exempts the policy, as upstream reports it (the exceptions
 * guide): a validating kind's is rule `exception`; a GeneratingPolicy's is named after the policy,
 * without a message.
 */
function exemptedRule(
  policy: CompiledCelPolicyImpl,
  handler: CelRuleHandler,
  failureAction: FailureAction,
  pass: boolean,
): ExemptedRule {
  const validating = policy.type === "validate" || policy.type === "imageValidate";
  const generating = handler.type === "Generation";
  return {
    name: validating && !generating ? "exception" : ruleName(policy, handler),
    type: handler.type,
    failureAction,
    status: pass ? "pass" : "skip",
    message: !generating,
  };
}

/** Whether a handler gave several results (most kinds give one). */
function isList(outcomes: CelOutcome | readonly CelOutcome[]): outcomes is readonly CelOutcome[] {
  return Array.isArray(outcomes);
}

/** Adds the response of one of the handler's results; the resource the result changed, if any. */
function addResult(
  rules: RuleResponse[],
  policy: CompiledCelPolicyImpl,
  handler: CelRuleHandler,
  outcome: CelOutcome,
  failureAction: FailureAction,
): JsonValue | undefined {
  const name = ruleName(policy, handler);
  const r = ruleResponse(
    name,
    handler.type,
    outcome,
    outcome.failureAction ?? failureAction,
    outcome.properties,
  );
  if (handler.extras) Object.assign(r, handler.extras(policy, outcome));
  rules.push(r);
  return outcome.resource;
}

/** Runs a CEL policy, as one rule, against one request with the kind's handler. */
export function runCelRule(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
  handler: CelRuleHandler,
): PolicyResponse {
  const now = env.now();
  const rules: RuleResponse[] = [];
  const response = newResponse(policy, resourceRef(req), rules, now.getTime());
  const target = requestTarget(req);
  if (!policyApplies(req, policy, target.namespace)) return response;
  // The CEL session counts the cost itself: the pipeline's part of the budget is the deadline.
  const deadline = req.deadline;
  const expired = deadline === undefined ? NEVER_EXPIRED : () => env.readNow() > deadline;
  const prepared = prepareCel(policy, req, env, { target, now, expired });
  if (prepared.kind === "unmatched") return response;
  const failureAction: FailureAction = policy.enforce ? "Enforce" : "Audit";
  if (prepared.kind === "exempt") {
    rules.push(
      exceptionSkip(exemptedRule(policy, handler, failureAction, prepared.pass), [prepared.exception]),
    );
    return response;
  }
  if (prepared.kind === "error" || policy.unsupported !== undefined) {
    const message = prepared.kind === "error" ? prepared.message : (policy.unsupported as string);
    addResult(rules, policy, handler, { status: "error", message }, failureAction);
    return response;
  }
  const input = { policy, prepared: prepared.prepared, req, target, env };
  // A policy left when the deadline has passed is not started. Nothing in it throws the budget's
  // abort: the CEL session reports its cost limit and the deadline as the expressions' errors.
  const outcomes = deadlinePassed(expired()) ?? handler.process(input);
  if (outcomes === undefined) return response;
  let patched: JsonValue | undefined;
  if (isList(outcomes)) {
    for (const outcome of outcomes)
      patched = addResult(rules, policy, handler, outcome, failureAction) ?? patched;
  } else patched = addResult(rules, policy, handler, outcomes, failureAction);
  return handler.finish ? handler.finish(response, req.resource as unknown as JsonValue, patched) : response;
}
