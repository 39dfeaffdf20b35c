/**
 * What the policy cache indexes a policy by: the kinds its rules can match (autogen controllers
 * included), the operations, and the rule types it has. The index is a pre-filter: it may select a
 * policy that then matches nothing (the engine decides), but never leaves out one that could match.
 */
import type { MatchResources, Policy, ResourceFilter, Rule } from "@kyverno-ts/api";
import type { CompiledPolicy, Operation } from "@kyverno-ts/engine";
import { hasWildcard } from "@kyverno-ts/engine";

/** The kind bucket of policies whose rules may match any kind. */
export const ANY_KIND = "*";

/** Pod controllers autogen may expand Pod rules to (upstream's defaults). */
const AUTOGEN_DEFAULT_CONTROLLERS: readonly string[] = [
  "CronJob",
  "DaemonSet",
  "Deployment",
  "Job",
  "ReplicaSet",
  "ReplicationController",
  "StatefulSet",
];
const AUTOGEN_ANNOTATION = "pod-policies.kyverno.io/autogen-controllers";

/** The kinds of rule a policy has, which decide the webhooks it is evaluated on. */
export interface RuleTypes {
  validate: boolean;
  /** Mutate rules applied at admission (not `targets`). */
  mutate: boolean;
  /** Mutate rules with `targets` (mutate existing, done by the background controller). */
  mutateExisting: boolean;
  generate: boolean;
  verifyImages: boolean;
}

function filtersOf(block: MatchResources): ResourceFilter[] {
  const out: ResourceFilter[] = [];
  if (block.resources) out.push(block);
  for (const f of block.any ?? []) out.push(f);
  for (const f of block.all ?? []) out.push(f);
  return out;
}

/** The kind part of a `resources.kinds` entry in any of Kyverno's spellings (see the engine's kind parser). */
export function kindOfSelector(spec: string): string {
  const parts = spec.split("/");
  const stripSub = (k: string): string => (k.includes(".") ? k.slice(0, k.indexOf(".")) : k);
  const [a = "", b = "", c = ""] = parts;
  switch (parts.length) {
    case 1:
      return stripSub(a);
    case 2:
      if (a === "*" && (b === "*" || /^[a-z]/.test(b))) return ANY_KIND;
      return /^(\*|v\d+((alpha|beta)\d*)?)$/.test(a) ? stripSub(b) : a;
    case 3:
      return /^(\*|v\d+((alpha|beta)\d*)?)$/.test(a) && !/^[A-Z]/.test(c) ? b : stripSub(c);
    default:
      return c;
  }
}

/**
 * Kinds a rule's match block can select, or `[ANY_KIND]` when a filter names no kinds or uses a
 * wildcard kind.
 */
function ruleKinds(rule: Rule): string[] {
  const kinds: string[] = [];
  const filters = filtersOf(rule.match);
  if (filters.length === 0) return [ANY_KIND];
  const withKinds = filters.filter((f) => (f.resources?.kinds ?? []).length > 0);
  // `all` needs every filter to match: one filter with kinds is enough to bound it; `any` needs all.
  const bounded =
    rule.match.all && rule.match.all.length > 0 ? withKinds.length > 0 : withKinds.length === filters.length;
  if (!bounded) return [ANY_KIND];
  for (const f of withKinds) {
    for (const spec of f.resources?.kinds ?? []) {
      const kind = kindOfSelector(spec);
      if (kind === "" || hasWildcard(kind)) return [ANY_KIND];
      kinds.push(kind);
    }
  }
  return kinds;
}

/** Operations a rule's match block can select, or undefined when some filter does not restrict them. */
function ruleOperations(rule: Rule): Operation[] | undefined {
  const out: Operation[] = [];
  for (const f of filtersOf(rule.match)) {
    const ops = f.resources?.operations;
    if (!ops || ops.length === 0) return undefined;
    out.push(...ops);
  }
  return out.length > 0 ? out : undefined;
}

/** Controllers autogen can add for a policy that has autogen rules: the defaults plus any named in the annotation. */
function autogenKinds(policy: Policy, compiled: CompiledPolicy): string[] {
  if (!compiled.ruleNames.some((n) => n.startsWith("autogen-"))) return [];
  const annotation = policy.metadata.annotations?.[AUTOGEN_ANNOTATION] ?? "";
  const named = annotation
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "" && s !== "none" && s !== "all");
  return [...AUTOGEN_DEFAULT_CONTROLLERS, ...named];
}

/** The index keys of a compiled policy. */
export interface IndexKeys {
  /** Sorted kinds, or `[ANY_KIND]`. */
  kinds: string[];
  /** Operations the policy can match; undefined for all. */
  operations: ReadonlySet<Operation> | undefined;
  types: RuleTypes;
}

/** Computes the index keys of a policy from its rules and compiled (autogen-expanded) rule names. */
export function indexKeys(policy: Policy, compiled: CompiledPolicy): IndexKeys {
  const kinds = new Set<string>();
  let allOperations = false;
  const operations = new Set<Operation>();
  const types: RuleTypes = {
    validate: false,
    mutate: false,
    mutateExisting: false,
    generate: false,
    verifyImages: false,
  };
  for (const rule of policy.spec.rules) {
    for (const k of ruleKinds(rule)) kinds.add(k);
    const ops = ruleOperations(rule);
    if (ops === undefined) allOperations = true;
    else for (const op of ops) operations.add(op);
    // verifyImages rules are answered by the validate webhook (an `error` until image verification exists).
    if (rule.validate || (rule.verifyImages ?? []).length > 0) types.validate = true;
    if (rule.mutate) {
      if ((rule.mutate.targets ?? []).length > 0) types.mutateExisting = true;
      else types.mutate = true;
    }
    if (rule.generate) types.generate = true;
    if ((rule.verifyImages ?? []).length > 0) types.verifyImages = true;
  }
  for (const k of autogenKinds(policy, compiled)) kinds.add(k);
  return {
    kinds: kinds.has(ANY_KIND) ? [ANY_KIND] : [...kinds].sort(),
    operations: allOperations ? undefined : operations,
    types,
  };
}
