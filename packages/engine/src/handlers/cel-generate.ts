/** GeneratingPolicies: the objects their `generator.Apply` calls produce (the engine never writes them). */
import type { GeneratingPolicySpec, KubeObject } from "@kyverno-ts/api";
import type { CelRuleHandler } from "../pipeline/handler.js";

/** `CelEngine.generate`: `pass` with the objects to generate, or the `error` of a generate expression. */
export const celGenerateHandler: CelRuleHandler = {
  type: "Generation",
  process({ prepared: { variant, bindings, session } }) {
    const generated: KubeObject[] = [];
    session.generated = generated;
    for (const g of variant.generate) {
      const out = g.evaluate(bindings, session);
      if (!out.ok) return { status: "error", message: `${g.expression}: ${out.error}` };
    }
    return {
      status: "pass",
      message: "policy evaluated successfully",
      generated: generated.map((object) => ({ object, labels: {} })),
    };
  },
  extras(policy, outcome) {
    if (outcome.generated === undefined) return {};
    const evaluation = (policy.policy.spec as { evaluation?: GeneratingPolicySpec["evaluation"] }).evaluation;
    return {
      generated: outcome.generated,
      synchronize: evaluation?.synchronize?.enabled ?? false,
      orphanDownstreamOnPolicyDelete: evaluation?.orphanDownstreamOnPolicyDelete?.enabled ?? false,
      generateExisting: evaluation?.generateExisting?.enabled ?? false,
    };
  },
};
