import type { Policy } from "@kyverno-ts/api";
import type { RuleResponse, RuleStatus } from "@kyverno-ts/engine";

/** Annotation that, set to `"false"` on a policy, turns its failures into warnings (upstream). */
export const SCORED_ANNOTATION = "policies.kyverno.io/scored";

/**
 * The PolicyReport result of a rule response, as upstream's `ComputePolicyReportResult`: the rule
 * status, except that a failure is a `warn` when the policy is not scored, or when `auditWarn` is
 * set and the rule's effective failure action is Audit.
 */
export function reportResult(policy: Policy, rule: RuleResponse, auditWarn: boolean): RuleStatus {
  if (rule.status !== "fail") return rule.status;
  if (policy.metadata.annotations?.[SCORED_ANNOTATION] === "false") return "warn";
  if (auditWarn && rule.failureAction === "Audit") return "warn";
  return "fail";
}

/** Counts of report results, in upstream's order. */
export interface ResultCounts {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
}

/** A zeroed `ResultCounts`. */
export function emptyCounts(): ResultCounts {
  return { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
}
