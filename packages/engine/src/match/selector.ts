import type { LabelSelector } from "@kyverno-ts/api";
import { matchRequirement } from "@kyverno-ts/k8s";
import { hasWildcard, matchWildcard } from "../wildcard/wildcard.js";

/**
 * Kyverno's label selector for classic policy matching: a Kubernetes label selector whose `matchLabels`
 * keys and values may hold `*` / `?` wildcards (such an entry holds when some label matches both).
 * `matchExpressions` are literal. An empty selector selects everything; an invalid one (`In` / `NotIn`
 * without values, `Exists` / `DoesNotExist` with values, an unknown operator) selects nothing, as
 * upstream fails to parse it. CEL policies and bindings use the plain Kubernetes selector of
 * `@kyverno-ts/k8s` instead.
 */
export function matchWildcardSelector(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!matchLabel(key, value, labels)) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    if (!matchRequirement(requirement, labels)) return false;
  }
  return true;
}

function matchLabel(key: string, value: string, labels: Record<string, string>): boolean {
  if (!hasWildcard(key) && !hasWildcard(value)) return Object.hasOwn(labels, key) && labels[key] === value;
  return Object.entries(labels).some(([k, v]) => matchWildcard(key, k) && matchWildcard(value, v));
}
