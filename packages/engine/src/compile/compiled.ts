import type { FailureAction, FailureActionOverride, Policy, Rule } from "@kyverno-ts/api";
import type { CompiledCelRule } from "../cel-policies/classic-rule.js";
import type { CompiledPolicy, RuleInfo, UnsupportedRule } from "../engine-types.js";
import { parseKindSelector, type RequestKind } from "../match/index.js";
import { passMessage, unsupportedRuleMessage } from "../response/messages.js";
import type { Outcome, ValidationBlock } from "../validate/validate-rule.js";
import { buildKindIndex, kindPrecheck, type RuleKinds, ruleKinds } from "./kind-index.js";

/** A rule ready for evaluation: the fields evaluation reads on every request, read once here. */
export interface CompiledRule {
  readonly rule: Rule;
  /** The rule is a generated `autogen-*` rule. */
  readonly autogen: boolean;
  /**
   * Cheap pre-check on the request kind alone, from the selectors of `match` parsed once: false means
   * the rule cannot match, so the full match/exclude evaluation is not needed.
   */
  readonly mayMatchKind: (req: RequestKind) => boolean;
  /** The kinds `match` may select, for the policy's kind index. */
  readonly kinds: RuleKinds;
  /** The rule's `validate.failureAction`, else the policy's `validationFailureAction`. */
  readonly failureAction: FailureAction;
  /** The rule's `validate.failureActionOverrides`, else the policy's. */
  readonly failureActionOverrides: readonly FailureActionOverride[] | undefined;
  /** Set for validate rules. */
  readonly validation: CompiledValidation | undefined;
  /**
   * The rule reads admission-only data (`request.userInfo`, `request.roles`, `request.clusterRoles`,
   * `serviceAccountName`, `serviceAccountNamespace`): background scans skip it, as upstream (which
   * accepts such rules only in policies with `background: false`).
   */
  readonly admissionOnly: boolean;
}

const ADMISSION_ONLY = /request\.(?:userInfo|roles|clusterRoles)|serviceAccountName|serviceAccountNamespace/;

/** What evaluating a validate rule reads, with one object shape for every rule. */
export interface CompiledValidation {
  /** `validate`'s deny, pattern, anyPattern and foreach, as the block evaluator takes them. */
  readonly block: ValidationBlock;
  /** `validate.message`, unsubstituted. */
  readonly message: string | undefined;
  /** The name of an unsupported rule type (`validate.manifests`, `verifyImages`), which makes the rule an error. */
  readonly unsupported: string | undefined;
  /** `validate.cel`, compiled. */
  readonly cel: CompiledCelRule | undefined;
  readonly podSecurity: PodSecurity | undefined;
  /** The rule's `pass` outcome (`validation rule 'X' passed.`), one frozen object shared by its results. */
  readonly passed: Outcome;
}

type PodSecurity = NonNullable<NonNullable<Rule["validate"]>["podSecurity"]>;

/**
 * The validation of a validate rule, and of a `verifyImages` rule, which the validate pass answers
 * with an `error` until image verification exists (never a silent pass).
 */
function compileValidation(rule: Rule, cel: CompiledCelRule | undefined): CompiledValidation | undefined {
  const validation = rule.validate ?? ((rule.verifyImages ?? []).length > 0 ? {} : undefined);
  if (!validation) return undefined;
  // Every field the block evaluator reads, present (possibly undefined) in one fixed order. The rule's
  // own context and preconditions are the rule pipeline's, loaded before the block.
  const block: ValidationBlock = {
    context: undefined,
    preconditions: undefined,
    pattern: validation.pattern,
    anyPattern: validation.anyPattern,
    deny: validation.deny,
    foreach: validation.foreach,
  };
  return {
    block,
    message: validation.message,
    unsupported: unsupportedFeature(rule),
    cel,
    podSecurity: validation.podSecurity,
    passed: Object.freeze({ status: "pass", message: passMessage(rule.name) }),
  };
}

/** Compiles one rule (after autogen) of a policy. */
/** Subjects, roles and clusterRoles in match/exclude also need the requester, which a scan does not have. */
function ruleUsesSubjects(rule: Rule): boolean {
  const filters = [rule.match, rule.exclude].flatMap((m) =>
    m ? [m, ...(m.any ?? []), ...(m.all ?? [])] : [],
  );
  return filters.some(
    (f) => (f.subjects?.length ?? 0) > 0 || (f.roles?.length ?? 0) > 0 || (f.clusterRoles?.length ?? 0) > 0,
  );
}

function compileRule(
  policy: Policy,
  rule: Rule,
  autogen: boolean,
  cel: CompiledCelRule | undefined,
): CompiledRule {
  const kinds = ruleKinds(rule);
  const spec = policy.spec;
  return {
    rule,
    autogen,
    mayMatchKind: kindPrecheck(kinds),
    kinds,
    failureAction:
      rule.validate?.failureAction ?? verifyImagesFailureAction(rule) ?? spec.validationFailureAction,
    failureActionOverrides: rule.validate?.failureActionOverrides ?? spec.validationFailureActionOverrides,
    validation: compileValidation(rule, cel),
    admissionOnly: ADMISSION_ONLY.test(JSON.stringify(rule)) || ruleUsesSubjects(rule),
  };
}

/** Engine-internal view of a compiled policy; callers only see `CompiledPolicy`. */
export interface CompiledPolicyImpl extends CompiledPolicy {
  /** The rules as evaluation reads them (the public `rules` describes them for controllers). */
  readonly compiledRules: readonly CompiledRule[];
  /**
   * The rules that may match a request kind, in rule order (a subset of `rules` computed at compile
   * time): evaluation only walks these.
   */
  rulesFor(kind: string): readonly CompiledRule[];
  /** The policy's kind, name and `spec.background`, as its responses state them (a `PolicyHeader`). */
  readonly kind: string;
  readonly name: string;
  readonly background: boolean;
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

const EXTERNAL_ENTRIES = ["configMap", "apiCall", "globalReference"] as const;

/** True when `value` holds a `context` list (of a rule, a foreach, at any depth) with an external entry. */
function readsExternalContext(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(readsExternalContext);
  for (const [key, item] of Object.entries(value)) {
    if (
      key === "context" &&
      Array.isArray(item) &&
      item.some((e) => e !== null && typeof e === "object" && EXTERNAL_ENTRIES.some((k) => k in e))
    )
      return true;
    if (readsExternalContext(item)) return true;
  }
  return false;
}

/** `verifyImages[].failureAction` (the first entry's), which overrides the policy's for that rule. */
function verifyImagesFailureAction(rule: Rule): FailureAction | undefined {
  const first = rule.verifyImages?.[0];
  if (first === null || typeof first !== "object" || Array.isArray(first)) return undefined;
  const action = first.failureAction;
  return action === "Enforce" || action === "Audit" ? action : undefined;
}

/** The feature of a rule this engine does not evaluate yet, or undefined. */
export function unsupportedFeature(rule: Rule): string | undefined {
  if ((rule.verifyImages ?? []).length > 0) return "verifyImages";
  if (rule.validate?.manifests) return "validate.manifests";
  return undefined;
}

function unsupportedRules(rules: readonly Rule[]): UnsupportedRule[] {
  const out: UnsupportedRule[] = [];
  for (const rule of rules) {
    const feature = unsupportedFeature(rule);
    if (feature !== undefined)
      out.push({ rule: rule.name, feature, message: unsupportedRuleMessage(feature) });
  }
  return out;
}

/** The kind of work of a rule, as controllers route it (webhooks, passes, rule counts). */
export function ruleKindOf(rule: Rule): RuleInfo["kind"] {
  if ((rule.verifyImages ?? []).length > 0) return "verifyImages";
  if (rule.generate !== undefined) return "generate";
  if (rule.mutate !== undefined) return (rule.mutate.targets ?? []).length > 0 ? "mutateExisting" : "mutate";
  return "validate";
}

/** The public description of a compiled rule. */
function ruleInfo(c: CompiledRule, autogenOrigins: ReadonlyMap<string, string>): RuleInfo {
  const m = c.rule.match;
  const filters = [...(m.resources ? [m] : []), ...(m.any ?? []), ...(m.all ?? [])];
  const selections = filters.map((f) => {
    const kinds = f.resources?.kinds ?? [];
    const selectors = kinds.flatMap((k) => parseKindSelector(k) ?? []);
    const ops = f.resources?.operations;
    return { kinds, selectors, operations: ops && ops.length > 0 ? ops : undefined };
  });
  const subresources = [
    ...new Set(selections.flatMap((sel) => sel.selectors.map((k) => k.subresource).filter((x) => x !== ""))),
  ].sort();
  return {
    name: c.rule.name,
    kind: ruleKindOf(c.rule),
    rule: c.rule,
    autogenOf: c.autogen ? autogenOrigins.get(c.rule.name) : undefined,
    selections,
    subresources,
    readsCluster: readsExternalContext(c.rule),
    admissionOnly: c.admissionOnly,
  };
}

/** Builds the compiled form of a policy from its (already expanded) rules. */
export function makeCompiled(
  policy: Policy,
  rules: Rule[],
  celRules: ReadonlyMap<Rule, CompiledCelRule> = new Map(),
): CompiledPolicyImpl {
  const original = new Set(policy.spec.rules.map((r) => r.name));
  const annotations = policy.metadata.annotations ?? {};
  const compiled = rules.map((rule) =>
    compileRule(policy, rule, !original.has(rule.name), celRules.get(rule)),
  );
  // Autogen names are the original's with a prefix, cut to 63 characters, as the engine makes them.
  const autogenOrigins = new Map<string, string>();
  for (const r of policy.spec.rules)
    for (const prefix of ["autogen-", "autogen-cronjob-"])
      autogenOrigins.set(`${prefix}${r.name}`.slice(0, 63), r.name);
  const index = buildKindIndex(compiled, (r) => r.kinds);
  return {
    policy,
    kind: policy.kind,
    name: policy.metadata.name,
    background: policy.spec.background,
    ruleNames: rules.map((r) => r.name),
    compiledRules: compiled,
    rules: compiled.map((c) => ruleInfo(c, autogenOrigins)),
    rulesFor: index.rulesFor,
    usesImages: JSON.stringify(rules).includes("images"),
    readsExternalData: rules.some((rule) => readsExternalContext(rule)),
    unsupported: unsupportedRules(rules),
    category: annotations[CATEGORY_ANNOTATION],
    severity: annotations[SEVERITY_ANNOTATION],
    namespace: policy.kind === "Policy" ? (policy.metadata.namespace ?? "default") : undefined,
    key:
      policy.kind === "Policy"
        ? `${policy.metadata.namespace ?? "default"}/${policy.metadata.name}`
        : policy.metadata.name,
  };
}
