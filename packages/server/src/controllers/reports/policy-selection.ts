/**
 * Which classic policies a reconcile of a resource reads: those that can match its kind in its
 * namespace, those background scans evaluate, and those whose rows only admission writes; memoized per
 * policy set, kind and namespace.
 */
import type { CachedPolicy } from "../../policycache/policy-cache.js";

/** The label that keeps a policy out of every report (upstream 1.16), whatever its value. */
export const REPORTS_DISABLED_LABEL = "reports.kyverno.io/disabled";

/** Whether a policy's results are kept out of reports (`reports.kyverno.io/disabled`). */
export function reportsDisabled(p: CachedPolicy): boolean {
  return p.policy.metadata.labels?.[REPORTS_DISABLED_LABEL] !== undefined;
}

/** Whether a policy's rules can match a kind (by the policy cache's kind index) in a namespace. */
export function policyApplies(p: CachedPolicy, kind: string, namespace: string): boolean {
  return p.types.validate && reportsOn(p, kind, namespace);
}

/** Whether a policy of any rule type can report on a kind in a namespace. */
export function reportsOn(p: CachedPolicy, kind: string, namespace: string): boolean {
  if (reportsDisabled(p)) return false;
  if (p.namespace !== undefined && p.namespace !== namespace) return false;
  return p.kinds[0] === "*" || p.kinds.includes(kind);
}

/**
 * Whether the rows of a rule reach a report only from admission (or the background controller), so
 * that the report itself is where they survive a restart: mutate, generate and mutate-existing rules,
 * and validate rules no background scan answers (the policy is not scanned, or the rule reads
 * admission-only data).
 */
export function admissionFed(p: CachedPolicy, rule: string): boolean {
  const info = p.compiled.rules.find((r) => r.name === rule);
  if (info === undefined) return false;
  if (info.kind !== "validate" && info.kind !== "verifyImages") return true;
  return !scannedInBackground(p) || info.admissionOnly;
}

/** Whether a policy has rules whose rows only admission (or the background controller) writes. */
export function hasAdmissionFedRules(p: CachedPolicy): boolean {
  return p.compiled.rules.some((r) => admissionFed(p, r.name));
}

/** The classic policies of one kind in one namespace, as a reconcile sorts them. */
export interface Selection {
  /** Validate policies that can match it (`policyApplies`). */
  applicable: CachedPolicy[];
  /** Those background scans evaluate (`scannedInBackground`). */
  scanned: CachedPolicy[];
  /** Policies that can report on it with rows only admission writes. */
  admissionFed: CachedPolicy[];
  /** `applicable` then `admissionFed`: the policies whose versions are a scan's inputs. */
  reporting: CachedPolicy[];
}

/** Distinct kinds × namespaces remembered per policy set before the memo starts over. */
const MAX_SELECTIONS = 4096;

/**
 * The selections of the current policy set (`PolicyCache.policies()` is the same array until a policy
 * changes), by kind and namespace: computed once instead of filtering every policy for every resource.
 */
export function createSelections(): (
  policies: readonly CachedPolicy[],
  kind: string,
  namespace: string,
) => Selection {
  let current: readonly CachedPolicy[] | undefined;
  const memo = new Map<string, Selection>();
  return (policies, kind, namespace) => {
    if (policies !== current || memo.size >= MAX_SELECTIONS) {
      current = policies;
      memo.clear();
    }
    const key = `${kind}\u0000${namespace}`;
    let selection = memo.get(key);
    if (selection === undefined) {
      const applicable = policies.filter((p) => policyApplies(p, kind, namespace));
      const admissionFed = policies.filter((p) => reportsOn(p, kind, namespace) && hasAdmissionFedRules(p));
      selection = {
        applicable,
        scanned: applicable.filter(scannedInBackground),
        admissionFed,
        reporting: [...applicable, ...admissionFed],
      };
      memo.set(key, selection);
    }
    return selection;
  };
}

/**
 * Whether background scans evaluate a policy: `background: true`, and no wildcard kind (a kind
 * written `*`, or a group/version form whose kind part is `*`): upstream does not allow those in
 * background mode ("wildcard policy not allowed in background mode"). Admission results of the
 * others are still merged into reports.
 */
export function scannedInBackground(p: CachedPolicy): boolean {
  return p.policy.spec.background === true && p.kinds[0] !== "*";
}
