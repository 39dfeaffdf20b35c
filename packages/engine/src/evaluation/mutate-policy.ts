import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import type { CompiledPolicyImpl } from "../compile/compiled.js";
import type { EngineRequest } from "../engine-types.js";
import { exceptionsForRule } from "../exceptions/exceptions.js";
import { matchesRule } from "../match/index.js";
import { diffJson6902, jsonEqual } from "../mutate/index.js";
import { exceptionSkipMessage } from "../response/messages.js";
import type { PolicyResponse, RuleResponse } from "../response/types.js";
import { withValues } from "./json-context.js";
import { applyMutation, prepareRule } from "./mutate-rule.js";
import {
  acceptedExceptions,
  emptyResponse,
  type PolicyEvalEnv,
  presetNames,
  requestFacts,
  resourceRef,
} from "./policy.js";
import { requestContext } from "./request-context.js";

/** Message of a mutate rule that changed the resource. */
function mutatedMessage(resource: KubeObject): string {
  const ns = resource.metadata?.namespace;
  return `mutated ${resource.kind ?? ""}/${resource.metadata?.name ?? ""}${ns ? ` in namespace ${ns}` : ""}`;
}

/**
 * Applies the mutate rules of a policy in order, each seeing the resource as patched by the rules
 * before it. A rule that changes nothing is `skip`. The response carries the patched resource and
 * the RFC 6902 patch from the original (what an admission webhook returns).
 */
export function mutatePolicy(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  const response = emptyResponse(policy, req, env);
  const original = req.resource as unknown as JsonValue;
  let current = original;
  if (!(req.background && !policy.policy.spec.background) && req.operation !== "DELETE") {
    const exceptions = acceptedExceptions(req, env);
    const preset = presetNames(req, env);
    // What the rules see of the request, recomputed only after a rule changed the resource.
    let seen:
      | { resource: JsonValue; subReq: EngineRequest; facts: ReturnType<typeof requestFacts> }
      | undefined;
    for (const { rule, mayMatchKind } of policy.rules) {
      const mutation = rule.mutate;
      if (!mutation || (mutation.targets && mutation.targets.length > 0)) continue;
      if (seen?.resource !== current) {
        const subReq = { ...req, resource: current as KubeObject };
        const ref = resourceRef(subReq);
        if (policy.namespace !== undefined && ref.namespace !== policy.namespace) break;
        seen = { resource: current, subReq, facts: requestFacts(policy, subReq, env, ref) };
      }
      const { subReq } = seen;
      const { gvk, matchReq } = seen.facts;
      if (!mayMatchKind(matchReq) || !matchesRule(rule.match, rule.exclude, matchReq, env.memo.kindSelectors))
        continue;
      const base = withValues(requestContext(subReq, gvk, policy.usesImages), req.values);
      const scope = { jp: env.jp, ctx: base, isDelete: false, memo: env.memo };
      const r: RuleResponse = {
        name: rule.name,
        type: "Mutation",
        status: "pass",
        message: "",
        failureAction: "Audit",
      };
      if (exceptions.length > 0) {
        const found = exceptionsForRule(
          exceptions,
          policy.key,
          rule.name,
          matchReq,
          scope,
          req.background ?? false,
        );
        if (found.skipping.length > 0) {
          r.status = "skip";
          r.message = exceptionSkipMessage(found.skipping.map((e) => `${e.namespace}/${e.name}`));
          r.exception = found.skipping[0] as { namespace: string; name: string };
          response.rules.push(r);
          continue;
        }
      }
      const prepared = prepareRule(scope, rule, env, preset, req.ruleValues?.(rule.name));
      const step = "status" in prepared ? prepared : applyMutation(prepared, mutation, current, env, preset);
      if (step.status === "applied") {
        if (jsonEqual(step.resource, current)) {
          r.status = "skip";
          r.message = "no patches applied";
        } else {
          current = step.resource;
          r.message = mutatedMessage(current as KubeObject);
        }
      } else {
        r.status = step.status;
        r.message = step.message;
      }
      response.rules.push(r);
      if (policy.policy.spec.applyRules === "One" && r.status !== "skip") break;
    }
  }
  response.patchedResource = current;
  response.patch = diffJson6902(original, current);
  return response;
}
