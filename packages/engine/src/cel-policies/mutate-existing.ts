/**
 * Mutate-existing MutatingPolicies (`evaluation.mutateExisting.enabled`): a request that the policy
 * matches (the trigger) selects existing objects — by `targetMatchConstraints` (resource rules,
 * read through the data loader, or an `expression` returning them) and `targetMatchConditions` —
 * and the mutations are applied to each of them, with `object` bound to the target. The engine
 * computes the patched targets; writing them is the caller's.
 */
import type { CelValue } from "@bufbuild/cel";
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { toJson } from "../cel/values.js";
import type { ContextLoader, EngineRequest } from "../engine-types.js";
import { diffJson6902 } from "../mutate/index.js";
import type { PolicyResponse, TargetPatch } from "../response/types.js";
import { evaluateConditions, withVariables } from "./block.js";
import type { CompiledCelPolicyImpl, CompiledTargets } from "./compile.js";
import { type CelEvalEnv, celRule, type Prepared } from "./evaluate.js";
import { applyMutations, respond } from "./kinds.js";
import { matchesConstraints } from "./match.js";
import { requestTarget } from "./request.js";

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The candidate targets: the expression's list, or the objects of the resource rules. */
function candidates(
  targets: CompiledTargets,
  prepared: Prepared,
  loader: ContextLoader,
  namespace: string,
): KubeObject[] | string {
  if (targets.expression !== undefined) {
    const out = targets.expression.evaluate(prepared.bindings, prepared.session);
    if (!out.ok) return `${targets.expression.expression}: ${out.error}`;
    const list = toJson(out.value);
    return (Array.isArray(list) ? list : [list]).filter(isObject) as KubeObject[];
  }
  if (loader.kubeResource === undefined) return "target resources are not available (no resource loader)";
  const found: KubeObject[] = [];
  for (const rule of targets.constraints?.resourceRules ?? []) {
    for (const group of rule.apiGroups ?? [""]) {
      for (const version of rule.apiVersions ?? ["v1"]) {
        for (const resource of rule.resources ?? []) {
          const apiVersion = group === "" ? version : `${group}/${version}`;
          const listed = loader.kubeResource({ verb: "list", apiVersion, resource, namespace });
          const items = listed?.ok && isObject(listed.value) ? listed.value.items : undefined;
          if (Array.isArray(items)) found.push(...(items.filter(isObject) as KubeObject[]));
        }
      }
    }
  }
  return found;
}

/** A mutate-existing MutatingPolicy: the patched targets of a trigger request. */
export function mutateExistingCel(
  policy: CompiledCelPolicyImpl,
  req: EngineRequest,
  env: CelEvalEnv,
): PolicyResponse {
  return respond(policy, req, env, "Mutation", (prepared, response) => {
    const targets = policy.targets;
    if (targets === undefined) return;
    const loader = req.contextLoader ?? env.loader;
    const selected = candidates(targets, prepared, loader, requestTarget(req).namespace);
    if (typeof selected === "string") {
      response.rules.push(celRule(policy, "Mutation", "error", selected));
      return;
    }
    const patched: TargetPatch[] = [];
    for (const target of selected) {
      const at = requestTarget({ resource: target });
      const input = { target: at, namespaceLabels: env.namespaceLabels(at.namespace), oldObject: undefined };
      if (targets.expression === undefined && targets.constraints !== undefined) {
        const rules = targets.constraints.resourceRules?.map((r) => ({ ...r, operations: ["*"] }));
        if (!matchesConstraints({ ...targets.constraints, resourceRules: rules ?? [] }, input)) continue;
      }
      const bindings: Record<string, CelValue> = withVariables(
        { ...prepared.bindings, object: env.values.of(target as unknown as JsonValue) },
        prepared.variant.block.variableIndex,
        prepared.session,
      );
      const conditions = evaluateConditions(targets.conditions, bindings, prepared.session);
      if (!conditions.matched) {
        // An error follows failurePolicy, as the trigger's matchConditions: Fail reports it.
        if ("error" in conditions && policy.failurePolicy === "Fail") {
          response.rules.push(celRule(policy, "Mutation", "error", `target: ${conditions.error}`));
          return;
        }
        continue;
      }
      const original = target as unknown as JsonValue;
      const applied = applyMutations(prepared.variant, bindings, prepared.session, original);
      if (!applied.ok) {
        response.rules.push(celRule(policy, "Mutation", "error", applied.error));
        return;
      }
      const patch = diffJson6902(original, applied.value);
      if (patch.length > 0) patched.push({ target, patched: applied.value, patch });
    }
    const rule = celRule(
      policy,
      "Mutation",
      patched.length > 0 ? "pass" : "skip",
      patched.length > 0 ? "mutation applied to targets" : "no target to mutate",
    );
    if (patched.length > 0) rule.patchedTargets = patched;
    response.rules.push(rule);
  });
}
