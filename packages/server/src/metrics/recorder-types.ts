/** The label sets and the per-request recorder of the rule-result metrics (`metrics.ts`, `rule-results.ts`). */

/** The policy labels shared by results, changes and rule info. */
export interface PolicyLabels {
  /** `enforce` or `audit`. */
  validationMode: "enforce" | "audit";
  /** `cluster` (ClusterPolicy) or `namespaced` (Policy). */
  type: "cluster" | "namespaced";
  background: boolean;
  /** Namespace of a Policy; `-` for a ClusterPolicy. */
  namespace: string;
  name: string;
}

/** The request labels shared by every rule result of one admission request. */
export interface RequestRuleLabels {
  resourceKind: string;
  resourceNamespace: string;
  /** Upper-case admission operation; exported lower-case as upstream does. */
  operation: string;
  dryRun: boolean;
}

/**
 * Records the rule results of one admission request (see `AdmissionMetrics.ruleResults`): the
 * request's labels are resolved once, and each rule finds its series through a few lookups by
 * identity, without building a label key.
 */
export interface RuleResultRecorder {
  record(
    policy: PolicyLabels,
    rule: string,
    result: string,
    validationMode: "enforce" | "audit",
    ruleType: "validate" | "mutate" | "generate",
    durationSeconds: number,
  ): void;
}

/**
 * Why an admission request was evaluated by the evaluation pool's workers instead of the serving
 * thread (`kyverno_admission_offloaded_total`'s `reason`): a selected policy is remembered as slow (or
 * was found slow in the request's inline attempt), every inline attempt was cut at its budget, too
 * little of the deadline was left for an attempt, inline attempts are off (`inlineMs` 0), or the
 * review was large enough to be parsed by a worker.
 */
export const OFFLOAD_REASONS = ["slow_policy", "cut", "deadline", "inline_off", "large_body"] as const;
export type OffloadReason = (typeof OFFLOAD_REASONS)[number];
