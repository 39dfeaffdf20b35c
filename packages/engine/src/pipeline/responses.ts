/** How responses are built: one literal per shape, in the field order responses always had. */
import type { FailureAction, JsonValue, Rule } from "@kyverno-ts/api";
import type { CompiledPolicyImpl } from "../compile/compiled.js";
import type { EngineRequest } from "../engine-types.js";
import type { JsonContext } from "../evaluation/json-context.js";
import { resourceRef } from "../evaluation/request-facts.js";
import { substitute } from "../evaluation/variables.js";
import type { ExceptionRef } from "../exceptions/exceptions.js";
import { exceptionSkipMessage } from "../response/messages.js";
import type { PolicyResponse, ResourceRef, RuleResponse, RuleType } from "../response/types.js";
import type { PolicyEvalEnv } from "./env.js";

/** A response of `policy` about `resource` with these rules (optional fields absent, not undefined). */
export function newResponse(
  policy: CompiledPolicyImpl,
  resource: ResourceRef,
  rules: RuleResponse[],
  timestamp: number,
): PolicyResponse {
  const { kind, metadata, spec } = policy.policy;
  const name: PolicyResponse["policy"] =
    policy.namespace === undefined
      ? { kind, name: metadata.name }
      : { kind, name: metadata.name, namespace: policy.namespace };
  const { category, severity } = policy;
  const background = spec.background;
  if (category === undefined) {
    return severity === undefined
      ? { policy: name, resource, rules, background, timestamp }
      : { policy: name, resource, rules, background, timestamp, severity };
  }
  return severity === undefined
    ? { policy: name, resource, rules, background, timestamp, category }
    : { policy: name, resource, rules, background, timestamp, category, severity };
}

/** A response with no rule results yet, for a policy and a request. */
export function emptyResponse(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  return newResponse(policy, resourceRef(req), [], env.now);
}

/** The `skip` of a rule a PolicyException exempts, for every rule type alike. */
export function exceptionSkip(
  rule: Rule,
  type: RuleType,
  failureAction: FailureAction,
  skipping: readonly ExceptionRef[],
): RuleResponse {
  return {
    name: rule.name,
    type,
    status: "skip",
    message: exceptionSkipMessage(skipping.map((e) => `${e.namespace}/${e.name}`)),
    failureAction,
    properties: { exceptions: skipping.map((e) => e.name).join(",") },
    exception: skipping[0] as ExceptionRef,
  };
}

/** The rule's `reportProperties` with variables substituted (as written when they do not resolve). */
export function reportProperties(
  rule: Rule,
  base: JsonContext,
  env: PolicyEvalEnv,
): Record<string, string> | undefined {
  if (!rule.reportProperties) return undefined;
  const r = substitute(
    { jp: env.jp, ctx: base, isDelete: false, memo: env.memo },
    rule.reportProperties,
    "/reportProperties",
    "lenient",
  );
  if (!r.ok || r.value === null || typeof r.value !== "object" || Array.isArray(r.value))
    return rule.reportProperties;
  return Object.fromEntries(
    Object.entries(r.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v as JsonValue)]),
  );
}
