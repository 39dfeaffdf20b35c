/** The objects the playground installs besides the scenario's, and how it names an object it applies. */
import type { JsonObject, KubeObject } from "@kyverno-ts/api";
import { DEFAULT_RESOURCE_FILTERS } from "@kyverno-ts/server";

/** The background controller's user, as the chart names its ServiceAccount. */
export const BACKGROUND_USER = "system:serviceaccount:kyverno:kyverno-background-controller";

/** What the chart lets the background controller do with what the bundled examples generate. */
export const BACKGROUND_RBAC: KubeObject[] = [
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "kyverno:background-controller" },
    rules: [
      {
        apiGroups: ["", "networking.k8s.io"],
        resources: [
          "namespaces",
          "configmaps",
          "secrets",
          "resourcequotas",
          "limitranges",
          "networkpolicies",
        ],
        verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
      },
    ],
  },
  {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "kyverno:background-controller" },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "kyverno:background-controller",
    },
    subjects: [{ kind: "ServiceAccount", name: "kyverno-background-controller", namespace: "kyverno" }],
  },
];

/** The one namespace PolicyExceptions count from in the playground (`--exceptionNamespace`). */
export const PLAYGROUND_EXCEPTION_NAMESPACE = "kyverno";

/**
 * PolicyExceptions are off by default, as upstream; the playground turns them on for the namespace
 * `kyverno`, as the install guide recommends.
 */
export const policyExceptions = { enabled: true, namespace: PLAYGROUND_EXCEPTION_NAMESPACE };

/**
 * Kyverno's ConfigMap as upstream's chart installs it (its `config.*` defaults), so that the
 * playground can be configured as a cluster is: both controllers watch it, edits apply at once.
 */
export function playgroundConfigMap(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "kyverno", namespace: "kyverno" },
    data: {
      resourceFilters: `${DEFAULT_RESOURCE_FILTERS} [*/*,kyverno,*]`,
      excludeGroups: "system:nodes",
      excludeUsernames: "",
      excludeRoles: "",
      excludeClusterRoles: "",
      generateSuccessEvents: "false",
      enableDefaultRegistryMutation: "true",
      defaultRegistry: "docker.io",
      updateRequestThreshold: "1000",
      webhooks: JSON.stringify([
        {
          namespaceSelector: {
            matchExpressions: [
              { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] },
            ],
          },
        },
      ]),
      webhookAnnotations: JSON.stringify({ "admissions.enforcer/disabled": "true" }),
      webhookLabels: "{}",
    },
  };
}

export function refOf(object: JsonObject): {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
} {
  const meta = (object.metadata ?? {}) as { name?: string; namespace?: string };
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    name: String(meta.name),
    ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
  };
}
