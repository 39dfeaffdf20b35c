/**
 * ValidatingPolicies, ImageValidatingPolicies and ValidatingAdmissionPolicies: the validations in
 * order (the first false fails with its message, an error is an `error`) and the audit annotations as
 * report properties. An admission policy with bindings is evaluated per binding and parameter object.
 */
import type { CelValue } from "@bufbuild/cel";
import { bindingParams } from "../cel-policies/bindings.js";
import { evaluateAuditAnnotations, evaluateValidations } from "../cel-policies/block.js";
import type { CompiledCelPolicyImpl } from "../cel-policies/compile.js";
import type { Prepared } from "../cel-policies/prepare.js";
import { withVariables } from "../cel-policies/variables.js";
import type { CelOutcome, CelRuleHandler } from "../pipeline/handler.js";

/** The result of a policy's validations (and audit annotations) with some bindings. */
function validation(
  policy: CompiledCelPolicyImpl,
  { variant, session }: Prepared,
  bindings: Record<string, CelValue>,
  enforce: boolean,
): CelOutcome {
  const outcome = evaluateValidations(variant.block.validations, bindings, session);
  // A ValidatingPolicy's pass says `success`, as upstream's (the CLI guide's reports); a Kubernetes
  // ValidatingAdmissionPolicy's says nothing.
  const message =
    outcome.status === "pass" &&
    policy.type === "validate" &&
    policy.policy.kind !== "ValidatingAdmissionPolicy"
      ? "success"
      : outcome.message;
  const failureAction = enforce ? "Enforce" : "Audit";
  const annotations = evaluateAuditAnnotations(variant.block.auditAnnotations, bindings, session);
  return Object.keys(annotations).length > 0
    ? { status: outcome.status, message, failureAction, properties: annotations }
    : { status: outcome.status, message, failureAction };
}

/** `CelEngine.validate`: one result named after no rule, as upstream (one per binding that fails). */
export const celValidateHandler: CelRuleHandler = {
  type: "Validation",
  process({ policy, prepared, req, target, env }) {
    if (policy.bindings.length === 0) return validation(policy, prepared, prepared.bindings, policy.enforce);
    const results: CelOutcome[] = [];
    const loader = req.contextLoader ?? env.loader;
    const labels = req.namespaceLabels ?? env.namespaceLabels(target.namespace);
    for (const binding of policy.bindings) {
      const selected = bindingParams(binding, policy.paramKind, req, loader, labels);
      if (selected.kind === "skip") continue;
      if (selected.kind === "denied") {
        results.push({
          status: "fail",
          message: selected.message,
          failureAction: selected.enforce ? "Enforce" : "Audit",
        });
        return results;
      }
      for (const params of selected.params) {
        const scoped = withVariables(
          { ...prepared.bindings, params },
          prepared.variant.block.variableIndex,
          prepared.session,
        );
        const result = validation(policy, prepared, scoped, selected.enforce);
        if (result.status !== "pass" || params === selected.params.at(-1)) {
          results.push(result);
          if (result.status !== "pass") return results;
        }
      }
    }
    return results;
  },
};
