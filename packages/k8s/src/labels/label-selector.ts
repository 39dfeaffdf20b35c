/**
 * Kubernetes label selectors (`metav1.LabelSelector`) as `LabelSelectorAsSelector` evaluates them:
 * `matchLabels` are exact, `matchExpressions` use `In`, `NotIn`, `Exists` and `DoesNotExist`. No
 * wildcards (those are Kyverno's extension for classic policy matching, which the engine adds).
 */
import type { LabelSelector } from "@kyverno-ts/api";

type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/**
 * True when `selector` selects `labels`. An empty selector selects everything; an invalid one (`In` /
 * `NotIn` without values, `Exists` / `DoesNotExist` with values, an unknown operator) selects nothing,
 * as Kubernetes fails to parse it.
 */
export function matchLabelSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!(Object.hasOwn(labels, key) && labels[key] === value)) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    if (!matchRequirement(requirement, labels)) return false;
  }
  return true;
}

/** One `matchExpressions` requirement against a label set (invalid requirements hold for nothing). */
export function matchRequirement(
  requirement: Requirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const values = requirement.values ?? [];
  const present = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case "In":
      return values.length > 0 && present && values.includes(labels[requirement.key] ?? "");
    case "NotIn":
      return values.length > 0 && (!present || !values.includes(labels[requirement.key] ?? ""));
    case "Exists":
      return values.length === 0 && present;
    case "DoesNotExist":
      return values.length === 0 && !present;
    default:
      return false;
  }
}
