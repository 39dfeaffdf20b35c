import type { JsonValue, PodSecurityExclude } from "@kyverno-ts/api";

/** A Pod Security Standards profile, from least to most restrictive. */
export type PssLevel = "privileged" | "baseline" | "restricted";

/** The pod spec list a container comes from, as named in restricted-field paths. */
export type PssContainerKind = "containers" | "initContainers" | "ephemeralContainers";

/** The container a finding belongs to; `images` of an exclude entry are matched against `image`. */
export interface PssContainerRef {
  name: string;
  image: string;
  kind: PssContainerKind;
}

/**
 * One offending field occurrence of a check. `restrictedField` uses Kyverno's notation
 * (`spec.containers[*].securityContext.privileged`, `spec.hostIPC`,
 * `metadata.annotations["container.apparmor.security.beta.kubernetes.io/*"]`); `container` is set for
 * container-level findings only; `values` are the offending values as strings (`"true"`, `"0"`, a
 * capability, a profile type, a hostPath path, a volume name), empty when the field is missing but required.
 */
export interface PssFinding {
  restrictedField: string;
  /**
   * The concrete field the finding is about, as upstream's field errors name it
   * (`spec.containers[0].securityContext.runAsNonRoot`, `spec.volumes[1].hostPath`); defaults to
   * `restrictedField`.
   */
  field?: string;
  container?: PssContainerRef;
  values: string[];
}

/**
 * A failed Pod Security check. `forbiddenReason` / `forbiddenDetail` are upstream's texts for the whole
 * pod (exclusions do not rewrite them, as in Kyverno); `findings` are the occurrences left after exclusions.
 */
export interface PssCheckResult {
  /** Upstream check ID, e.g. `hostNamespaces`, `capabilities_restricted`. */
  id: string;
  /** The control as named in `exclude.controlName`, e.g. `Host Namespaces`. */
  controlName: string;
  forbiddenReason: string;
  forbiddenDetail: string;
  findings: PssFinding[];
}

/** Input of `evaluatePodSecurity`: the rule's `podSecurity` block and the pod to check. */
export interface PodSecurityInput {
  level: string;
  /** `latest` (the default) or `v1.N`. */
  version?: string;
  exclude?: PodSecurityExclude[];
  podMetadata: JsonValue;
  podSpec: JsonValue;
}

/** Result of `evaluatePodSecurity`: the failed checks, or an error for an invalid level, version or control. */
export type PodSecurityEvaluation =
  | { ok: true; allowed: boolean; failures: PssCheckResult[] }
  | { ok: false; error: string };

/** What a failing versioned check reports before exclusions. */
export interface CheckOutcome {
  forbiddenReason: string;
  forbiddenDetail: string;
  findings: PssFinding[];
}
