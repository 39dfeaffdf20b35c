import type { LabelSelector } from "@kyverno-ts/api";
import { hasWildcard, matchWildcard } from "../wildcard/wildcard.js";

type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/**
 * True when a Kubernetes label selector selects a label set. As in Kyverno, `matchLabels` keys and values
 * may hold `*` / `?` wildcards: such an entry holds when some label matches both. `matchExpressions` are
 * literal. An empty selector selects everything; an invalid one (`In` / `NotIn` without values,
 * `Exists` / `DoesNotExist` with values, an unknown operator) selects nothing, as upstream fails to parse it.
 */
export function matchLabelSelector(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!matchLabel(key, value, labels)) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    if (!matchRequirement(req, labels)) return false;
  }
  return true;
}

function matchLabel(key: string, value: string, labels: Record<string, string>): boolean {
  if (!hasWildcard(key) && !hasWildcard(value)) return Object.hasOwn(labels, key) && labels[key] === value;
  return Object.entries(labels).some(([k, v]) => matchWildcard(key, k) && matchWildcard(value, v));
}

function matchRequirement(req: Requirement, labels: Record<string, string>): boolean {
  const values = req.values ?? [];
  const present = Object.hasOwn(labels, req.key);
  switch (req.operator) {
    case "In":
      return values.length > 0 && present && values.includes(labels[req.key] ?? "");
    case "NotIn":
      return values.length > 0 && (!present || !values.includes(labels[req.key] ?? ""));
    case "Exists":
      return values.length === 0 && present;
    case "DoesNotExist":
      return values.length === 0 && !present;
    default:
      return false;
  }
}
