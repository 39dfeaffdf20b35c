import type { JsonValue, PodSecurityExclude, PolicyException, Rule } from "@kyverno-ts/api";
import type { CompiledPolicyImpl, CompiledRule } from "../compile/compiled.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import { acceptsNamespace, exceptionsForRule } from "../exceptions/exceptions.js";
import type { Jmespath } from "../jmespath/index.js";
import { type MatchRequest, matchesRule, type RequestKind, resourceGvk } from "../match/index.js";
import { exceptionSkipMessage, unsupportedRuleMessage } from "../response/messages.js";
import type { PolicyResponse, ResourceRef, RuleResponse } from "../response/types.js";
import { podSecurityOutcome } from "../validate/pod-security.js";
import { evaluateBlock, type Outcome, type ValidateEnv } from "../validate/validate-rule.js";
import { effectiveFailureAction } from "./failure-action.js";
import { generateRuleOutcome } from "./generate-rule.js";
import { type JsonContext, withValues } from "./json-context.js";
import type { EngineMemo } from "./memo.js";
import { type SharedSearches, sharedContext } from "./request-cache.js";
import { type Scope, substitute } from "./variables.js";

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
  compiled: CompiledRule,
  base: JsonContext,
  req: EngineRequest,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
  extraExcludes: readonly PodSecurityExclude[],
  searches: SharedSearches | undefined,
): Outcome | undefined {
  const validation = compiled.validation;
  if (validation === undefined) return undefined;
  const ruleName = compiled.rule.name;
  if (validation.unsupported !== undefined) {
    return { status: "error", message: unsupportedRuleMessage(ruleName, validation.unsupported) };
  }
  const isDelete = req.operation === "DELETE";
  const scope: Scope = { jp: env.jp, ctx: base, isDelete, memo: env.memo, searches };
  const object = (isDelete ? (req.oldResource ?? req.resource) : req.resource) as unknown as JsonValue;
  const validateEnv: ValidateEnv = {
    ruleName,
    message: validation.message,
    loader: env.loader,
    preset,
    resource: object,
    values: req.ruleValues?.(ruleName),
  };
  const podSecurity = validation.podSecurity;
  if (podSecurity) {
    const exclude = [...(podSecurity.exclude ?? []), ...extraExcludes];
    validateEnv.handler = () => podSecurityOutcome(ruleName, podSecurity, object, exclude);
  }
  return evaluateBlock(scope, validation.block, validateEnv, "/validate", undefined, 0);
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
): { gvk: RequestKind; namespaceLabels: Record<string, string> | undefined; matchReq: MatchRequest } {
  const subject = req.operation === "DELETE" ? (req.oldResource ?? req.resource) : req.resource;
  const subresource = req.subresource ?? "";
  const requestKind = req.requestKind;
  const gvk = requestKind
    ? { group: requestKind.group, version: requestKind.version, kind: requestKind.kind, subresource }
    : resourceGvk(subject);
  // A Namespace has no namespace labels: upstream never applies namespaceSelector to it.
  const namespaceLabels =
    resource.kind === "Namespace"
      ? undefined
      : (req.namespaceLabels ?? (resource.namespace ? env.namespaceLabels(resource.namespace) : undefined));
  const matchReq: MatchRequest = {
    resource: subject,
    kind: gvk.kind,
    group: gvk.group,
    version: gvk.version,
    subresource,
    operation: req.operation ?? "CREATE",
  };
  if (namespaceLabels) matchReq.namespaceLabels = namespaceLabels;
  if (req.userInfo) matchReq.userInfo = req.userInfo;
  if (req.roles) matchReq.roles = req.roles;
  if (req.clusterRoles) matchReq.clusterRoles = req.clusterRoles;
  if (policy.namespace !== undefined) matchReq.policyNamespace = policy.namespace;
  return { gvk, namespaceLabels, matchReq };
}

/** A response with no rule results yet, for a policy and a request. */
export function emptyResponse(
  policy: CompiledPolicyImpl,
  req: EngineRequest,
  env: PolicyEvalEnv,
): PolicyResponse {
  const name: PolicyResponse["policy"] = { kind: policy.policy.kind, name: policy.policy.metadata.name };
  if (policy.namespace !== undefined) name.namespace = policy.namespace;
  const response: PolicyResponse = {
    policy: name,
    resource: resourceRef(req),
    rules: [],
    background: policy.policy.spec.background,
    timestamp: env.now,
  };
  if (policy.category !== undefined) response.category = policy.category;
  if (policy.severity !== undefined) response.severity = policy.severity;
  return response;
}

/** The request's PolicyExceptions that come from accepted namespaces. */
export function acceptedExceptions(req: EngineRequest, env: PolicyEvalEnv): PolicyException[] {
  const exceptions = req.exceptions;
  if (exceptions === undefined || exceptions.length === 0) return [];
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
  const response = emptyResponse(policy, req, env);
  const resource = response.resource;
  if (req.background && !spec.background) return response;
  if (policy.namespace !== undefined && resource.namespace !== policy.namespace) return response;
  const { gvk, namespaceLabels, matchReq } = requestFacts(policy, req, env, resource);
  let base: JsonContext | undefined;
  let searches: SharedSearches | undefined;
  const exceptions = acceptedExceptions(req, env);
  const policyKey = policy.key;
  const preset = presetNames(req, env);
  for (const compiled of policy.rulesFor(matchReq.kind)) {
    const { rule, mayMatchKind } = compiled;
    if (rule[ruleKind] === undefined) continue;
    if (req.background && compiled.admissionOnly) continue;
    if (!mayMatchKind(matchReq)) continue;
    if (!matchesRule(rule.match, rule.exclude, matchReq, env.memo.kindSelectors)) continue;
    if (base === undefined) {
      const shared = sharedContext(req, gvk, policy.usesImages);
      base = withValues(shared.ctx, req.values);
      if (base === shared.ctx) searches = shared.searches;
    }
    const action = effectiveFailureAction(
      compiled.failureAction,
      compiled.failureActionOverrides,
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
    const outcome =
      generated ?? validateOutcome(compiled, base, req, env, preset, podSecurityExcludes, searches);
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
