/** The built-in kinds the sandbox serves, with the scope, names and behaviour kube-apiserver gives them. */
import { eventFromV1, eventToV1 } from "../events/events-v1.js";
import { BUILTIN_COLUMNS, DEFAULT_BUILTIN_COLUMNS } from "../table/builtin-columns.js";
import type { GenerationPolicy, ResourceType } from "./types.js";

const ALL_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
] as const;

interface BuiltinSpec {
  group?: string;
  version?: string;
  kind: string;
  plural: string;
  shortNames?: readonly string[];
  namespaced?: boolean;
  subresources?: readonly string[];
  generation?: GenerationPolicy;
  nameRule?: ResourceType["nameRule"];
  all?: boolean;
  returnDeletedObject?: boolean;
  selectableFields?: readonly string[];
  verbs?: readonly string[];
}

function builtin(spec: BuiltinSpec): ResourceType {
  const group = spec.group ?? "";
  const version = spec.version ?? "v1";
  return {
    group,
    version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    shortNames: spec.shortNames ?? [],
    categories: spec.all === true ? ["all"] : [],
    namespaced: spec.namespaced ?? true,
    verbs: spec.verbs ?? ALL_VERBS,
    subresources: spec.subresources ?? [],
    strategicMerge: true,
    generation: spec.generation ?? "none",
    requireResourceVersion: false,
    returnDeletedObject: spec.returnDeletedObject ?? false,
    nameRule: spec.nameRule ?? "subdomain",
    selectableFields: spec.selectableFields ?? [],
    printerColumns:
      BUILTIN_COLUMNS[group === "" ? spec.kind : `${group}/${spec.kind}`] ?? DEFAULT_BUILTIN_COLUMNS,
    storageKey: group === "" ? spec.plural : `${group}/${spec.plural}`,
    storageVersion: group === "" ? version : `${group}/${version}`,
    custom: false,
  };
}

/** The fields Events are selected by (core/v1 names; both Event APIs select on the stored object). */
const EVENT_FIELDS = [
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "source",
  "type",
];

const WORKLOAD = { group: "apps", subresources: ["status", "scale"], generation: "spec", all: true } as const;

/** Every built-in resource, in discovery order. */
export function builtinResources(): ResourceType[] {
  return [
    builtin({
      kind: "Namespace",
      plural: "namespaces",
      shortNames: ["ns"],
      namespaced: false,
      subresources: ["status", "finalize"],
      nameRule: "label",
      returnDeletedObject: true,
      selectableFields: ["status.phase"],
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
    }),
    builtin({
      kind: "Pod",
      plural: "pods",
      shortNames: ["po"],
      subresources: ["status", "ephemeralcontainers", "eviction", "exec", "attach", "portforward", "log"],
      all: true,
      returnDeletedObject: true,
      selectableFields: [
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
      ],
    }),
    builtin({ kind: "ConfigMap", plural: "configmaps", shortNames: ["cm"] }),
    builtin({ kind: "Secret", plural: "secrets", selectableFields: ["type"] }),
    builtin({
      kind: "Service",
      plural: "services",
      shortNames: ["svc"],
      subresources: ["status"],
      nameRule: "label1035",
      all: true,
      returnDeletedObject: true,
    }),
    builtin({
      kind: "ServiceAccount",
      plural: "serviceaccounts",
      shortNames: ["sa"],
      subresources: ["token"],
    }),
    builtin({
      kind: "ReplicationController",
      plural: "replicationcontrollers",
      shortNames: ["rc"],
      subresources: ["status", "scale"],
      generation: "spec",
      all: true,
    }),
    builtin({
      kind: "PersistentVolumeClaim",
      plural: "persistentvolumeclaims",
      shortNames: ["pvc"],
      subresources: ["status"],
    }),
    builtin({
      kind: "PersistentVolume",
      plural: "persistentvolumes",
      shortNames: ["pv"],
      namespaced: false,
      subresources: ["status"],
    }),
    builtin({ kind: "LimitRange", plural: "limitranges", shortNames: ["limits"] }),
    builtin({ kind: "Endpoints", plural: "endpoints", shortNames: ["ep"] }),
    builtin({ group: "discovery.k8s.io", kind: "EndpointSlice", plural: "endpointslices" }),
    builtin({
      kind: "Event",
      plural: "events",
      shortNames: ["ev"],
      selectableFields: EVENT_FIELDS,
    }),
    {
      // The same storage as core/v1 Events, another shape (kube-apiserver's events.k8s.io/v1).
      ...builtin({
        group: "events.k8s.io",
        kind: "Event",
        plural: "events",
        shortNames: ["ev"],
        selectableFields: EVENT_FIELDS,
      }),
      storageKey: "events",
      storageVersion: "v1",
      conversion: { toServed: eventToV1, toStorage: eventFromV1 },
    },
    builtin({
      kind: "Node",
      plural: "nodes",
      shortNames: ["no"],
      namespaced: false,
      subresources: ["status"],
    }),
    builtin({ ...WORKLOAD, kind: "Deployment", plural: "deployments", shortNames: ["deploy"] }),
    builtin({ ...WORKLOAD, kind: "ReplicaSet", plural: "replicasets", shortNames: ["rs"] }),
    builtin({ ...WORKLOAD, kind: "StatefulSet", plural: "statefulsets", shortNames: ["sts"] }),
    builtin({
      ...WORKLOAD,
      kind: "DaemonSet",
      plural: "daemonsets",
      shortNames: ["ds"],
      subresources: ["status"],
    }),
    builtin({
      group: "batch",
      kind: "Job",
      plural: "jobs",
      subresources: ["status"],
      generation: "spec",
      all: true,
      selectableFields: ["status.successful"],
    }),
    builtin({
      group: "batch",
      kind: "CronJob",
      plural: "cronjobs",
      shortNames: ["cj"],
      subresources: ["status"],
      generation: "spec",
      all: true,
    }),
    builtin({ group: "coordination.k8s.io", kind: "Lease", plural: "leases" }),
    builtin({
      kind: "ResourceQuota",
      plural: "resourcequotas",
      shortNames: ["quota"],
      subresources: ["status"],
    }),
    builtin({
      group: "scheduling.k8s.io",
      kind: "PriorityClass",
      plural: "priorityclasses",
      shortNames: ["pc"],
      namespaced: false,
    }),
    builtin({
      group: "policy",
      kind: "PodDisruptionBudget",
      plural: "poddisruptionbudgets",
      shortNames: ["pdb"],
      subresources: ["status"],
      generation: "spec",
    }),
    builtin({
      group: "networking.k8s.io",
      kind: "Ingress",
      plural: "ingresses",
      shortNames: ["ing"],
      subresources: ["status"],
      generation: "spec",
    }),
    builtin({
      group: "networking.k8s.io",
      kind: "NetworkPolicy",
      plural: "networkpolicies",
      shortNames: ["netpol"],
      generation: "spec",
    }),
    builtin({
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
      plural: "horizontalpodautoscalers",
      shortNames: ["hpa"],
      subresources: ["status"],
      generation: "spec",
      all: true,
    }),
    ...rbac(),
    ...reviews(),
    builtin({
      group: "admissionregistration.k8s.io",
      kind: "MutatingWebhookConfiguration",
      plural: "mutatingwebhookconfigurations",
      namespaced: false,
      generation: "nonMetadata",
    }),
    builtin({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingWebhookConfiguration",
      plural: "validatingwebhookconfigurations",
      namespaced: false,
      generation: "nonMetadata",
    }),
    builtin({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingAdmissionPolicy",
      plural: "validatingadmissionpolicies",
      namespaced: false,
      subresources: ["status"],
      generation: "spec",
    }),
    builtin({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingAdmissionPolicyBinding",
      plural: "validatingadmissionpolicybindings",
      namespaced: false,
      generation: "spec",
    }),
    builtin({
      group: "apiregistration.k8s.io",
      kind: "APIService",
      plural: "apiservices",
      namespaced: false,
      subresources: ["status"],
      generation: "spec",
    }),
    builtin({
      group: "certificates.k8s.io",
      kind: "CertificateSigningRequest",
      plural: "certificatesigningrequests",
      shortNames: ["csr"],
      namespaced: false,
      subresources: ["status", "approval"],
    }),
    builtin({
      group: "apiextensions.k8s.io",
      kind: "CustomResourceDefinition",
      plural: "customresourcedefinitions",
      shortNames: ["crd", "crds"],
      namespaced: false,
      subresources: ["status"],
      generation: "spec",
    }),
  ];
}

function rbac(): ResourceType[] {
  const group = "rbac.authorization.k8s.io";
  return [
    builtin({ group, kind: "ClusterRole", plural: "clusterroles", namespaced: false, nameRule: "path" }),
    builtin({
      group,
      kind: "ClusterRoleBinding",
      plural: "clusterrolebindings",
      namespaced: false,
      nameRule: "path",
    }),
    builtin({ group, kind: "Role", plural: "roles", nameRule: "path" }),
    builtin({ group, kind: "RoleBinding", plural: "rolebindings", nameRule: "path" }),
  ];
}

/** The create-only review kinds of authentication.k8s.io and authorization.k8s.io (never stored). */
function reviews(): ResourceType[] {
  const review = (group: string, kind: string, namespaced = false): ResourceType =>
    builtin({ group, kind, plural: `${kind.toLowerCase()}s`, namespaced, verbs: ["create"] });
  return [
    review("authentication.k8s.io", "SelfSubjectReview"),
    review("authentication.k8s.io", "TokenReview"),
    review("authorization.k8s.io", "LocalSubjectAccessReview", true),
    review("authorization.k8s.io", "SelfSubjectAccessReview"),
    review("authorization.k8s.io", "SelfSubjectRulesReview"),
    review("authorization.k8s.io", "SubjectAccessReview"),
  ];
}
