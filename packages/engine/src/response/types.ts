import type { FailureAction, JsonValue, KubeObject } from "@kyverno-ts/api";

/**
 * Outcome of one rule, exactly as upstream defines it:
 * - `pass`: the resource satisfies the rule;
 * - `fail`: the resource violates the rule (pattern mismatch, deny true, negation anchor);
 * - `warn`: a failure reported as a warning (e.g. `--audit-warn`);
 * - `error`: the rule could not be evaluated (variable, context or JMESPath failure);
 * - `skip`: the rule matched but did not apply (preconditions false, conditional anchor, exception).
 * A rule that does not match the resource produces no response at all.
 */
export type RuleStatus = "pass" | "fail" | "warn" | "error" | "skip";

/** Status and message of one evaluation (a rule, or a foreach element of it). */
export interface Outcome {
  status: RuleStatus;
  message: string;
}

/** Kind of rule a response comes from, with upstream's spelling. */
export type RuleType = "Validation" | "Mutation" | "Generation" | "ImageVerify";

/** A reference to the resource a response is about. */
export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

/** An object a generate rule wants to exist. */
export interface GeneratedResource {
  /** The desired object, without Kyverno's bookkeeping labels. */
  object: KubeObject;
  /** `generate.kyverno.io/*` and managed-by labels tying the object to its policy, rule and trigger. */
  labels: Record<string, string>;
}

/** A target of a mutate-existing rule and how the rule changes it. */
export interface TargetPatch {
  target: KubeObject;
  patched: JsonValue;
  patch: JsonValue[];
}

/** One rule's result: what a PolicyReport result line needs. */
export interface RuleResponse {
  name: string;
  type: RuleType;
  status: RuleStatus;
  message: string;
  /** Effective failure action for this resource (overrides applied). Only meaningful for validate rules. */
  failureAction: FailureAction;
  /** `reportProperties` of the rule with variables substituted. */
  properties?: Record<string, string>;
  /** Set when a PolicyException turned the result into `skip`. */
  exception?: { namespace: string; name: string };
  /** Mutate-existing rules: each changed target with its patched form and RFC 6902 patch. */
  patchedTargets?: TargetPatch[];
  /** Generate rules: the objects the rule wants to exist (the engine never writes them). */
  generated?: GeneratedResource[];
  /** Generate rules: keep generated objects in sync with the rule and trigger. */
  synchronize?: boolean;
  /** Generate rules: leave generated objects in place when the policy is deleted. */
  orphanDownstreamOnPolicyDelete?: boolean;
  /** Generate rules: also generate for triggers that existed before the policy. */
  generateExisting?: boolean;
}

/** All rule results of one policy for one resource. */
export interface PolicyResponse {
  /** The policy: a kyverno.io kind, a policies.kyverno.io kind or a Kubernetes admission policy. */
  policy: { kind: string; name: string; namespace?: string };
  resource: ResourceRef;
  rules: RuleResponse[];
  /** From the `policies.kyverno.io/category` annotation, when present. */
  category?: string;
  /** From the `policies.kyverno.io/severity` annotation, when present. */
  severity?: string;
  /** Whether the policy runs in background scans (`spec.background`). */
  background: boolean;
  /** Milliseconds since epoch, from the injected clock. */
  timestamp: number;
  /** The resource after mutation, when mutate rules ran; unset otherwise. */
  patchedResource?: JsonValue;
  /** RFC 6902 operations from the original resource to `patchedResource` (mutate only). */
  patch?: JsonValue[];
}
