import type { JsonValue, KubeObject, Policy, PolicyException, RequestInfo, Rule } from "@kyverno-ts/api";
import type {
  CelEngine,
  CompiledCelPolicy,
  CompiledPolicy,
  Engine,
  EngineRequest,
  Operation,
  PolicyResponse,
  RuleType,
} from "@kyverno-ts/engine";
import type { Variables } from "../load/variables.js";
import { InputMessages } from "../output/messages.js";
import type { PoolLoader } from "./cluster.js";
import type { Evaluated, Phase } from "./judge.js";

/** What `evaluateAll` needs: compiled policies, resources and the data around the requests. */
export interface EvaluationInput {
  engine: Engine;
  policies: readonly CompiledPolicy[];
  resources: readonly KubeObject[];
  variables: Variables;
  /** Who makes the requests: a UserInfo file's roles, cluster roles and user. */
  requestInfo?: RequestInfo;
  /** PolicyExceptions considered for every request. */
  exceptions?: readonly PolicyException[];
  /** The engine's resource loader, switched between clone sources and mutate-existing targets. */
  pool?: PoolLoader;
  /** Called after each resource with the count done so far. */
  onProgress?: (done: number, total: number) => void;
  /** CEL policies (policies.kyverno.io kinds, admission policies) and their engine. */
  cel?: { engine: CelEngine; policies: readonly CompiledCelPolicy[] };
}

const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

function operationOf(values: Record<string, JsonValue>): Operation {
  const op = values["request.operation"];
  const upper = typeof op === "string" ? op.toUpperCase() : "";
  return (OPERATIONS as readonly string[]).includes(upper) ? (upper as Operation) : "CREATE";
}

/** Builds the engine request for one policy and resource, as upstream's CLI processor does. */
export function buildRequest(
  policyName: string,
  resource: KubeObject,
  variables: Variables,
  info: RequestInfo | undefined,
): EngineRequest {
  const values = variables.forResource(policyName, resource.metadata?.name ?? "");
  const operation = operationOf(values);
  const request: EngineRequest = {
    resource,
    operation,
    values,
    ruleValues: (rule) => variables.forRule(policyName, rule),
  };
  // Upstream evaluates UPDATE and DELETE with the resource as its own old object.
  if (operation === "UPDATE" || operation === "DELETE") request.oldResource = resource;
  const sub = variables.subresourceOf(resource);
  if (sub !== undefined) {
    request.requestKind = sub.requestKind;
    request.subresource = sub.subresource;
  }
  if (info) {
    request.userInfo = info.userInfo;
    request.roles = info.roles;
    request.clusterRoles = info.clusterRoles;
  }
  return request;
}

const RULE_TYPES: Record<Phase, RuleType> = {
  mutate: "Mutation",
  mutateExisting: "Mutation",
  validate: "Validation",
  generate: "Generation",
};

function isMutateExisting(rule: Rule): boolean {
  return rule.mutate?.targets !== undefined && rule.mutate.targets.length > 0;
}

/** Whether a rule is evaluated in a phase. */
function inPhase(rule: Rule, phase: Phase): boolean {
  switch (phase) {
    case "mutate":
      return rule.mutate !== undefined && !isMutateExisting(rule);
    case "mutateExisting":
      return isMutateExisting(rule);
    case "validate":
      return rule.validate !== undefined;
    case "generate":
      return rule.generate !== undefined;
  }
}

/** Whether a policy has rules of a phase. */
export function hasPhase(policy: Policy, phase: Phase): boolean {
  return policy.spec.rules.some((r) => inPhase(r, phase));
}

/** The rule an autogen rule name (`autogen-x`, `autogen-cronjob-x`) comes from. */
function baseRuleName(name: string): string {
  if (name.startsWith("autogen-cronjob-")) return name.slice("autogen-cronjob-".length);
  if (name.startsWith("autogen-")) return name.slice("autogen-".length);
  return name;
}

function crashResponse(
  compiled: CompiledPolicy,
  resource: KubeObject,
  phase: Phase,
  error: unknown,
): PolicyResponse {
  const p = compiled.policy;
  const message = InputMessages.internal("engine", error);
  const names = compiled.ruleNames.filter((name) => {
    const rule = p.spec.rules.find((r) => r.name === name || r.name === baseRuleName(name));
    return rule !== undefined && inPhase(rule, phase);
  });
  return {
    policy: {
      kind: p.kind,
      name: p.metadata.name,
      ...(p.metadata.namespace ? { namespace: p.metadata.namespace } : {}),
    },
    resource: {
      apiVersion: typeof resource.apiVersion === "string" ? resource.apiVersion : "",
      kind: typeof resource.kind === "string" ? resource.kind : "",
      name: resource.metadata?.name ?? "",
      namespace: resource.metadata?.namespace ?? "",
      uid: typeof resource.metadata?.uid === "string" ? resource.metadata.uid : "",
    },
    rules: names.map((name) => ({
      name,
      type: RULE_TYPES[phase],
      status: "error",
      message,
      failureAction: p.spec.validationFailureAction,
    })),
    background: p.spec.background,
    timestamp: Date.now(),
  };
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Evaluates every policy on every resource as upstream's CLI processor does, per resource:
 * the mutate rules of all policies in order (each policy sees the resource as patched by the
 * policies before it), mutate-existing rules (targets from the pool), then the validate rules on
 * the patched resource, then the generate rules (clone sources from the pool).
 * There is one validate response per policy and resource, including policies that did not match
 * (they answer with no rule responses, which `test` judges as `Excluded`), plus one response per
 * phase for the policies that have rules of that phase.
 * An engine exception becomes `error` results rather than aborting the run.
 */
export function evaluateAll(input: EvaluationInput): Evaluated[] {
  const out: Evaluated[] = [];
  const total = input.resources.length;
  const withPhase = (phase: Phase) => input.policies.filter((c) => hasPhase(c.policy, phase));
  const mutating = withPhase("mutate");
  const mutatingExisting = withPhase("mutateExisting");
  const generating = withPhase("generate");
  const call = (
    compiled: CompiledPolicy,
    original: KubeObject,
    resource: KubeObject,
    phase: Phase,
  ): Evaluated => {
    const request = buildRequest(compiled.policy.metadata.name, resource, input.variables, input.requestInfo);
    if (input.exceptions && input.exceptions.length > 0) request.exceptions = input.exceptions;
    let response: PolicyResponse;
    try {
      response = input.engine[phase](compiled, request);
    } catch (error) {
      response = crashResponse(compiled, resource, phase, error);
    }
    return { policy: compiled.policy, response, phase, original, resource };
  };
  const cel = input.cel;
  const celOf = (...types: CompiledCelPolicy["type"][]) =>
    (cel?.policies ?? []).filter((p) => types.includes(p.type));
  const celMutating = celOf("mutate").filter((p) => !p.mutateExisting);
  const celMutatingExisting = celOf("mutate").filter((p) => p.mutateExisting);
  const celValidating = celOf("validate", "imageValidate", "delete");
  const celGenerating = celOf("generate");
  const callCel = (
    compiled: CompiledCelPolicy,
    original: KubeObject,
    resource: KubeObject,
    phase: Phase,
  ): Evaluated => {
    const request = buildRequest(compiled.name, resource, input.variables, input.requestInfo);
    let response: PolicyResponse;
    try {
      const engine = cel?.engine as CelEngine;
      response =
        phase === "mutate"
          ? engine.mutate(compiled, request)
          : phase === "mutateExisting"
            ? engine.mutateExisting(compiled, request)
            : phase === "generate"
              ? engine.generate(compiled, request)
              : compiled.type === "delete"
                ? engine.evaluateDeletion(compiled, resource)
                : engine.validate(compiled, request);
    } catch (error) {
      response = celCrashResponse(compiled, resource, phase, error);
    }
    return { policy: compiled.policy, response, phase, original, resource };
  };
  input.resources.forEach((original, i) => {
    let resource = original;
    for (const compiled of mutating) {
      const e = call(compiled, original, resource, "mutate");
      out.push(e);
      if (isObject(e.response.patchedResource)) resource = e.response.patchedResource as KubeObject;
    }
    for (const compiled of celMutating) {
      const e = callCel(compiled, original, resource, "mutate");
      out.push(e);
      if (isObject(e.response.patchedResource)) resource = e.response.patchedResource as KubeObject;
    }
    input.pool?.use("targets");
    for (const compiled of mutatingExisting) out.push(call(compiled, original, resource, "mutateExisting"));
    for (const compiled of celMutatingExisting)
      out.push(callCel(compiled, original, resource, "mutateExisting"));
    for (const compiled of input.policies) out.push(call(compiled, original, resource, "validate"));
    for (const compiled of celValidating) out.push(callCel(compiled, original, resource, "validate"));
    input.pool?.use("sources");
    for (const compiled of generating) out.push(call(compiled, original, resource, "generate"));
    for (const compiled of celGenerating) out.push(callCel(compiled, original, resource, "generate"));
    input.onProgress?.(i + 1, total);
  });
  return out;
}

/** An `error` response for a CEL policy whose evaluation threw (a bug): the run goes on. */
function celCrashResponse(
  compiled: CompiledCelPolicy,
  resource: KubeObject,
  phase: Phase,
  error: unknown,
): PolicyResponse {
  return {
    policy: {
      kind: compiled.policy.kind,
      name: compiled.name,
      ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    },
    resource: {
      apiVersion: typeof resource.apiVersion === "string" ? resource.apiVersion : "",
      kind: typeof resource.kind === "string" ? resource.kind : "",
      name: resource.metadata?.name ?? "",
      namespace: resource.metadata?.namespace ?? "",
      uid: typeof resource.metadata?.uid === "string" ? resource.metadata.uid : "",
    },
    rules: [
      {
        name: "",
        type: RULE_TYPES[phase],
        status: "error",
        message: InputMessages.internal("engine", error),
        failureAction: "Audit",
      },
    ],
    background: compiled.background,
    timestamp: Date.now(),
  };
}
