import type { KubeObject } from "@kyverno-ts/api";

/**
 * Kinds that are cluster-scoped. The CLI has no API server to ask, so like upstream's offline mode
 * it relies on a built-in list; any other kind is treated as namespaced.
 */
const CLUSTER_SCOPED = new Set([
  "APIService",
  "AdmissionReport",
  "CertificateSigningRequest",
  "ClusterAdmissionReport",
  "ClusterBackgroundScanReport",
  "ClusterCleanupPolicy",
  "ClusterEphemeralReport",
  "ClusterIssuer",
  "ClusterPolicy",
  "ClusterPolicyReport",
  "ClusterReport",
  "ClusterRole",
  "ClusterRoleBinding",
  "ComponentStatus",
  "CSIDriver",
  "CSINode",
  "CustomResourceDefinition",
  "FlowSchema",
  "GeneratingPolicy",
  "GlobalContextEntry",
  "ImageValidatingPolicy",
  "IngressClass",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "MutatingPolicy",
  "MutatingWebhookConfiguration",
  "Namespace",
  "Node",
  "PersistentVolume",
  "PodSecurityPolicy",
  "PriorityClass",
  "PriorityLevelConfiguration",
  "RuntimeClass",
  "SelfSubjectAccessReview",
  "SelfSubjectRulesReview",
  "StorageClass",
  "SubjectAccessReview",
  "TokenReview",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingPolicy",
  "ValidatingWebhookConfiguration",
  "VolumeAttachment",
]);

/** True when resources of this kind live in a namespace (anything not on the cluster-scoped list). */
export function isNamespacedKind(kind: string): boolean {
  return !CLUSTER_SCOPED.has(kind);
}

/**
 * Puts a namespaced resource without `metadata.namespace` into `default`, as the Kyverno CLI does,
 * so `default/name` in a test's results finds it. Returns the same object when nothing changes.
 */
export function withDefaultNamespace(resource: KubeObject): KubeObject {
  const kind = typeof resource.kind === "string" ? resource.kind : "";
  if (!isNamespacedKind(kind) || resource.metadata?.namespace) return resource;
  return { ...resource, metadata: { ...resource.metadata, namespace: "default" } };
}
