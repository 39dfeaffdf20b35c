import type { Policy, Rule } from "@kyverno-ts/api";
import type { CompiledPolicy } from "../engine-types.js";

/** A rule ready for evaluation. */
export interface CompiledRule {
  readonly rule: Rule;
  /** The rule is a generated `autogen-*` rule. */
  readonly autogen: boolean;
}

/** Engine-internal view of a compiled policy; callers only see `CompiledPolicy`. */
export interface CompiledPolicyImpl extends CompiledPolicy {
  readonly rules: readonly CompiledRule[];
  readonly category: string | undefined;
  readonly severity: string | undefined;
  /** Namespace of a namespaced `Policy`; undefined for a ClusterPolicy. */
  readonly namespace: string | undefined;
}

/** Recovers the internal view; returns undefined for objects not produced by `compile`. */
export function internalView(policy: CompiledPolicy): CompiledPolicyImpl | undefined {
  return "rules" in policy ? (policy as CompiledPolicyImpl) : undefined;
}

/** Annotation keys whose values become report `category` and `severity`. */
export const CATEGORY_ANNOTATION = "policies.kyverno.io/category";
/** See `CATEGORY_ANNOTATION`. */
export const SEVERITY_ANNOTATION = "policies.kyverno.io/severity";

/** Builds the compiled form of a policy from its (already expanded) rules. */
export function makeCompiled(policy: Policy, rules: Rule[]): CompiledPolicyImpl {
  const original = new Set(policy.spec.rules.map((r) => r.name));
  const annotations = policy.metadata.annotations ?? {};
  return {
    policy,
    ruleNames: rules.map((r) => r.name),
    rules: rules.map((rule) => ({ rule, autogen: !original.has(rule.name) })),
    category: annotations[CATEGORY_ANNOTATION],
    severity: annotations[SEVERITY_ANNOTATION],
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : undefined,
  };
}
