import type { MatchResources, ResourceFilter, Rule } from "@kyverno-ts/api";
import { type KindSelector, matchKindSelector, parseKindSelector, type RequestKind } from "../match/index.js";
import { hasWildcard } from "../wildcard/wildcard.js";

/**
 * What a rule's `match` says about request kinds, read once at compile time: the selectors to check
 * (`undefined` when some filter names no kinds, so any kind may match), and the exact kind names they
 * can select (`undefined` when a selector's kind holds a wildcard).
 */
export interface RuleKinds {
  readonly selectors: readonly KindSelector[] | undefined;
  readonly kinds: ReadonlySet<string> | undefined;
}

function filtersOf(m: MatchResources): ResourceFilter[] {
  if (m.any && m.any.length > 0) return m.any;
  if (m.all && m.all.length > 0) return m.all;
  return [m];
}

/** Reads the kind selectors of a rule's `match`; a filter without kinds (or `all` blocks) selects any kind. */
export function ruleKinds(rule: Rule): RuleKinds {
  if (rule.match.all && rule.match.all.length > 0) return { selectors: undefined, kinds: undefined };
  const selectors: KindSelector[] = [];
  for (const f of filtersOf(rule.match)) {
    const kinds = f.resources?.kinds;
    if (!kinds || kinds.length === 0) return { selectors: undefined, kinds: undefined };
    for (const k of kinds) {
      const sel = parseKindSelector(k);
      if (sel) selectors.push(sel);
    }
  }
  const names = new Set<string>();
  for (const sel of selectors) {
    if (hasWildcard(sel.kind)) return { selectors, kinds: undefined };
    names.add(sel.kind);
  }
  return { selectors, kinds: names };
}

/**
 * Cheap pre-check on the request kind alone: false means the rule cannot match, so the full
 * match/exclude evaluation is not needed.
 */
export function kindPrecheck(kinds: RuleKinds): (req: RequestKind) => boolean {
  const selectors = kinds.selectors;
  if (selectors === undefined) return () => true;
  if (selectors.length === 1) {
    const only = selectors[0] as KindSelector;
    return (req) => matchKindSelector(only, req);
  }
  return (req) => {
    for (const sel of selectors) if (matchKindSelector(sel, req)) return true;
    return false;
  };
}

/** Rules grouped by the request kind they may match. */
export interface KindIndex<T> {
  /** The rules that may match a request of this kind, in their original order. */
  rulesFor(kind: string): readonly T[];
}

/**
 * Indexes rules by kind: a rule that names exact kinds goes into those kinds' buckets, a rule whose
 * kinds hold a wildcard (or that names none) into every bucket and the wildcard bucket used for kinds
 * no rule names. Each bucket keeps the original rule order. The index only narrows the candidates:
 * the kind pre-check and the full match still run on them.
 */
export function buildKindIndex<T>(rules: readonly T[], kindsOf: (rule: T) => RuleKinds): KindIndex<T> {
  const names = new Set<string>();
  for (const rule of rules) for (const name of kindsOf(rule).kinds ?? []) names.add(name);
  const wildcard = rules.filter((rule) => kindsOf(rule).kinds === undefined);
  const byKind = new Map<string, readonly T[]>();
  for (const name of names) {
    byKind.set(
      name,
      rules.filter((rule) => {
        const kinds = kindsOf(rule).kinds;
        return kinds === undefined || kinds.has(name);
      }),
    );
  }
  return { rulesFor: (kind) => byKind.get(kind) ?? wildcard };
}
