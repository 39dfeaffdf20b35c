/** Applying a mutate block to a resource: patchStrategicMerge, patchesJson6902 and foreach entries. */
import type { JsonValue, MutateForeach, Mutation } from "@kyverno-ts/api";
import { withValue } from "../evaluation/json-context.js";
import { ended, prepare } from "../evaluation/prepare.js";
import { evaluateExpression, type Scope, substitute } from "../evaluation/variables.js";
import { applyJson6902, applyStrategicMerge, parseJson6902 } from "../mutate/index.js";
import type { PolicyEvalEnv } from "../pipeline/env.js";
import { substitutionErrorMessage } from "../response/messages.js";
import type { RuleStatus } from "../response/types.js";

/** Result of applying one mutate block: the new resource, or why nothing changed. */
export type MutateStep =
  | { status: "applied"; resource: JsonValue }
  | { status: Exclude<RuleStatus, "pass">; message: string };

interface PatchSource {
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
}

function applyPatches(scope: Scope, src: PatchSource, resource: JsonValue): MutateStep {
  let current = resource;
  if (src.patchStrategicMerge !== undefined) {
    const patch = substitute(scope, src.patchStrategicMerge, "/mutate/patchStrategicMerge");
    if (!patch.ok)
      return {
        status: "error",
        message: substitutionErrorMessage("variable substitution failed", patch.error),
      };
    // Anchor patterns inside a policy's own overlay are compiled once; substituted ones per request.
    const r = applyStrategicMerge(
      current,
      patch.value,
      patch.value === src.patchStrategicMerge ? { patterns: scope.memo.pattern } : {},
    );
    if (!r.ok) return { status: "error", message: `failed to apply patchStrategicMerge: ${r.error}` };
    if ("skipped" in r) return { status: "skip", message: r.reason };
    current = r.value;
  }
  if (src.patchesJson6902 !== undefined) {
    const text = substitute(scope, src.patchesJson6902, "/mutate/patchesJson6902");
    if (!text.ok)
      return {
        status: "error",
        message: substitutionErrorMessage("variable substitution failed", text.error),
      };
    const parsed =
      text.value === src.patchesJson6902
        ? scope.memo.json6902(src, src.patchesJson6902)
        : parseJson6902(typeof text.value === "string" ? text.value : JSON.stringify(text.value));
    if (!parsed.ok) return { status: "error", message: `invalid patchesJson6902: ${parsed.error}` };
    const r = applyJson6902(current, parsed.ops);
    if (!r.ok) return { status: "error", message: `failed to apply patchesJson6902: ${r.error}` };
    current = r.value;
  }
  return { status: "applied", resource: current };
}

function applyForeach(
  scope: Scope,
  list: readonly MutateForeach[],
  resource: JsonValue,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
  nesting: number,
  path: string,
): MutateStep {
  let current = resource;
  for (let i = 0; i < list.length; i++) {
    const fe = list[i] as MutateForeach;
    const listScope = { ...scope, ctx: withValue(scope.ctx, "request.object", current) };
    const evaluated = evaluateExpression(listScope, fe.list);
    if (!evaluated.ok) return { status: "error", message: evaluated.error };
    const elements =
      evaluated.value === null ? [] : Array.isArray(evaluated.value) ? evaluated.value : [evaluated.value];
    const order = elements.map((_, index) => index);
    if (fe.order === "Descending") order.reverse();
    for (const index of order) {
      scope.budget?.charge("foreachElements", 1);
      const element = elements[index] as JsonValue;
      const ctx = {
        ...withValue(scope.ctx, "request.object", current),
        element,
        elementIndex: index,
        [`element${nesting}`]: element,
        [`elementIndex${nesting}`]: index,
      };
      const prepared = prepare({ ...scope, ctx }, fe, env.loader, preset, {
        context: `${path}/${i}/context`,
        preconditions: `${path}/${i}/preconditions`,
      });
      if (ended(prepared)) {
        if (prepared.status === "skip") continue;
        return prepared;
      }
      const step = fe.foreach
        ? applyForeach(prepared, fe.foreach, current, env, preset, nesting + 1, `${path}/${i}/foreach`)
        : applyPatches(prepared, fe, current);
      if (step.status === "skip") continue;
      if (step.status !== "applied") return step;
      current = step.resource;
    }
  }
  return { status: "applied", resource: current };
}

/**
 * Applies a mutate rule (its context and preconditions already loaded into `scope` by the rule
 * pipeline): the
 * strategic-merge patch, the RFC 6902 patches, or each foreach entry per element, in order.
 */
export function applyMutation(
  scope: Scope,
  mutation: Mutation,
  resource: JsonValue,
  env: PolicyEvalEnv,
  preset: ReadonlySet<string>,
): MutateStep {
  if (mutation.foreach && mutation.foreach.length > 0)
    return applyForeach(scope, mutation.foreach, resource, env, preset, 0, "/mutate/foreach");
  return applyPatches(scope, mutation, resource);
}
