/**
 * The checks upstream's policy validation webhook adds when a policy is updated: a generate rule's
 * spec is immutable except for what can be re-applied to the resources it generated (`data`,
 * `synchronize`, `orphanDownstreamOnPolicyDelete`), and warnings when a change will not reach resources
 * a generate or mutate-existing rule already handled.
 */
import { formatPath } from "../load/errors.js";
import type { JsonValue } from "./json.js";
import type { Generation, Policy, Rule } from "./types.js";

/** A problem of an update, with the path (in the new policy) it concerns. */
export interface PolicyUpdateIssue {
  readonly path: string;
  readonly message: string;
}

/** What an update means: errors reject it, warnings go back to the user with the admission. */
export interface PolicyUpdateResult {
  readonly errors: PolicyUpdateIssue[];
  readonly warnings: PolicyUpdateIssue[];
}

/** Canonical JSON (sorted keys), so equal rules compare equal whatever their key order. */
function canonical(value: JsonValue | undefined): string {
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A generate rule without its mutable fields (upstream's `resetMutableFields`), as canonical JSON. */
function immutablePart(rule: Rule): string {
  const g = rule.generate as Generation;
  const { data: _data, synchronize: _sync, orphanDownstreamOnPolicyDelete: _orphan, ...kept } = g;
  const foreach = kept.foreach?.map(({ data: _d, ...rest }) => rest);
  const generate = foreach === undefined ? kept : { ...kept, foreach };
  return canonical({ ...rule, generate } as unknown as JsonValue);
}

function generateRules(policy: Policy): Rule[] {
  return policy.spec.rules.filter((r) => r.generate !== undefined);
}

/**
 * Upstream's `immutableGenerateFields`: every generate rule of the smaller side must be found,
 * unchanged but for its mutable fields, on the other side; adding rules is fine, and so is deleting one.
 */
function immutabilityErrors(old: Policy, updated: Policy): PolicyUpdateIssue[] {
  if (generateRules(updated).length === 0) return [];
  const oldRules = generateRules(old).map(immutablePart);
  const newRules = generateRules(updated).map(immutablePart);
  const grows = oldRules.length <= newRules.length;
  const [needed, present] = grows ? [oldRules, new Set(newRules)] : [newRules, new Set(oldRules)];
  if (needed.every((h) => present.has(h))) return [];
  const changed = updated.spec.rules.findIndex(
    (r) => r.generate !== undefined && !new Set(oldRules).has(immutablePart(r)),
  );
  const path = changed < 0 ? "spec.rules" : formatPath(["spec", "rules", changed, "generate"]);
  const message = grows
    ? "change of immutable fields for a generate rule is disallowed"
    : "rule deletion - change of immutable fields for a generate rule is disallowed";
  return [{ path, message }];
}

function ruleChanged(old: Rule | undefined, rule: Rule): boolean {
  return (
    old !== undefined && canonical(old as unknown as JsonValue) !== canonical(rule as unknown as JsonValue)
  );
}

/** Warnings for changed generate and mutate-existing rules whose change does not reach what they did. */
function changeWarnings(old: Policy, updated: Policy): PolicyUpdateIssue[] {
  const before = new Map(old.spec.rules.map((r) => [r.name, r]));
  const warnings: PolicyUpdateIssue[] = [];
  updated.spec.rules.forEach((rule, i) => {
    if (!ruleChanged(before.get(rule.name), rule)) return;
    if (rule.generate !== undefined && rule.generate.synchronize !== true)
      warnings.push({
        path: formatPath(["spec", "rules", i, "generate"]),
        message: `rule ${rule.name}: resources generated before this change are not updated, as synchronize is false`,
      });
    const m = rule.mutate;
    const onUpdate = m?.mutateExistingOnPolicyUpdate ?? updated.spec.mutateExistingOnPolicyUpdate ?? false;
    if (m?.targets !== undefined && m.targets.length > 0 && !onUpdate)
      warnings.push({
        path: formatPath(["spec", "rules", i, "mutate"]),
        message: `rule ${rule.name}: existing targets are not mutated on this policy update, as mutateExistingOnPolicyUpdate is false; the change applies from the next trigger`,
      });
  });
  return warnings;
}

/**
 * Checks an update of a ClusterPolicy / Policy from `old` to `updated` (both loaded with `loadPolicy`):
 * errors for a changed generate rule spec, warnings for changes that will not reach resources already
 * generated or mutated. The policy validation webhook calls it on UPDATE requests, after `loadPolicy`
 * accepted the new object.
 */
export function validatePolicyUpdate(old: Policy, updated: Policy): PolicyUpdateResult {
  return { errors: immutabilityErrors(old, updated), warnings: changeWarnings(old, updated) };
}
