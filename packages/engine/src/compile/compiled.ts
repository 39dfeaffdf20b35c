import type { MatchResources, Policy, ResourceFilter, Rule } from "@kyverno-ts/api";
import type { CompiledPolicy } from "../engine-types.js";
import { type KindSelector, matchKindSelector, parseKindSelector, type RequestKind } from "../match/index.js";

/** A rule ready for evaluation. */
export interface CompiledRule {
  readonly rule: Rule;
  /** The rule is a generated `autogen-*` rule. */
  readonly autogen: boolean;
  /**
   * Cheap pre-check on the request kind alone, from the selectors of `match` parsed once: false means
   * the rule cannot match, so the full match/exclude evaluation is not needed.
   */
  readonly mayMatchKind: (req: RequestKind) => boolean;
}

function filtersOf(m: MatchResources): ResourceFilter[] {
  if (m.any && m.any.length > 0) return m.any;
  if (m.all && m.all.length > 0) return m.all;
  return [m];
}

/** Builds the kind pre-check of a rule; a filter without kinds (or `all` blocks) disables it. */
function kindPrecheck(rule: Rule): (req: RequestKind) => boolean {
  if (rule.match.all && rule.match.all.length > 0) return () => true;
  const selectors: KindSelector[] = [];
  for (const f of filtersOf(rule.match)) {
    const kinds = f.resources?.kinds;
    if (!kinds || kinds.length === 0) return () => true;
    for (const k of kinds) {
      const sel = parseKindSelector(k);
      if (sel) selectors.push(sel);
    }
  }
  return (req) => selectors.some((sel) => matchKindSelector(sel, req));
}

/** Engine-internal view of a compiled policy; callers only see `CompiledPolicy`. */
export interface CompiledPolicyImpl extends CompiledPolicy {
  readonly rules: readonly CompiledRule[];
  readonly category: string | undefined;
  readonly severity: string | undefined;
  /** Whether any rule mentions the `images` variable, so requests only extract images when needed. */
  readonly usesImages: boolean;
  /** Namespace of a namespaced `Policy`; undefined for a ClusterPolicy. */
  readonly namespace: string | undefined;
  /** How PolicyExceptions name this policy: `name`, or `namespace/name` for a namespaced Policy. */
  readonly key: string;
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
    rules: rules.map((rule) => ({
      rule,
      autogen: !original.has(rule.name),
      mayMatchKind: kindPrecheck(rule),
    })),
    usesImages: JSON.stringify(rules).includes("images"),
    category: annotations[CATEGORY_ANNOTATION],
    severity: annotations[SEVERITY_ANNOTATION],
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : undefined,
    key:
      policy.kind === "Policy"
        ? `${policy.metadata.namespace ?? "default"}/${policy.metadata.name}`
        : policy.metadata.name,
  };
}
