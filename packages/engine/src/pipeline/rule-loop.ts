/**
 * The one rule loop every rule type runs through (upstream's `invokeRuleHandler`): the background and
 * namespace gates, match/exclude, PolicyExceptions, context entries and preconditions, then the rule
 * type's handler, and the response assembly, honouring `applyRules: One`. A handler whose rule
 * changes the resource (mutate) hands the changed resource to the rules after it.
 */
import type { JsonValue, KubeObject, PodSecurityExclude } from "@kyverno-ts/api";
import { createBudget } from "../budget/budget.js";
import type { CompiledPolicyImpl } from "../compile/compiled.js";
import type { EngineRequest } from "../engine-types.js";
import { effectiveFailureAction } from "../evaluation/failure-action.js";
import { type JsonContext, withValues } from "../evaluation/json-context.js";
import { ended, prepare } from "../evaluation/prepare.js";
import { type RequestFacts, type SharedSearches, sharedSearches } from "../evaluation/request-cache.js";
import { requestContext } from "../evaluation/request-context.js";
import {
  computeFacts,
  copyRef,
  matchRequestFor,
  requestFactsOf,
  resourceRef,
} from "../evaluation/request-facts.js";
import type { Scope } from "../evaluation/variables.js";
import { exceptionsForRule } from "../exceptions/exceptions.js";
import { matchesRule } from "../match/index.js";
import type { PolicyResponse, ResourceRef, RuleResponse } from "../response/types.js";
import { acceptedExceptions, type PolicyEvalEnv, presetNames } from "./env.js";
import type { HandlerOutcome, RuleHandler } from "./handler.js";
import { exceptionSkip, newResponse, reportProperties, ruleResponse } from "./responses.js";
import { budgetAbort, deadlinePassed, policyApplies } from "./steps.js";

const NO_EXCLUDES: readonly PodSecurityExclude[] = Object.freeze([]);

/** Runs the rules of `policy` that `handler` evaluates against one request. */
export function runRules(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
  handler: RuleHandler,
): PolicyResponse {
  const spec = policy.policy.spec;
  let facts: RequestFacts = requestFactsOf(req, env.namespaceLabels);
  const resource = copyRef(facts.resource);
  const original = req.resource as unknown as JsonValue;
  let current = original;
  // Built on the first result: most policies have one rule, and a literal fits it exactly.
  let rules: RuleResponse[] | undefined;
  if (!policyApplies(req, policy, resource.namespace) || handler.skips?.(req))
    return finish(policy, resource, rules, env, handler, original, current);

  let request = req;
  let matchReq = matchRequestFor(facts, policy.namespace);
  const isDelete = req.operation === "DELETE";
  let base: JsonContext | undefined;
  let searches: SharedSearches | undefined;
  const exceptions = acceptedExceptions(req, env);
  const preset = presetNames(req, env);
  for (const compiled of policy.rulesFor(matchReq.kind)) {
    const { rule } = compiled;
    if (!handler.handles(compiled)) continue;
    if (req.background && compiled.admissionOnly) continue;
    if (!compiled.mayMatchKind(matchReq)) continue;
    if (!matchesRule(rule.match, rule.exclude, matchReq, env.memo.kindSelectors)) continue;
    if (base === undefined) {
      const shared = sharedSearches(request, facts.gvk, policy.usesImages);
      const ctx = shared?.ctx ?? requestContext(request, facts.gvk, policy.usesImages);
      base = withValues(ctx, req.values);
      searches = base === ctx ? shared : undefined;
    }
    const type = handler.typeOf?.(compiled) ?? handler.type;
    const failureAction = handler.failureActions
      ? effectiveFailureAction(
          compiled.failureAction,
          compiled.failureActionOverrides,
          resource.namespace,
          facts.namespaceLabels,
        )
      : "Audit";
    let podSecurityExcludes = NO_EXCLUDES;
    let podSecurityExceptions: string | undefined;
    if (exceptions.length > 0) {
      const exceptionScope = { jp: env.jp, ctx: base, isDelete, memo: env.memo };
      const found = exceptionsForRule(
        exceptions,
        policy.key,
        rule.name,
        matchReq,
        exceptionScope,
        req.background ?? false,
      );
      if (found.skipping.length > 0) {
        const skipped = exceptionSkip({ name: rule.name, type, failureAction }, found.skipping);
        if (rules === undefined) rules = [skipped];
        else rules.push(skipped);
        if (spec.applyRules === "One") break;
        continue;
      }
      podSecurityExcludes = found.podSecurity;
      if (found.podSecurityFrom.length > 0 && rule.validate?.podSecurity !== undefined)
        podSecurityExceptions = found.podSecurityFrom.map((e) => e.name).join(",");
    }
    const budget = createBudget({ limits: env.limits, deadline: env.deadline, now: env.readNow });
    // Rules left when the deadline has passed are not started; a running one stops at its next check.
    let outcome: HandlerOutcome | undefined = deadlinePassed(budget.expired());
    if (outcome === undefined) {
      try {
        // The rule's scope: the request's context and searches, and this rule's budget.
        const scope: Scope = { jp: env.jp, ctx: base, isDelete, memo: env.memo, searches, budget };
        const prepared = prepare(
          scope,
          rule,
          env.loader,
          preset,
          env.memo.rulePaths,
          req.ruleValues?.(rule.name),
        );
        outcome = ended(prepared)
          ? prepared
          : handler.process({
              rule: compiled,
              scope: prepared,
              req: request,
              env,
              preset,
              policy,
              resource,
              podSecurityExcludes,
            });
      } catch (thrown) {
        // The budget's abort ends this rule only, as an error result (failurePolicy decides).
        outcome = budgetAbort(thrown);
      }
    }
    if (outcome === undefined) continue;
    const props = reportProperties(rule, base, env);
    const own = outcome.properties;
    let properties = props || own ? { ...props, ...own } : undefined;
    // Exceptions that exempted Pod Security controls are named in the report, as upstream does.
    if (podSecurityExceptions !== undefined && outcome.status !== "error")
      properties = { ...properties, exceptions: podSecurityExceptions };
    const r = ruleResponse(rule.name, type, outcome, failureAction, properties);
    if (handler.extras) Object.assign(r, handler.extras(compiled, spec, outcome));
    if (rules === undefined) rules = [r];
    else rules.push(r);
    if (outcome.resource !== undefined && outcome.resource !== current) {
      // The rules after this one see the changed resource: its request, facts and context anew.
      current = outcome.resource;
      request = { ...req, resource: current as unknown as KubeObject };
      const ref = resourceRef(request);
      if (policy.namespace !== undefined && ref.namespace !== policy.namespace) break;
      facts = computeFacts(request, env.namespaceLabels, ref);
      matchReq = matchRequestFor(facts, policy.namespace);
      base = undefined;
      searches = undefined;
    }
    if (spec.applyRules === "One" && outcome.status !== "skip") break;
  }
  return finish(policy, resource, rules, env, handler, original, current);
}

/** The policy's response with its rules' results (a plain function: no closure per policy). */
function finish(
  policy: CompiledPolicyImpl,
  resource: ResourceRef,
  rules: RuleResponse[] | undefined,
  env: PolicyEvalEnv,
  handler: RuleHandler,
  original: JsonValue,
  current: JsonValue,
): PolicyResponse {
  const response = newResponse(policy, resource, rules ?? [], env.now);
  return handler.finish ? handler.finish(response, original, current) : response;
}
