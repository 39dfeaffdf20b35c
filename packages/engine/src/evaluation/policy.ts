import type { JsonValue, PodSecurityExclude, PolicyException, Rule } from "@kyverno-ts/api";
import type { CompiledPolicyImpl, CompiledRule } from "../compile/compiled.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import { acceptsNamespace, exceptionsForRule } from "../exceptions/exceptions.js";
import type { Jmespath } from "../jmespath/index.js";
import { matchesRule, resourceGvk } from "../match/index.js";
import { exceptionSkipMessage, unsupportedRuleMessage } from "../response/messages.js";
import type { PolicyResponse, ResourceRef, RuleResponse } from "../response/types.js";
import { podSecurityOutcome } from "../validate/pod-security.js";
import { evaluateBlock, type Outcome } from "../validate/validate-rule.js";
import { effectiveFailureAction } from "./failure-action.js";
import { generateRuleOutcome } from "./generate-rule.js";
import { type JsonContext, withValues } from "./json-context.js";
import type { EngineMemo } from "./memo.js";
import { requestContext } from "./request-context.js";
import { substitute } from "./variables.js";

/** What evaluating one policy needs from the engine. */
export interface PolicyEvalEnv {
  jp: Jmespath;
  memo: EngineMemo;
  exceptionNamespaces: readonly string[];
  loader: ContextLoader;
  now: number;
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
}

/** The reference of the resource a request is about (the old object on DELETE). */
export function resourceRef(req: EngineRequest): ResourceRef {
  const obj = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  return {
    apiVersion: obj.apiVersion ?? "",
    kind: obj.kind ?? "",
    name: obj.metadata?.name ?? "",
    namespace: obj.metadata?.namespace ?? "",
    uid: typeof obj.metadata?.uid === "string" ? obj.metadata.uid : "",
  };
}

function validateOutcome(
  rule: Rule,
  base: JsonContext,
  req: EngineRequest,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
  extraExcludes: readonly PodSecurityExclude[],
): Outcome | undefined {
  const validation = rule.validate;
  if (!validation) return undefined;
  const scope = { jp: env.jp, ctx: base, isDelete: req.operation === "DELETE", memo: env.memo };
  const object = (req.operation === "DELETE"
    ? (req.oldResource ?? req.resource)
    : req.resource) as unknown as JsonValue;
  const ruleValues = req.ruleValues?.(rule.name);
  const validateEnv = {
    ruleName: rule.name,
    message: validation.message,
    loader: env.loader,
    preset,
    resource: object,
    ...(ruleValues ? { values: ruleValues } : {}),
  };
  const block = {
    ...validation,
    ...(rule.context ? { context: rule.context } : {}),
    ...(rule.preconditions ? { preconditions: rule.preconditions } : {}),
  };
  if (validation.cel || validation.manifests) {
    const feature = validation.cel ? "validate.cel" : "validate.manifests";
    return { status: "error", message: unsupportedRuleMessage(rule.name, feature) };
  }
  const podSecurity = validation.podSecurity;
  if (podSecurity) {
    const exclude = [...(podSecurity.exclude ?? []), ...extraExcludes];
    return evaluateBlock(
      scope,
      block,
      { ...validateEnv, handler: () => podSecurityOutcome(rule.name, podSecurity, object, exclude) },
      "/validate",
      undefined,
      0,
    );
  }
  return evaluateBlock(scope, block, validateEnv, "/validate", undefined, 0);
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

/** What match/exclude and the context need to know about a request, computed once per policy. */
export function requestFacts(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
  resource: ResourceRef,
) {
  const subject = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  const gvk = req.requestKind
    ? { ...req.requestKind, subresource: req.subresource ?? "" }
    : resourceGvk(subject);
  // A Namespace has no namespace labels: upstream never applies namespaceSelector to it.
  const namespaceLabels =
    resource.kind === "Namespace"
      ? undefined
      : (req.namespaceLabels ?? (resource.namespace ? env.namespaceLabels(resource.namespace) : undefined));
  const matchReq = {
    resource: subject,
    kind: gvk.kind,
    group: gvk.group,
    version: gvk.version,
    subresource: req.subresource ?? "",
    operation: req.operation ?? "CREATE",
    ...(namespaceLabels ? { namespaceLabels } : {}),
    ...(req.userInfo ? { userInfo: req.userInfo } : {}),
    ...(req.roles ? { roles: req.roles } : {}),
    ...(req.clusterRoles ? { clusterRoles: req.clusterRoles } : {}),
    ...(policy.namespace !== undefined ? { policyNamespace: policy.namespace } : {}),
  };
  return { gvk, namespaceLabels, matchReq };
}

/** A response with no rule results yet, for a policy and a request. */
export function emptyResponse(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  const spec = policy.policy.spec;
  const resource = resourceRef(req);
  const response: PolicyResponse = {
    policy: {
      kind: policy.policy.kind,
      name: policy.policy.metadata.name,
      ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
    },
    resource,
    rules: [],
    background: spec.background,
    timestamp: env.now,
    ...(policy.category !== undefined ? { category: policy.category } : {}),
    ...(policy.severity !== undefined ? { severity: policy.severity } : {}),
  };
  return response;
}

/** The request's PolicyExceptions that come from accepted namespaces. */
export function acceptedExceptions(req: EngineRequest, env: PolicyEvalEnv): PolicyException[] {
  return (req.exceptions ?? []).filter((e) => acceptsNamespace(env.exceptionNamespaces, e));
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
  const response = emptyResponse(policy, req, env);
  const resource = response.resource;
  if (req.background && !spec.background) return response;
  if (policy.namespace !== undefined && resource.namespace !== policy.namespace) return response;
  const { gvk, namespaceLabels, matchReq } = requestFacts(policy, req, env, resource);
  let base: JsonContext | undefined;
  const exceptions = acceptedExceptions(req, env);
  const policyKey = policy.key;
  const preset = new Set(Object.keys(req.values ?? {}).map((k) => k.split(".")[0] ?? k));
  for (const { rule, mayMatchKind } of policy.rules as CompiledRule[]) {
    if (rule[ruleKind] === undefined) continue;
    if (!mayMatchKind(matchReq)) continue;
    if (!matchesRule(rule.match, rule.exclude, matchReq)) continue;
    base ??= withValues(requestContext(req, gvk, policy.usesImages), req.values);
    const action = effectiveFailureAction(
      rule.validate?.failureAction ?? spec.validationFailureAction,
      rule.validate?.failureActionOverrides ?? spec.validationFailureActionOverrides,
      resource.namespace,
      namespaceLabels,
    );
    let podSecurityExcludes: PodSecurityExclude[] = [];
    if (exceptions.length > 0) {
      const scope = { jp: env.jp, ctx: base, isDelete: req.operation === "DELETE", memo: env.memo };
      const found = exceptionsForRule(
        exceptions,
        policyKey,
        rule.name,
        matchReq,
        scope,
        req.background ?? false,
      );
      if (found.skipping.length > 0) {
        const keys = found.skipping.map((e) => `${e.namespace}/${e.name}`);
        response.rules.push({
          name: rule.name,
          type: ruleType,
          status: "skip",
          message: exceptionSkipMessage(keys),
          failureAction: action,
          properties: { exceptions: found.skipping.map((e) => e.name).join(",") },
          exception: found.skipping[0] as { namespace: string; name: string },
        });
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
    const outcome = generated ?? validateOutcome(rule, base, req, env, preset, podSecurityExcludes);
    if (!outcome) continue;
    const props = properties(rule, base, env);
    const r: RuleResponse = {
      name: rule.name,
      type: ruleType,
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
    response.rules.push(r);
    if (spec.applyRules === "One" && outcome.status !== "skip") break;
  }
  return response;
}
