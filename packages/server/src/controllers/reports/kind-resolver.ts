/**
 * From the kinds policies name (`Pod`, `Deployment`, `Widget`: the policy cache keeps the kind part of
 * every spelling) to what an informer needs: the apiVersion, and whether the server lists and watches
 * it. Built-in kinds come from a table of the API groups Kubernetes serves; other kinds are looked up
 * among the cluster's CustomResourceDefinitions (storage version). Discovery confirms each answer.
 */
import type { KubeObject } from "@kyverno-ts/api";
import type { ApiFailure, KubeClient } from "@kyverno-ts/kube";

/** A kind the server serves and the controller can watch. */
export interface WatchableKind {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

/** Outcome of resolving one kind. */
export type KindResolution =
  | { ok: true; value: WatchableKind }
  | { ok: false; reason: "Unknown" | "NotWatchable" | "ApiError"; message: string; failure?: ApiFailure };

/** Resolves kind names; create one per controller with `createKindResolver`. */
export interface KindResolver {
  resolve(kind: string, signal?: AbortSignal): Promise<KindResolution>;
}

/** The preferred apiVersion of the kinds Kubernetes itself serves (also used to map resource paths to kinds). */
export const BUILTIN_KINDS: Readonly<Record<string, string>> = {
  Pod: "v1",
  Namespace: "v1",
  ConfigMap: "v1",
  Secret: "v1",
  Service: "v1",
  ServiceAccount: "v1",
  Node: "v1",
  Endpoints: "v1",
  PersistentVolume: "v1",
  PersistentVolumeClaim: "v1",
  ReplicationController: "v1",
  LimitRange: "v1",
  ResourceQuota: "v1",
  PodTemplate: "v1",
  Event: "v1",
  EndpointSlice: "discovery.k8s.io/v1",
  CSIStorageCapacity: "storage.k8s.io/v1",
  VolumeAttachment: "storage.k8s.io/v1",
  FlowSchema: "flowcontrol.apiserver.k8s.io/v1",
  PriorityLevelConfiguration: "flowcontrol.apiserver.k8s.io/v1",
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  ControllerRevision: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
  Ingress: "networking.k8s.io/v1",
  IngressClass: "networking.k8s.io/v1",
  NetworkPolicy: "networking.k8s.io/v1",
  Role: "rbac.authorization.k8s.io/v1",
  RoleBinding: "rbac.authorization.k8s.io/v1",
  ClusterRole: "rbac.authorization.k8s.io/v1",
  ClusterRoleBinding: "rbac.authorization.k8s.io/v1",
  PodDisruptionBudget: "policy/v1",
  HorizontalPodAutoscaler: "autoscaling/v2",
  StorageClass: "storage.k8s.io/v1",
  CSIDriver: "storage.k8s.io/v1",
  PriorityClass: "scheduling.k8s.io/v1",
  RuntimeClass: "node.k8s.io/v1",
  Lease: "coordination.k8s.io/v1",
  CustomResourceDefinition: "apiextensions.k8s.io/v1",
  MutatingWebhookConfiguration: "admissionregistration.k8s.io/v1",
  ValidatingWebhookConfiguration: "admissionregistration.k8s.io/v1",
  ValidatingAdmissionPolicy: "admissionregistration.k8s.io/v1",
  ValidatingAdmissionPolicyBinding: "admissionregistration.k8s.io/v1",
  CertificateSigningRequest: "certificates.k8s.io/v1",
};

interface CrdVersion {
  name?: unknown;
  served?: unknown;
  storage?: unknown;
}

/** The apiVersion a CRD serves `kind` under (its storage version), or undefined. */
function crdApiVersion(crd: KubeObject, kind: string): string | undefined {
  const spec = crd.spec as { group?: unknown; names?: { kind?: unknown }; versions?: unknown } | undefined;
  if (spec?.names?.kind !== kind || typeof spec.group !== "string" || !Array.isArray(spec.versions))
    return undefined;
  const versions = spec.versions as CrdVersion[];
  const chosen = versions.find((v) => v.storage === true && v.served !== false) ?? versions[0];
  return typeof chosen?.name === "string" ? `${spec.group}/${chosen.name}` : undefined;
}

/** Creates a resolver over `client`'s discovery cache. */
export function createKindResolver(options: { client: KubeClient }): KindResolver {
  const { client } = options;

  const fromCrds = async (kind: string, signal?: AbortSignal): Promise<string | ApiFailure | undefined> => {
    const listed = await client.list<KubeObject>({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      ...(signal === undefined ? {} : { signal }),
    });
    if (!listed.ok) return listed;
    for (const crd of listed.value.items) {
      const apiVersion = crdApiVersion(crd, kind);
      if (apiVersion !== undefined) return apiVersion;
    }
    return undefined;
  };

  return {
    async resolve(kind, signal) {
      let apiVersion = BUILTIN_KINDS[kind];
      if (apiVersion === undefined) {
        const found = await fromCrds(kind, signal);
        if (typeof found === "object")
          return { ok: false, reason: "ApiError", message: found.message, failure: found };
        if (found === undefined)
          return { ok: false, reason: "Unknown", message: `no built-in kind or CRD named ${kind}` };
        apiVersion = found;
      }
      const info = await client.resource(apiVersion, kind, signal);
      if (!info.ok) {
        return info.reason === "UnknownKind"
          ? { ok: false, reason: "Unknown", message: info.message }
          : { ok: false, reason: "ApiError", message: info.message, failure: info };
      }
      if (!info.value.verbs.includes("list") || !info.value.verbs.includes("watch"))
        return {
          ok: false,
          reason: "NotWatchable",
          message: `${apiVersion} ${kind} cannot be listed and watched`,
        };
      return { ok: true, value: { apiVersion, kind, namespaced: info.value.namespaced } };
    },
  };
}
