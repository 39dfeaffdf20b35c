import type { FailureAction, FailureActionOverride } from "@kyverno-ts/api";
import { matchWildcardSelector } from "../match/index.js";
import { matchWildcard } from "../wildcard/wildcard.js";

/**
 * The effective failure action of a validate rule for a resource namespace: the rule's
 * `failureAction` (else the policy's), replaced by the first override whose namespaces or
 * namespaceSelector match.
 */
export function effectiveFailureAction(
  base: FailureAction,
  overrides: readonly FailureActionOverride[] | undefined,
  namespace: string,
  namespaceLabels: Record<string, string> | undefined,
): FailureAction {
  if (!overrides || namespace === "") return base;
  for (const o of overrides) {
    const byName = o.namespaces?.some((n) => matchWildcard(n, namespace)) ?? false;
    const bySelector = o.namespaceSelector
      ? matchWildcardSelector(o.namespaceSelector, namespaceLabels ?? {})
      : false;
    if (byName || bySelector) return o.action;
  }
  return base;
}
