/**
 * Mutate rules applied at admission (`patchStrategicMerge`, `patchesJson6902`, `foreach`; not
 * `targets`): each rule sees the resource as the rules before it patched it, and the response carries
 * the patched resource and the RFC 6902 patch from the original (what the webhook returns).
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { jsonEqual } from "@kyverno-ts/k8s";
import { diffJson6902 } from "../mutate/index.js";
import type { RuleHandler } from "../pipeline/handler.js";
import { applyMutation } from "./mutate-apply.js";

/** Message of a mutate rule that changed the resource. */
function mutatedMessage(resource: JsonValue): string {
  const o = resource as unknown as KubeObject;
  const ns = o.metadata?.namespace;
  return `mutated ${o.kind ?? ""}/${o.metadata?.name ?? ""}${ns ? ` in namespace ${ns}` : ""}`;
}

/** The mutate pass (`Engine.mutate`). A rule that changes nothing is `skip`. */
export const mutateHandler: RuleHandler = {
  type: "Mutation",
  failureActions: false,
  handles: (compiled) => {
    const mutation = compiled.rule.mutate;
    return mutation !== undefined && !(mutation.targets && mutation.targets.length > 0);
  },
  // Upstream's mutating webhook never sees DELETE requests.
  skips: (req) => req.operation === "DELETE",
  process({ rule: compiled, scope, req, env, preset }) {
    const mutation = compiled.rule.mutate;
    if (mutation === undefined) return undefined;
    const current = req.resource as unknown as JsonValue;
    const step = applyMutation(scope, mutation, current, env, preset);
    if (step.status !== "applied") return step;
    if (jsonEqual(step.resource, current)) return { status: "skip", message: "no patches applied" };
    return { status: "pass", message: mutatedMessage(step.resource), resource: step.resource };
  },
  finish(response, original, current) {
    response.patchedResource = current;
    response.patch = diffJson6902(original, current);
    return response;
  },
};
