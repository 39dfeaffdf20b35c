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
