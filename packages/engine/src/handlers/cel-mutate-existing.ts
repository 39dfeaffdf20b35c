/**
 * Mutate-existing MutatingPolicies (`evaluation.mutateExisting.enabled`): the targets a trigger
 * request selects (`cel-policies/targets.ts`), each checked by `targetMatchConditions` and patched by
 * the mutations with `object` bound to it. The engine computes the patched targets; writing them is
 * the caller's.
 */
import type { CelValue } from "@bufbuild/cel";
import type { JsonValue } from "@kyverno-ts/api";
import { evaluateConditions } from "../cel-policies/block.js";
import { applyMutations } from "../cel-policies/mutations.js";
import { requestTarget } from "../cel-policies/request.js";
import { candidates, selectsTarget } from "../cel-policies/targets.js";
import { withVariables } from "../cel-policies/variables.js";
import { diffJson6902 } from "../mutate/index.js";
import type { CelRuleHandler } from "../pipeline/handler.js";
import type { TargetPatch } from "../response/types.js";

/** `CelEngine.mutateExisting`: the patched targets of a trigger request (`pass`), or `skip` when none changed. */
export const celMutateExistingHandler: CelRuleHandler = {
  type: "Mutation",
  process({ policy, prepared, req, target, env }) {
    const targets = policy.targets;
    if (targets === undefined) return undefined;
    const selected = candidates(targets, prepared, req.contextLoader ?? env.loader, target.namespace);
    if (typeof selected === "string") return { status: "error", message: selected };
    const patched: TargetPatch[] = [];
    for (const object of selected) {
      const at = requestTarget({ resource: object });
      const input = { target: at, namespaceLabels: env.namespaceLabels(at.namespace), oldObject: undefined };
      if (!selectsTarget(targets, input)) continue;
      const bindings: Record<string, CelValue> = withVariables(
        { ...prepared.bindings, object: env.values.of(object as unknown as JsonValue) },
        prepared.variant.block.variableIndex,
        prepared.session,
      );
      const conditions = evaluateConditions(targets.conditions, bindings, prepared.session);
      if (!conditions.matched) {
        // An error follows failurePolicy, as the trigger's matchConditions: Fail reports it.
        if ("error" in conditions && policy.failurePolicy === "Fail")
          return { status: "error", message: `target: ${conditions.error}` };
        continue;
      }
      const original = object as unknown as JsonValue;
      const applied = applyMutations(prepared.variant, bindings, prepared.session, original);
      if (!applied.ok) return { status: "error", message: applied.error };
      const patch = diffJson6902(original, applied.value);
      if (patch.length > 0) patched.push({ target: object, patched: applied.value, patch });
    }
    return patched.length > 0
      ? { status: "pass", message: "mutation applied to targets", patchedTargets: patched }
      : { status: "skip", message: "no target to mutate" };
  },
};
