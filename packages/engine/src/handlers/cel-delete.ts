/** DeletingPolicies: whether a resource is to be deleted. */
import { evaluateConditions } from "../cel-policies/block.js";
import type { CelRuleHandler } from "../pipeline/handler.js";

/** `CelEngine.evaluateDeletion`: `pass` when every condition holds (the resource is to be deleted), else `skip`. */
export const celDeleteHandler: CelRuleHandler = {
  type: "Validation",
  process({ prepared: { variant, bindings, session } }) {
    const out = evaluateConditions(variant.conditions, bindings, session);
    if ("error" in out) return { status: "error", message: out.error };
    return out.matched
      ? { status: "pass", message: "resource is to be deleted" }
      : { status: "skip", message: "conditions not met" };
  },
};
