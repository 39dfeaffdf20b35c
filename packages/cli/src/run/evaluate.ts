import type { JsonValue, KubeObject, PolicyException, RequestInfo } from "@kyverno-ts/api";
import type { CompiledPolicy, Engine, EngineRequest, Operation, PolicyResponse } from "@kyverno-ts/engine";
import type { Variables } from "../load/variables.js";
import { InputMessages } from "../output/messages.js";
import type { Evaluated } from "./judge.js";

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
  /** Called after each resource with the count done so far. */
  onProgress?: (done: number, total: number) => void;
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
  if (info) {
    request.userInfo = info.userInfo;
    request.roles = info.roles;
    request.clusterRoles = info.clusterRoles;
  }
  return request;
}

function crashResponse(compiled: CompiledPolicy, resource: KubeObject, error: unknown): PolicyResponse {
  const p = compiled.policy;
  const message = InputMessages.internal("engine", error);
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
    rules: compiled.ruleNames.map((name) => ({
      name,
      type: "Validation",
      status: "error",
      message,
      failureAction: p.spec.validationFailureAction,
    })),
    background: p.spec.background,
    timestamp: Date.now(),
  };
}

/**
 * Evaluates every policy on every resource; one response per pair, including policies that did
 * not match (they answer with no rule responses, which `test` judges as `Excluded`).
 * An engine exception becomes `error` results rather than aborting the run.
 */
export function evaluateAll(input: EvaluationInput): Evaluated[] {
  const out: Evaluated[] = [];
  const total = input.resources.length;
  input.resources.forEach((resource, i) => {
    for (const compiled of input.policies) {
      const request = buildRequest(
        compiled.policy.metadata.name,
        resource,
        input.variables,
        input.requestInfo,
      );
      if (input.exceptions && input.exceptions.length > 0) request.exceptions = input.exceptions;
      let response: PolicyResponse;
      try {
        response = input.engine.validate(compiled, request);
      } catch (error) {
        response = crashResponse(compiled, resource, error);
      }
      out.push({ policy: compiled.policy, response });
    }
    input.onProgress?.(i + 1, total);
  });
  return out;
}
