/**
 * MutatingPolicies (and MutatingAdmissionPolicies) at admission: the mutations in order, each
 * evaluated against the object as patched so far; the response carries the patched resource and the
 * RFC 6902 patch from the original. A mutate-existing MutatingPolicy gives nothing here
 * (`cel-mutate-existing.ts`).
 */
import type { JsonValue } from "@kyverno-ts/api";
import { bindingParams } from "../cel-policies/bindings.js";
import { applyMutations } from "../cel-policies/mutations.js";
import { withVariables } from "../cel-policies/variables.js";
import { diffJson6902 } from "../mutate/index.js";
import type { CelRuleHandler } from "../pipeline/handler.js";

/** `CelEngine.mutate`: `pass` with the patched resource, or the `error` that stopped the mutations. */
export const celMutateHandler: CelRuleHandler = {
  type: "Mutation",
  process({ policy, prepared, req, target, env }) {
    if (policy.targets !== undefined) return undefined;
    const { variant, session } = prepared;
    let scoped = prepared.bindings;
    if (policy.bindings.length > 0) {
      // A MutatingAdmissionPolicy mutates through the first binding that selects the request,
      // with the first parameter object it selects.
      const loader = req.contextLoader ?? env.loader;
      const labels = req.namespaceLabels ?? env.namespaceLabels(target.namespace);
      const selected = policy.bindings
        .map((b) => bindingParams(b, policy.paramKind, req, loader, labels))
        .find((s) => s.kind !== "skip");
      if (selected === undefined) return undefined;
      if (selected.kind === "denied") return { status: "error", message: selected.message };
      scoped = withVariables(
        { ...scoped, params: selected.params[0] ?? null },
        variant.block.variableIndex,
        session,
      );
    }
    const applied = applyMutations(variant, scoped, session, req.resource as unknown as JsonValue);
    if (!applied.ok) return { status: "error", message: applied.error };
    return { status: "pass", message: "success", resource: applied.value };
  },
  finish(response, original, patched) {
    if (patched === undefined) return response;
    response.patchedResource = patched;
    response.patch = diffJson6902(original, patched);
    return response;
  },
};
