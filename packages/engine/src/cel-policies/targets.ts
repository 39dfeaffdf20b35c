/**
 * The targets of a mutate-existing MutatingPolicy (`evaluation.mutateExisting.enabled`): a request the
 * policy matches (the trigger) selects existing objects by `targetMatchConstraints` (resource rules,
 * read through the data loader, or an `expression` returning them); `targetMatchConditions` are
 * checked per target by the handler.
 */
import type { JsonValue, KubeObject } from "@kyverno-ts/api";
import { toJson } from "../cel/values.js";
import type { ContextLoader } from "../engine-types.js";
import type { CompiledTargets } from "./compile.js";
import { type MatchInput, matchesConstraints } from "./match.js";
import type { Prepared } from "./prepare.js";

function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The candidate targets: the expression's list, or the objects of the resource rules; a string is an error. */
export function candidates(
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

/** Whether a listed candidate is one the target constraints select (any operation); expressions select their own. */
export function selectsTarget(targets: CompiledTargets, input: MatchInput): boolean {
  if (targets.expression !== undefined || targets.constraints === undefined) return true;
  const rules = targets.constraints.resourceRules?.map((r) => ({ ...r, operations: ["*"] }));
  return matchesConstraints({ ...targets.constraints, resourceRules: rules ?? [] }, input);
}
