/**
 * The RBAC the chart gives each controller, evaluated as kube-apiserver's RBAC authorizer would
 * (bindings, Roles, aggregated ClusterRoles): every API call the binary makes is allowed, and what it
 * never does is not (least privilege). The calls are those of packages/server (cluster/,
 * controllers/reports/, reports/, external-data/) and packages/kube (informers, leader election).
 */
import { describe, expect, it } from "vitest";
import { type Access, can, type Obj, render } from "./kyverno-ts-helm.ts";

const ADMISSION = { namespace: "kyverno", name: "kyverno-admission-controller" };
const REPORTS = { namespace: "kyverno", name: "kyverno-reports-controller" };
const BACKGROUND = { namespace: "kyverno", name: "kyverno-background-controller" };
const TLS = "kyverno-svc.kyverno.svc.kyverno-tls";

const verbs = (list: string, rest: Omit<Access, "verb">): Access[] =>
  list.split(" ").map((verb) => ({ verb, ...rest }));
const core = (resource: string, extra: Partial<Access> = {}) => ({ group: "", resource, ...extra });
/** Events, written through events.k8s.io/v1 as upstream's recorder writes them. */
const events = (extra: Partial<Access> = {}) => ({ group: "events.k8s.io", resource: "events", ...extra });
const kyverno = (resource: string, extra: Partial<Access> = {}) => ({
  group: "kyverno.io",
  resource,
  ...extra,
});

const ADMISSION_CALLS: Access[] = [
  ...verbs("list watch", kyverno("clusterpolicies")),
  ...verbs("list watch", kyverno("policies")),
  { verb: "patch", ...kyverno("clusterpolicies/status", { name: "p" }) },
  { verb: "patch", ...kyverno("policies/status", { namespace: "team-a", name: "p" }) },
  { verb: "get", ...kyverno("globalcontextentries", { name: "e" }) },
  ...verbs("list watch", core("namespaces")),
  ...verbs("list watch", core("configmaps")),
  { verb: "get", ...core("configmaps", { namespace: "team-a", name: "settings" }) },
  // The kyverno-metrics ConfigMap, read at start.
  { verb: "get", ...core("configmaps", { namespace: "kyverno", name: "kyverno-metrics" }) },
  { verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions" },
  ...["validatingwebhookconfigurations", "mutatingwebhookconfigurations"].flatMap((resource) =>
    verbs("list watch create", { group: "admissionregistration.k8s.io", resource }),
  ),
  ...verbs("get update", {
    group: "admissionregistration.k8s.io",
    resource: "validatingwebhookconfigurations",
    name: "kyverno-resource-validating-webhook-cfg",
  }),
  ...verbs("get update", {
    group: "admissionregistration.k8s.io",
    resource: "mutatingwebhookconfigurations",
    name: "kyverno-resource-mutating-webhook-cfg",
  }),
  ...verbs("create get update", {
    group: "reports.kyverno.io",
    resource: "ephemeralreports",
    namespace: "team-a",
    name: "r",
  }),
  ...verbs("create get update", {
    group: "reports.kyverno.io",
    resource: "clusterephemeralreports",
    name: "r",
  }),
  { verb: "create", ...core("secrets", { namespace: "kyverno" }) },
  ...verbs("get list watch update", core("secrets", { namespace: "kyverno", name: `${TLS}-ca` })),
  ...verbs("get list watch update", core("secrets", { namespace: "kyverno", name: `${TLS}-pair` })),
  { verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "kyverno" },
  ...verbs("get update", {
    group: "coordination.k8s.io",
    resource: "leases",
    namespace: "kyverno",
    name: "kyverno",
  }),
  // Kubernetes Events (packages/kube/src/events): created where the object lives, a series patched.
  ...verbs("create patch", events({ namespace: "team-a", name: "web.1849a3f2c4b5d6e7" })),
  ...verbs("create patch", events({ namespace: "default", name: "require-labels.1849a3f2c4b5d6e7" })),
  // UpdateRequests of generate / mutate-existing rules (controllers/background/ur-intake.ts).
  ...verbs("create get", kyverno("updaterequests", { namespace: "kyverno", name: "ur-1" })),
  { verb: "update", ...kyverno("updaterequests/status", { namespace: "kyverno", name: "ur-1" }) },
];

/** `kyverno-ts background` (controllers/background, cluster-state, leader election). */
const BACKGROUND_CALLS: Access[] = [
  ...verbs("list watch", kyverno("clusterpolicies")),
  ...verbs("list watch", kyverno("policies")),
  ...verbs("list watch", { group: "policies.kyverno.io", resource: "generatingpolicies" }),
  ...verbs("list watch", { group: "policies.kyverno.io", resource: "namespacedgeneratingpolicies" }),
  ...verbs("list watch", core("namespaces")),
  ...verbs("list watch", core("configmaps")),
  { verb: "get", ...core("configmaps", { namespace: "team-a", name: "settings" }) },
  { verb: "get", ...core("configmaps", { namespace: "kyverno", name: "kyverno-metrics" }) },
  { verb: "get", ...kyverno("globalcontextentries", { name: "e" }) },
  { verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions" },
  // Results of generate and mutate-existing rules (reports/ephemeral-reports.ts).
  ...verbs("create get update", {
    group: "reports.kyverno.io",
    resource: "ephemeralreports",
    namespace: "team-a",
    name: "r",
  }),
  ...verbs("create get update", {
    group: "reports.kyverno.io",
    resource: "clusterephemeralreports",
    name: "r",
  }),
  ...verbs("list watch", kyverno("updaterequests", { namespace: "kyverno" })),
  ...verbs("get create update delete", kyverno("updaterequests", { namespace: "kyverno", name: "ur-1" })),
  { verb: "update", ...kyverno("updaterequests/status", { namespace: "kyverno", name: "ur-1" }) },
  { verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "kyverno" },
  ...verbs("get update", {
    group: "coordination.k8s.io",
    resource: "leases",
    namespace: "kyverno",
    name: "kyverno-background-controller",
  }),
  // Events of generate and mutate-existing rules (on the policy, in default for a ClusterPolicy).
  ...verbs("create patch", events({ namespace: "default", name: "add-quota.1849a3f2c4b5d6e7" })),
  // What generate rules write by default (upstream's coreClusterRole.extraResources).
  ...verbs("create update patch delete", {
    group: "networking.k8s.io",
    resource: "networkpolicies",
    namespace: "team-a",
    name: "default-deny",
  }),
  ...verbs("create update patch delete", core("configmaps", { namespace: "team-a", name: "generated" })),
  ...verbs("create update patch delete", core("resourcequotas", { namespace: "team-a", name: "q" })),
  ...verbs("create update patch delete", {
    group: "rbac.authorization.k8s.io",
    resource: "rolebindings",
    namespace: "team-a",
    name: "rb",
  }),
];

const REPORTS_CALLS: Access[] = [
  ...verbs("list watch", kyverno("clusterpolicies")),
  ...verbs("list watch", kyverno("policies")),
  ...verbs("list watch", core("namespaces")),
  { verb: "get", ...core("configmaps", { namespace: "team-a", name: "settings" }) },
  { verb: "get", ...core("configmaps", { namespace: "kyverno", name: "kyverno-metrics" }) },
  { verb: "get", ...kyverno("globalcontextentries", { name: "e" }) },
  { verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions" },
  ...verbs("get create update delete", {
    group: "wgpolicyk8s.io",
    resource: "policyreports",
    namespace: "team-a",
    name: "r",
  }),
  { verb: "list", group: "wgpolicyk8s.io", resource: "policyreports" },
  ...verbs("get create update delete", {
    group: "wgpolicyk8s.io",
    resource: "clusterpolicyreports",
    name: "r",
  }),
  ...verbs("list watch", { group: "reports.kyverno.io", resource: "ephemeralreports" }),
  ...verbs("list watch", { group: "reports.kyverno.io", resource: "clusterephemeralreports" }),
  {
    verb: "delete",
    group: "reports.kyverno.io",
    resource: "ephemeralreports",
    namespace: "team-a",
    name: "r",
  },
  // The kinds background scans read by default: Pods and their controllers.
  ...["pods", "replicationcontrollers"].flatMap((r) => verbs("get list watch", core(r))),
  ...["deployments", "replicasets", "statefulsets", "daemonsets"].flatMap((resource) =>
    verbs("get list watch", { group: "apps", resource }),
  ),
  ...["jobs", "cronjobs"].flatMap((resource) => verbs("get list watch", { group: "batch", resource })),
  { verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "kyverno" },
  ...verbs("get update", {
    group: "coordination.k8s.io",
    resource: "leases",
    namespace: "kyverno",
    name: "kyverno-reports-controller",
  }),
  ...verbs("create patch", events({ namespace: "team-a", name: "web.1849a3f2c4b5d6e7" })),
];

const show = (a: Access): string =>
  `${a.verb} ${a.group || "core"}/${a.resource}${a.namespace ? ` in ${a.namespace}` : ""}${a.name ? ` named ${a.name}` : ""}`;

function expectAllowed(objects: readonly Obj[], account: typeof ADMISSION, calls: readonly Access[]): void {
  const missing = calls.filter((c) => !can(objects, account, c)).map(show);
  expect(missing, `${account.name} lacks`).toEqual([]);
}

function expectDenied(objects: readonly Obj[], account: typeof ADMISSION, calls: readonly Access[]): void {
  const granted = calls.filter((c) => can(objects, account, c)).map(show);
  expect(granted, `${account.name} should not have`).toEqual([]);
}

describe("RBAC of the controllers", { timeout: 60_000 }, () => {
  const objects = render();

  it("grants the admission controller every call it makes", () =>
    expectAllowed(objects, ADMISSION, ADMISSION_CALLS));
  it("grants the reports controller every call it makes", () =>
    expectAllowed(objects, REPORTS, REPORTS_CALLS));

  it("grants nothing else: no other Secret, no deletes, no other webhook configuration or Lease, no wildcards", () => {
    expectDenied(objects, ADMISSION, [
      { verb: "get", ...core("secrets", { namespace: "kyverno", name: "other" }) },
      { verb: "list", ...core("secrets", { namespace: "kyverno" }) },
      { verb: "list", ...core("secrets") },
      { verb: "get", ...core("secrets", { namespace: "default", name: `${TLS}-ca` }) },
      ...verbs("delete patch", {
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        name: "kyverno-resource-validating-webhook-cfg",
      }),
      {
        verb: "update",
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        name: "other",
      },
      {
        verb: "update",
        group: "coordination.k8s.io",
        resource: "leases",
        namespace: "kyverno",
        name: "other",
      },
      { verb: "list", ...kyverno("policyexceptions") },
      { verb: "update", ...kyverno("clusterpolicies", { name: "p" }) },
      { verb: "list", ...core("pods") },
      ...verbs("get list watch delete", events({ namespace: "team-a", name: "web.1" })),
      // Events are written through events.k8s.io/v1 only.
      ...verbs("create patch", core("events", { namespace: "team-a", name: "web.1" })),
    ]);
    expectDenied(objects, REPORTS, [
      { verb: "get", ...core("secrets", { namespace: "kyverno", name: `${TLS}-ca` }) },
      { verb: "list", ...core("secrets") },
      { verb: "create", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations" },
      { verb: "patch", ...kyverno("clusterpolicies/status", { name: "p" }) },
      { verb: "create", group: "reports.kyverno.io", resource: "ephemeralreports", namespace: "team-a" },
      { verb: "list", ...core("services") },
      {
        verb: "update",
        group: "coordination.k8s.io",
        resource: "leases",
        namespace: "kyverno",
        name: "kyverno",
      },
    ]);
    const rules = objects
      .filter((o) => o.kind === "ClusterRole" || o.kind === "Role")
      .flatMap(
        (o) => (o.rules ?? []) as Array<{ verbs: string[]; resources?: string[]; apiGroups?: string[] }>,
      );
    for (const rule of rules) {
      expect(rule.verbs).not.toContain("*");
      expect(rule.resources ?? []).not.toContain("*");
      expect(rule.apiGroups ?? []).not.toContain("*");
    }
  });

  it("watches PolicyExceptions only when they are enabled", () => {
    const enabled = render(
      [],
      ["features.policyExceptions.enabled=true", "features.policyExceptions.namespace=exceptions"],
    );
    for (const account of [ADMISSION, REPORTS])
      expectAllowed(enabled, account, verbs("list watch", kyverno("policyexceptions")));
    expectDenied(objects, REPORTS, verbs("list watch", kyverno("policyexceptions")));
  });

  it("gives each controller its own ServiceAccount, and more kinds through aggregated ClusterRoles", () => {
    const accounts = objects.filter((o) => o.kind === "ServiceAccount").map((o) => o.metadata.name);
    expect(accounts).toEqual(expect.arrayContaining([ADMISSION.name, REPORTS.name]));
    const extended = render(
      [],
      [
        "reportsController.rbac.clusterRole.extraResources[0].apiGroups[0]=",
        "reportsController.rbac.clusterRole.extraResources[0].resources[0]=services",
        "reportsController.rbac.clusterRole.extraResources[0].verbs={get,list,watch}",
      ],
    );
    expectAllowed(extended, REPORTS, verbs("get list watch", core("services")));
    expectDenied(extended, ADMISSION, verbs("list", core("services")));
    const additional = extended.find(
      (o) => o.kind === "ClusterRole" && o.metadata.name === "kyverno:reports-controller:additional",
    );
    const labels = (additional?.metadata.labels ?? {}) as Record<string, string>;
    expect(labels["rbac.kyverno.io/aggregate-to-reports-controller"]).toBe("true");
    // A user's own ClusterRole with the label is aggregated the same way.
    const own: Obj = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name: "scan-ingresses",
        labels: { "rbac.kyverno.io/aggregate-to-reports-controller": "true" },
      },
      rules: [
        { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "list", "watch"] },
      ],
    };
    expectAllowed(
      [...objects, own],
      REPORTS,
      verbs("list watch", { group: "networking.k8s.io", resource: "ingresses" }),
    );
  });

  it("binds the view ClusterRole only when asked (upstream's default is on; kyverno-ts's off)", () => {
    const view = (os: readonly Obj[]) =>
      os.filter(
        (o) => o.kind === "ClusterRoleBinding" && o.metadata.name === "kyverno:admission-controller:view",
      );
    expect(view(objects)).toEqual([]);
    const bound = view(render([], ["admissionController.rbac.createViewRoleBinding=true"]));
    expect(bound.map((b) => b.roleRef)).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
    ]);
  });
});

describe("RBAC of the background controller", { timeout: 60_000 }, () => {
  const objects = render();

  it("grants it every call it makes, and the admission controller what it needs to hand it work", () => {
    expectAllowed(objects, BACKGROUND, BACKGROUND_CALLS);
    expectDenied(objects, ADMISSION, [
      { verb: "delete", ...kyverno("updaterequests", { namespace: "kyverno", name: "ur-1" }) },
      { verb: "create", ...kyverno("updaterequests", { namespace: "team-a" }) },
    ]);
  });

  it("grants nothing else: no Secrets, no webhook configurations, no other Lease, no UpdateRequests elsewhere", () => {
    expectDenied(objects, BACKGROUND, [
      { verb: "get", ...core("secrets", { namespace: "kyverno", name: `${TLS}-ca` }) },
      ...verbs("create update delete", core("secrets", { namespace: "team-a", name: "s" })),
      { verb: "create", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations" },
      { verb: "update", ...kyverno("clusterpolicies", { name: "p" }) },
      { verb: "patch", ...kyverno("clusterpolicies/status", { name: "p" }) },
      { verb: "list", ...kyverno("policyexceptions") },
      { verb: "list", group: "policies.kyverno.io", resource: "validatingpolicies" },
      ...verbs("create delete", { group: "apps", resource: "deployments", namespace: "team-a", name: "d" }),
      { verb: "create", ...kyverno("updaterequests", { namespace: "team-a" }) },
      {
        verb: "update",
        group: "coordination.k8s.io",
        resource: "leases",
        namespace: "kyverno",
        name: "kyverno",
      },
      { verb: "create", group: "wgpolicyk8s.io", resource: "policyreports", namespace: "team-a" },
    ]);
  });

  it("writes more kinds through a ClusterRole carrying upstream's aggregation label", () => {
    const extended = render(
      [],
      [
        "backgroundController.rbac.clusterRole.extraResources[0].apiGroups[0]=",
        "backgroundController.rbac.clusterRole.extraResources[0].resources[0]=secrets",
        "backgroundController.rbac.clusterRole.extraResources[0].verbs={create,update,delete}",
      ],
    );
    expectAllowed(
      extended,
      BACKGROUND,
      verbs("create update delete", core("secrets", { namespace: "team-a", name: "s" })),
    );
    const additional = extended.find(
      (o) => o.kind === "ClusterRole" && o.metadata.name === "kyverno:background-controller:additional",
    );
    expect(additional?.metadata.labels).toMatchObject({
      "rbac.kyverno.io/aggregate-to-background-controller": "true",
    });
  });

  it("watches PolicyExceptions only when they are enabled, and deploys nothing when disabled", () => {
    const enabled = render([], ["features.policyExceptions.enabled=true"]);
    expectAllowed(enabled, BACKGROUND, verbs("list watch", kyverno("policyexceptions")));
    expectAllowed(
      enabled,
      BACKGROUND,
      verbs("list watch", { group: "policies.kyverno.io", resource: "policyexceptions" }),
    );
    const off = render([], ["backgroundController.enabled=false"]);
    expect(off.filter((o) => String(o.metadata.name).includes("background-controller"))).toEqual([]);
    // The UpdateRequest CRD stays: the admission controller still creates UpdateRequests.
    expect(off.some((o) => o.metadata.name === "updaterequests.kyverno.io")).toBe(true);
  });
});
