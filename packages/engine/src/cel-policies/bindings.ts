/**
 * Bindings of Kubernetes admission policies, as the API server applies them: a binding selects the
 * requests (its `matchResources`, beside the policy's constraints), the parameters (`paramRef` by
 * name or selector, of the policy's `paramKind`, read through the data loader) and the actions.
 * The policy is evaluated once per parameter; a binding without `paramRef` evaluates with null
 * parameters. Without bindings (as `kyverno apply` allows) the policy is evaluated on its own.
 */
import type { CelValue } from "@bufbuild/cel";
import type { AdmissionPolicyBinding, JsonValue } from "@kyverno-ts/api";
import { matchLabelSelector } from "@kyverno-ts/k8s";
import { toCelValue } from "../cel/values.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import { matchesConstraints, matchesNarrowing } from "./match.js";
import { requestTarget } from "./request.js";
import { pluralOf } from "./resources.js";

/** What a binding decides for one request: skip it, or the parameters to evaluate with (or a denial). */
export type BindingParams =
  | { kind: "skip" }
  | { kind: "params"; params: CelValue[]; enforce: boolean }
  | { kind: "denied"; message: string; enforce: boolean };

function enforces(binding: AdmissionPolicyBinding): boolean {
  const actions = binding.spec.validationActions;
  return actions === undefined || actions.length === 0 || actions.includes("Deny");
}

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The parameters a binding selects for a request, or why there are none. */
export function bindingParams(
  binding: AdmissionPolicyBinding,
  paramKind: { apiVersion?: string; kind?: string } | undefined,
  req: EngineRequest,
  loader: ContextLoader,
  namespaceLabels: Record<string, string> | undefined,
): BindingParams {
  const target = requestTarget(req);
  const constraints = binding.spec.matchResources;
  if (constraints !== undefined) {
    const input = { target, namespaceLabels, oldObject: req.oldResource };
    const selected =
      (constraints.resourceRules ?? []).length > 0
        ? matchesConstraints(constraints, input)
        : matchesNarrowing(constraints, input);
    if (!selected) return { kind: "skip" };
  }
  const enforce = enforces(binding);
  const ref = binding.spec.paramRef;
  if (ref === undefined || paramKind?.kind === undefined) return { kind: "params", params: [null], enforce };
  const call = {
    apiVersion: paramKind.apiVersion ?? "v1",
    resource: pluralOf(paramKind.kind),
    namespace: ref.namespace ?? target.namespace,
  };
  const found: JsonValue[] = [];
  if (ref.name !== undefined && ref.name !== "") {
    const one = loader.kubeResource?.({ verb: "get", ...call, name: ref.name });
    if (one?.ok) found.push(one.value);
  } else {
    const list = loader.kubeResource?.({ verb: "list", ...call });
    const items = list?.ok && isObject(list.value) && Array.isArray(list.value.items) ? list.value.items : [];
    for (const item of items) {
      const labels = isObject(item) && isObject(item.metadata) ? item.metadata.labels : undefined;
      const selector = ref.selector ?? {};
      if (matchLabelSelector(selector, (isObject(labels) ? labels : {}) as Record<string, string>))
        found.push(item);
    }
  }
  if (found.length > 0) return { kind: "params", params: found.map(toCelValue), enforce };
  if (ref.parameterNotFoundAction === "Allow") return { kind: "skip" };
  return {
    kind: "denied",
    message: `failed to configure binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`,
    enforce,
  };
}
