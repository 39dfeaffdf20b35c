import { type RuleResponse, type RuleStatus, reportStatus, SCORED_ANNOTATION } from "@kyverno-ts/engine";

/** What report results read of a policy of any kind: its annotations. */
export interface AnnotatedPolicy {
  metadata: { annotations?: Record<string, string> };
}

/** The engine's report options for a policy: unscored when its `scored` annotation is `"false"`. */
export function reportOptions(
  policy: AnnotatedPolicy,
  auditWarn: boolean,
): { unscored: boolean; auditWarn: boolean } {
  return { unscored: policy.metadata.annotations?.[SCORED_ANNOTATION] === "false", auditWarn };
}

/** The PolicyReport result of a rule response (see the engine's `reportStatus`). */
export function reportResult(policy: AnnotatedPolicy, rule: RuleResponse, auditWarn: boolean): RuleStatus {
  return reportStatus(rule, reportOptions(policy, auditWarn));
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
