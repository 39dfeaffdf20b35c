/** Generate rules: the objects a trigger resource wants to exist (`data`, `clone`, `cloneList`, `foreach`). */
import { generateOutcome } from "../generate/generate.js";
import type { RuleHandler } from "../pipeline/handler.js";

/** The generate pass (`Engine.generate`); the engine computes the objects, it never writes them. */
export const generateHandler: RuleHandler = {
  type: "Generation",
  failureActions: true,
  handles: (compiled) => compiled.rule.generate !== undefined,
  process({ rule: compiled, scope, env, preset, policy, resource }) {
    const generation = compiled.rule.generate;
    if (generation === undefined) return undefined;
    return generateOutcome(
      scope,
      generation,
      {
        policyName: policy.policy.metadata.name,
        policyNamespace: policy.namespace ?? "",
        ruleName: compiled.rule.name,
        trigger: resource,
      },
      env.loader,
      preset,
    );
  },
  extras(compiled, spec, outcome) {
    const generation = compiled.rule.generate;
    return {
      generated: outcome.generated ?? [],
      synchronize: generation?.synchronize ?? false,
      orphanDownstreamOnPolicyDelete: generation?.orphanDownstreamOnPolicyDelete ?? false,
      generateExisting: generation?.generateExisting ?? spec.generateExisting ?? false,
    };
  },
};
