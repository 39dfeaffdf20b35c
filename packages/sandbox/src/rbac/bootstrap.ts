/**
 * The ClusterRoles and ClusterRoleBindings kube-apiserver creates at start that matter to a sandbox
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy): `cluster-admin` for `system:masters`, the
 * aggregated user-facing roles `admin` / `edit` / `view` with their `system:aggregate-to-*` parts,
 * and the discovery, basic-user and public-info roles every client needs.
 */
import type { JsonObject } from "@kyverno-ts/api";
import { type PolicyRule, ruleToJson } from "./rules.js";

const BOOTSTRAP_LABELS = { "kubernetes.io/bootstrapping": "rbac-defaults" };
const AUTOUPDATE = { "rbac.authorization.kubernetes.io/autoupdate": "true" };
const AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const READ_WRITE = [...READ, ...WRITE];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const HEALTH_URLS = ["/healthz", "/livez", "/readyz", "/version", "/version/"];

function clusterRole(
  name: string,
  rules: PolicyRule[],
  extra: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): JsonObject {
  const role: JsonObject = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...extra.labels }, annotations: { ...AUTOUPDATE } },
    rules: rules.map(ruleToJson),
  };
  if (extra.aggregateFrom !== undefined)
    role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: "true" } }] };
  return role;
}

function clusterRoleBinding(name: string, groups: string[]): JsonObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: groups.map((g) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: g })),
  };
}

const VIEW_RULES: PolicyRule[] = [
  rule(
    READ,
    [""],
    [
      "configmaps",
      "endpoints",
      "persistentvolumeclaims",
      "persistentvolumeclaims/status",
      "pods",
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "serviceaccounts",
      "services",
      "services/status",
    ],
  ),
  rule(
    READ,
    [""],
    [
      "bindings",
      "events",
      "limitranges",
      "namespaces/status",
      "pods/log",
      "pods/status",
      "replicationcontrollers/status",
      "resourcequotas",
      "resourcequotas/status",
    ],
  ),
  rule(READ, [""], ["namespaces"]),
  rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
  rule(
    READ,
    ["apps"],
    [
      "controllerrevisions",
      "daemonsets",
      "daemonsets/status",
      "deployments",
      "deployments/scale",
      "deployments/status",
      "replicasets",
      "replicasets/scale",
      "replicasets/status",
      "statefulsets",
      "statefulsets/scale",
      "statefulsets/status",
    ],
  ),
  rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
  rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
  rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
  rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
];

const EDIT_RULES: PolicyRule[] = [
  rule(
    READ,
    [""],
    ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
  ),
  rule(["impersonate"], [""], ["serviceaccounts"]),
  rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
  rule(["create"], [""], ["pods/eviction"]),
  rule(
    WRITE,
    [""],
    [
      "configmaps",
      "events",
      "persistentvolumeclaims",
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "secrets",
      "serviceaccounts",
      "services",
      "services/proxy",
    ],
  ),
  rule(["create"], [""], ["serviceaccounts/token"]),
  rule(
    WRITE,
    ["apps"],
    [
      "daemonsets",
      "deployments",
      "deployments/rollback",
      "deployments/scale",
      "replicasets",
      "replicasets/scale",
      "statefulsets",
      "statefulsets/scale",
    ],
  ),
  rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
  rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
  rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
  rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
  rule(READ_WRITE, ["coordination.k8s.io"], ["leases"]),
];

const ADMIN_RULES: PolicyRule[] = [
  rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
  rule(READ_WRITE, ["rbac.authorization.k8s.io"], ["rolebindings", "roles"]),
];

/** The bootstrap ClusterRoles, then the ClusterRoleBindings, as kube-apiserver creates them. */
export function bootstrapRbacObjects(): JsonObject[] {
  return [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("admin", [], { aggregateFrom: `${AGGREGATE}admin` }),
    clusterRole("edit", [], { labels: { [`${AGGREGATE}admin`]: "true" }, aggregateFrom: `${AGGREGATE}edit` }),
    clusterRole("view", [], { labels: { [`${AGGREGATE}edit`]: "true" }, aggregateFrom: `${AGGREGATE}view` }),
    clusterRole("system:aggregate-to-admin", ADMIN_RULES, { labels: { [`${AGGREGATE}admin`]: "true" } }),
    clusterRole("system:aggregate-to-edit", EDIT_RULES, { labels: { [`${AGGREGATE}edit`]: "true" } }),
    clusterRole("system:aggregate-to-view", VIEW_RULES, { labels: { [`${AGGREGATE}view`]: "true" } }),
    clusterRole("system:discovery", [
      urls(["get"], [...HEALTH_URLS, "/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], HEALTH_URLS)]),
    clusterRole("system:basic-user", [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRoleBinding("cluster-admin", ["system:masters"]),
    clusterRoleBinding("system:discovery", ["system:authenticated"]),
    clusterRoleBinding("system:basic-user", ["system:authenticated"]),
    clusterRoleBinding("system:public-info-viewer", ["system:authenticated", "system:unauthenticated"]),
  ];
}

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** One ClusterRoleBinding (`sandbox:<role>:<username>`) per ClusterRole a configured user asks for. */
export function userBindings(
  users: ReadonlyArray<{ username: string; clusterRoles?: readonly string[] }>,
): JsonObject[] {
  return users.flatMap((user) =>
    (user.clusterRoles ?? []).map((role) => {
      const sa = SERVICE_ACCOUNT.exec(user.username);
      const subject: JsonObject =
        sa === null
          ? { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.username }
          : { kind: "ServiceAccount", name: sa[2] ?? "", namespace: sa[1] ?? "" };
      return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `sandbox:${role}:${user.username}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [subject],
      };
    }),
  );
}
