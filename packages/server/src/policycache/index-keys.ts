/**
 * What the policy cache indexes a policy by: the kinds its rules can match (autogen rules included),
 * the operations, and the rule types it has — read from the engine's description of the compiled
 * rules (`CompiledPolicy.rules`), never re-derived from the policy's text. The index is a pre-filter:
 * it may select a policy that then matches nothing (the engine decides), but never leaves out one that
 * could match.
 */
import type { CompiledPolicy, Operation, RuleInfo } from "@kyverno-ts/engine";
import { hasWildcard } from "@kyverno-ts/engine";

/** The kind bucket of policies whose rules may match any kind. */
export const ANY_KIND = "*";

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

/** Kinds a rule can select, or `[ANY_KIND]` when a filter names no kinds or a wildcard kind. */
function ruleKinds(rule: RuleInfo): string[] {
  const { selections } = rule;
  if (selections.length === 0) return [ANY_KIND];
  // `all` needs every filter to match: one filter with kinds is enough to bound it; `any` needs all.
  const withKinds = selections.filter((s) => s.selectors.length > 0);
  const bounded =
    (rule.rule.match.all ?? []).length > 0 ? withKinds.length > 0 : withKinds.length === selections.length;
  if (!bounded) return [ANY_KIND];
  const kinds: string[] = [];
  for (const s of withKinds)
    for (const sel of s.selectors) {
      if (sel.kind === "" || hasWildcard(sel.kind)) return [ANY_KIND];
      kinds.push(sel.kind);
    }
  return kinds;
}

/** The index keys of a compiled policy. */
export interface IndexKeys {
  /** Sorted kinds, or `[ANY_KIND]`. */
  kinds: string[];
  /** Operations the policy can match; undefined for all. */
  operations: ReadonlySet<Operation> | undefined;
  types: RuleTypes;
}

/** Computes the index keys of a compiled (autogen-expanded) policy. */
export function indexKeys(compiled: CompiledPolicy): IndexKeys {
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
  for (const rule of compiled.rules) {
    for (const k of ruleKinds(rule)) kinds.add(k);
    if (rule.selections.length === 0 || rule.selections.some((s) => s.operations === undefined))
      allOperations = true;
    else for (const s of rule.selections) for (const op of s.operations ?? []) operations.add(op);
    types[rule.kind] = true;
    // verifyImages rules are answered by the validate webhook (an `error` until image verification exists).
    if (rule.kind === "verifyImages") types.validate = true;
  }
  return {
    kinds: kinds.has(ANY_KIND) ? [ANY_KIND] : [...kinds].sort(),
    operations: allOperations ? undefined : operations,
    types,
  };
}
