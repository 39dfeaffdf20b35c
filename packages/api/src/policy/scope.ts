/**
 * Whether a kind is cluster-scoped or namespaced, for the checks upstream runs with the API server's
 * discovery (generate targets and clone sources). Without discovery the built-in table answers for
 * the Kubernetes and Kyverno kinds; other kinds are not judged.
 */

/** `cluster`, `namespaced`, or undefined when unknown. */
export type KindScope = "cluster" | "namespaced" | undefined;

/** Answers the scope of a kind (`apiVersion` may be empty, `kind` may carry a `group/version/` prefix). */
export type ScopeOf = (apiVersion: string, kind: string) => KindScope;

const CLUSTER_KINDS: ReadonlySet<string> = new Set([
  "APIService",
  "CertificateSigningRequest",
  "ClusterCleanupPolicy",
  "ClusterEphemeralReport",
  "ClusterPolicy",
  "ClusterPolicyReport",
  "ClusterRole",
  "ClusterRoleBinding",
  "ComponentStatus",
  "CSIDriver",
  "CSINode",
  "CustomResourceDefinition",
  "DeletingPolicy",
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
  "PriorityClass",
  "PriorityLevelConfiguration",
  "RuntimeClass",
  "StorageClass",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "ValidatingPolicy",
  "ValidatingWebhookConfiguration",
  "VolumeAttachment",
]);

const NAMESPACED_KINDS: ReadonlySet<string> = new Set([
  "CleanupPolicy",
  "ConfigMap",
  "ControllerRevision",
  "CronJob",
  "DaemonSet",
  "Deployment",
  "Endpoints",
  "EndpointSlice",
  "EphemeralReport",
  "Event",
  "HorizontalPodAutoscaler",
  "Ingress",
  "Job",
  "Lease",
  "LimitRange",
  "NetworkPolicy",
  "PersistentVolumeClaim",
  "Pod",
  "PodDisruptionBudget",
  "PodTemplate",
  "Policy",
  "PolicyException",
  "PolicyReport",
  "ReplicaSet",
  "ReplicationController",
  "ResourceQuota",
  "Role",
  "RoleBinding",
  "Secret",
  "Service",
  "ServiceAccount",
  "StatefulSet",
  "UpdateRequest",
]);

/** Built-in groups of the table: a kind of another group (a CRD with a well-known name) is not judged. */
const KNOWN_GROUPS: ReadonlySet<string> = new Set([
  "",
  "apps",
  "batch",
  "policy",
  "networking.k8s.io",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "node.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "autoscaling",
  "certificates.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "admissionregistration.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "events.k8s.io",
  "kyverno.io",
  "policies.kyverno.io",
  "reports.kyverno.io",
  "wgpolicyk8s.io",
]);

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → core), or undefined when not given. */
function groupOf(apiVersion: string): string | undefined {
  if (apiVersion === "") return undefined;
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The scope of a kind from the built-in table of Kubernetes and Kyverno kinds. */
export const builtinScopeOf: ScopeOf = (apiVersion, kind) => {
  const parts = kind.split("/");
  const name = parts.at(-1) ?? "";
  const version = parts.length > 1 ? parts.slice(0, -1).join("/") : apiVersion;
  const group = groupOf(version);
  if (group !== undefined && !KNOWN_GROUPS.has(group)) return undefined;
  if (CLUSTER_KINDS.has(name)) return "cluster";
  if (NAMESPACED_KINDS.has(name)) return "namespaced";
  return undefined;
};
