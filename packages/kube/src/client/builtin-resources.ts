/**
 * The kinds Kubernetes itself serves: for each, its resource (plural, as in URLs and admission
 * requests) and the apiVersions it is served under (preferred first). What discovery would answer
 * for them, known without asking: for mapping a policy's bare kind (`Deployment`) to its group, and an
 * admission request's `resource` (`apps/v1 deployments`) back to its kind, which subresource requests
 * (`deployments/scale` carries a `Scale`) need to be matched as `Deployment/scale`.
 */

/** One built-in kind. */
export interface BuiltinResource {
  readonly kind: string;
  /** The resource name: the plural used in URLs. */
  readonly plural: string;
  /** `v1` for the core group, `<group>/<version>` otherwise; the preferred version first. */
  readonly apiVersions: readonly string[];
}

const r = (kind: string, plural: string, ...apiVersions: string[]): BuiltinResource => ({
  kind,
  plural,
  apiVersions,
});

/** Every built-in kind policies commonly name, with its served versions. */
export const BUILTIN_RESOURCES: readonly BuiltinResource[] = [
  r("Binding", "bindings", "v1"),
  r("ConfigMap", "configmaps", "v1"),
  r("Endpoints", "endpoints", "v1"),
  r("Event", "events", "v1", "events.k8s.io/v1"),
  r("LimitRange", "limitranges", "v1"),
  r("Namespace", "namespaces", "v1"),
  r("Node", "nodes", "v1"),
  r("PersistentVolume", "persistentvolumes", "v1"),
  r("PersistentVolumeClaim", "persistentvolumeclaims", "v1"),
  r("Pod", "pods", "v1"),
  r("PodTemplate", "podtemplates", "v1"),
  r("ReplicationController", "replicationcontrollers", "v1"),
  r("ResourceQuota", "resourcequotas", "v1"),
  r("Secret", "secrets", "v1"),
  r("Service", "services", "v1"),
  r("ServiceAccount", "serviceaccounts", "v1"),
  r("ControllerRevision", "controllerrevisions", "apps/v1"),
  r("DaemonSet", "daemonsets", "apps/v1"),
  r("Deployment", "deployments", "apps/v1"),
  r("ReplicaSet", "replicasets", "apps/v1"),
  r("StatefulSet", "statefulsets", "apps/v1"),
  r("CronJob", "cronjobs", "batch/v1"),
  r("Job", "jobs", "batch/v1"),
  r("HorizontalPodAutoscaler", "horizontalpodautoscalers", "autoscaling/v2", "autoscaling/v1"),
  r("Ingress", "ingresses", "networking.k8s.io/v1"),
  r("IngressClass", "ingressclasses", "networking.k8s.io/v1"),
  r("NetworkPolicy", "networkpolicies", "networking.k8s.io/v1"),
  r("PodDisruptionBudget", "poddisruptionbudgets", "policy/v1"),
  r("ClusterRole", "clusterroles", "rbac.authorization.k8s.io/v1"),
  r("ClusterRoleBinding", "clusterrolebindings", "rbac.authorization.k8s.io/v1"),
  r("Role", "roles", "rbac.authorization.k8s.io/v1"),
  r("RoleBinding", "rolebindings", "rbac.authorization.k8s.io/v1"),
  r("CSIDriver", "csidrivers", "storage.k8s.io/v1"),
  r("CSIStorageCapacity", "csistoragecapacities", "storage.k8s.io/v1"),
  r("StorageClass", "storageclasses", "storage.k8s.io/v1"),
  r("VolumeAttachment", "volumeattachments", "storage.k8s.io/v1"),
  r("FlowSchema", "flowschemas", "flowcontrol.apiserver.k8s.io/v1"),
  r("PriorityLevelConfiguration", "prioritylevelconfigurations", "flowcontrol.apiserver.k8s.io/v1"),
  r("PriorityClass", "priorityclasses", "scheduling.k8s.io/v1"),
  r("RuntimeClass", "runtimeclasses", "node.k8s.io/v1"),
  r("Lease", "leases", "coordination.k8s.io/v1"),
  r("EndpointSlice", "endpointslices", "discovery.k8s.io/v1"),
  r("CustomResourceDefinition", "customresourcedefinitions", "apiextensions.k8s.io/v1"),
  r("MutatingWebhookConfiguration", "mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1"),
  r("ValidatingWebhookConfiguration", "validatingwebhookconfigurations", "admissionregistration.k8s.io/v1"),
  r("ValidatingAdmissionPolicy", "validatingadmissionpolicies", "admissionregistration.k8s.io/v1"),
  r(
    "ValidatingAdmissionPolicyBinding",
    "validatingadmissionpolicybindings",
    "admissionregistration.k8s.io/v1",
  ),
  r("CertificateSigningRequest", "certificatesigningrequests", "certificates.k8s.io/v1"),
  r("TokenReview", "tokenreviews", "authentication.k8s.io/v1"),
  r("SubjectAccessReview", "subjectaccessreviews", "authorization.k8s.io/v1"),
  r("APIService", "apiservices", "apiregistration.k8s.io/v1"),
];

const BY_KIND: ReadonlyMap<string, BuiltinResource> = new Map(BUILTIN_RESOURCES.map((b) => [b.kind, b]));

/** `<group>/<plural>` (core group: `/<plural>`) → kind. */
const BY_RESOURCE: ReadonlyMap<string, string> = new Map(
  BUILTIN_RESOURCES.flatMap((b) =>
    b.apiVersions.map((apiVersion) => {
      const slash = apiVersion.lastIndexOf("/");
      const group = slash < 0 ? "" : apiVersion.slice(0, slash);
      return [`${group}/${b.plural}`, b.kind] as const;
    }),
  ),
);

/** The apiVersions a built-in kind is served under (preferred first), or undefined for other kinds. */
export function builtinApiVersions(kind: string): readonly string[] | undefined {
  return BY_KIND.get(kind)?.apiVersions;
}

/** The kind of a built-in resource of an API group (`""` for core), or undefined. */
export function builtinKindOf(group: string, resource: string): string | undefined {
  return BY_RESOURCE.get(`${group}/${resource}`);
}
