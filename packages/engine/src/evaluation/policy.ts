import type { JsonValue, PodSecurityExclude, PolicyException, Rule } from "@kyverno-ts/api";
import type { CompiledPolicyImpl, CompiledRule } from "../compile/compiled.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import { acceptsNamespace, exceptionsForRule } from "../exceptions/exceptions.js";
import type { Jmespath } from "../jmespath/index.js";
import { type MatchRequest, matchesRule, type RequestKind } from "../match/index.js";
import { exceptionSkipMessage, unsupportedRuleMessage } from "../response/messages.js";
import type { PolicyResponse, ResourceRef, RuleResponse } from "../response/types.js";
import { podSecurityOutcome } from "../validate/pod-security.js";
import { evaluateBlock, type Outcome, type ValidateEnv } from "../validate/validate-rule.js";
import { effectiveFailureAction } from "./failure-action.js";
import { generateRuleOutcome } from "./generate-rule.js";
import { type JsonContext, withValues } from "./json-context.js";
import type { EngineMemo } from "./memo.js";
import { type SharedSearches, sharedSearches } from "./request-cache.js";
import { requestContext } from "./request-context.js";
import { computeFacts, copyRef, matchRequestFor, requestFactsOf, resourceRef } from "./request-facts.js";
import { type Scope, substitute } from "./variables.js";

export { resourceRef } from "./request-facts.js";

/** What evaluating one policy needs from the engine. */
export interface PolicyEvalEnv {
  jp: Jmespath;
  memo: EngineMemo;
  exceptionNamespaces: readonly string[];
  loader: ContextLoader;
  now: number;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
}

function validateOutcome(
  compiled: CompiledRule,
  scope: Scope,
  req: EngineRequest,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
  extraExcludes: readonly PodSecurityExclude[],
): Outcome | undefined {
  const validation = compiled.validation;
  if (validation === undefined) return undefined;
  const ruleName = compiled.rule.name;
  if (validation.unsupported !== undefined) {
    return { status: "error", message: unsupportedRuleMessage(validation.unsupported) };
  }
  const object = (scope.isDelete ? (req.oldResource ?? req.resource) : req.resource) as unknown as JsonValue;
  const validateEnv: ValidateEnv = {
    ruleName,
    message: validation.message,
    passed: validation.passed,
    loader: env.loader,
    preset,
    resource: object,
    values: req.ruleValues?.(ruleName),
  };
  const podSecurity = validation.podSecurity;
  if (podSecurity) {
    // As pattern checks, Pod Security is not checked on a deleted resource (upstream skips it):
    // deleting a non-compliant Pod is never denied by it.
    if (scope.isDelete) return undefined;
    const exclude = [...(podSecurity.exclude ?? []), ...extraExcludes];
    validateEnv.handler = () => podSecurityOutcome(ruleName, podSecurity, object, exclude);
  }
  return evaluateBlock(scope, validation.block, validateEnv, env.memo.validatePaths, undefined, 0);
}

function properties(rule: Rule, base: JsonContext, env: PolicyEvalEnv): Record<string, string> | undefined {
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
    Object.entries(r.value).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
}

/** What match/exclude and the context need to know about a request, computed for one policy. */
export function requestFacts(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
  resource: ResourceRef,
): { gvk: RequestKind; namespaceLabels: Record<string, string> | undefined; matchReq: MatchRequest } {
  const facts = computeFacts(req, env.namespaceLabels, resource);
  return {
    gvk: facts.gvk,
    namespaceLabels: facts.namespaceLabels,
    matchReq: matchRequestFor(facts, policy.namespace),
  };
}

/** A response with no rule results yet, for a policy and a request. */
export function emptyResponse(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  return newResponse(policy, resourceRef(req), [], env.now);
}

/**
 * A response of `policy` with these parts, built in one literal per shape (optional fields absent,
 * not undefined), in the field order responses always had.
 */
function newResponse(
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

const NO_EXCEPTIONS: readonly PolicyException[] = Object.freeze([]);
const NO_EXCLUDES: readonly PodSecurityExclude[] = Object.freeze([]);

/** The request's PolicyExceptions that come from accepted namespaces. */
export function acceptedExceptions(req: EngineRequest, env: PolicyEvalEnv): readonly PolicyException[] {
  const exceptions = req.exceptions;
  if (exceptions === undefined || exceptions.length === 0) return NO_EXCEPTIONS;
  return exceptions.filter((e) => acceptsNamespace(env.exceptionNamespaces, e));
}

/** The top-level names set by `values` (`request.operation` → `request`), which context entries must not overwrite. */
export function presetNames(req: EngineRequest, env: PolicyEvalEnv): ReadonlySet<string> {
  const values = req.values;
  if (values === undefined) return env.memo.noNames;
  const names = new Set<string>();
  for (const k of Object.keys(values)) names.add(k.split(".")[0] ?? k);
  return names;
}

/**
 * Evaluates the validate rules of one compiled policy against one request, in rule order, honouring
 * match/exclude, a namespaced Policy's namespace, `applyRules: One` and the effective failure action.
 */
export function evaluatePolicy(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
  ruleKind: "validate" | "generate" = "validate",
): PolicyResponse {
  const ruleType = ruleKind === "validate" ? "Validation" : "Generation";
  const spec = policy.policy.spec;
  const facts = requestFactsOf(req, env.namespaceLabels);
  const resource = copyRef(facts.resource);
  if (req.background && !spec.background) return newResponse(policy, resource, [], env.now);
  if (policy.namespace !== undefined && resource.namespace !== policy.namespace)
    return newResponse(policy, resource, [], env.now);
  const { gvk, namespaceLabels } = facts;
  const matchReq = matchRequestFor(facts, policy.namespace);
  let base: JsonContext | undefined;
  let scope: Scope | undefined;
  // Built on the first result: most policies have one rule, and a literal fits it exactly.
  let rules: RuleResponse[] | undefined;
  const exceptions = acceptedExceptions(req, env);
  const policyKey = policy.key;
  const preset = presetNames(req, env);
  const isDelete = req.operation === "DELETE";
  for (const compiled of policy.rulesFor(matchReq.kind)) {
    const { rule, mayMatchKind } = compiled;
    // verifyImages rules have a validation too: it reports them as unsupported (see compileValidation).
    if (ruleKind === "validate" ? compiled.validation === undefined : rule[ruleKind] === undefined) continue;
    if (req.background && compiled.admissionOnly) continue;
    if (!mayMatchKind(matchReq)) continue;
    if (!matchesRule(rule.match, rule.exclude, matchReq, env.memo.kindSelectors)) continue;
    if (base === undefined || scope === undefined) {
      const shared = sharedSearches(req, gvk, policy.usesImages);
      const ctx = shared?.ctx ?? requestContext(req, gvk, policy.usesImages);
      base = withValues(ctx, req.values);
      const searches: SharedSearches | undefined = base === ctx ? shared : undefined;
      scope = { jp: env.jp, ctx: base, isDelete, memo: env.memo, searches };
    }
    const action = effectiveFailureAction(
      compiled.failureAction,
      compiled.failureActionOverrides,
      resource.namespace,
      namespaceLabels,
    );
    let podSecurityExcludes = NO_EXCLUDES;
    if (exceptions.length > 0) {
      const exceptionScope = { jp: env.jp, ctx: base, isDelete, memo: env.memo };
      const found = exceptionsForRule(
        exceptions,
        policyKey,
        rule.name,
        matchReq,
        exceptionScope,
        req.background ?? false,
      );
      if (found.skipping.length > 0) {
        const keys = found.skipping.map((e) => `${e.namespace}/${e.name}`);
        const skipped: RuleResponse = {
          name: rule.name,
          type: rule.verifyImages === undefined ? ruleType : "ImageVerify",
          status: "skip",
          message: exceptionSkipMessage(keys),
          failureAction: action,
          properties: { exceptions: found.skipping.map((e) => e.name).join(",") },
          exception: found.skipping[0] as { namespace: string; name: string },
        };
        if (rules === undefined) rules = [skipped];
        else rules.push(skipped);
        if (spec.applyRules === "One") break;
        continue;
      }
      podSecurityExcludes = found.podSecurity;
    }
    const generated =
      ruleKind === "generate"
        ? generateRuleOutcome(
            rule,
            base,
            req,
            env,
            preset,
            { name: policy.policy.metadata.name, namespace: policy.namespace ?? "" },
            resource,
          )
        : undefined;
    const outcome = generated ?? validateOutcome(compiled, scope, req, env, preset, podSecurityExcludes);
    if (!outcome) continue;
    const props = properties(rule, base, env);
    const r: RuleResponse = {
      name: rule.name,
      type: rule.verifyImages === undefined ? ruleType : "ImageVerify",
      status: outcome.status,
      message: outcome.message,
      failureAction: action,
    };
    if (props) r.properties = props;
    if (generated && rule.generate) {
      r.generated = generated.generated;
      r.synchronize = rule.generate.synchronize ?? false;
      r.orphanDownstreamOnPolicyDelete = rule.generate.orphanDownstreamOnPolicyDelete ?? false;
      r.generateExisting = rule.generate.generateExisting ?? spec.generateExisting ?? false;
    }
    if (rules === undefined) rules = [r];
    else rules.push(r);
    if (spec.applyRules === "One" && outcome.status !== "skip") break;
  }
  return newResponse(policy, resource, rules ?? [], env.now);
}
