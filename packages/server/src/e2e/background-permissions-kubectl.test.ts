/**
 * End to end: the background controller acts with its own RBAC. `kyverno-ts background` runs with a
 * token of its ServiceAccount (`kyverno:kyverno-background-controller`), not as an administrator; a
 * generate policy is accepted while the ServiceAccount may create ResourceQuotas and generates; once
 * that permission is taken away, a new trigger's UpdateRequest fails with upstream's permission message
 * (UpdateRequest status, a PolicyError Event on the policy), nothing is generated, and nothing is
 * silently dropped.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackgroundProcess } from "../testing/background.js";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the background permissions e2e suite: kubectl is not installed");

const UR_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/kyverno/kyverno.io_updaterequests.yaml",
    import.meta.url,
  ),
);
const SA = "system:serviceaccount:kyverno:kyverno-background-controller";

/** What the controller needs besides the generated kind, and the generated kind in its own binding. */
const RBAC = `apiVersion: v1
kind: ServiceAccount
metadata: {name: kyverno-background-controller, namespace: kyverno}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller:core}
rules:
- apiGroups: [kyverno.io, reports.kyverno.io, policies.kyverno.io, wgpolicyk8s.io, coordination.k8s.io, events.k8s.io, apiextensions.k8s.io]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: [namespaces, configmaps, events]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller:core}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller:core}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller:quotas}
rules:
- apiGroups: [""]
  resources: [resourcequotas]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller:quotas}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller:quotas}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quota-per-namespace}
spec:
  rules:
  - name: quota
    match: {any: [{resources: {kinds: [Namespace], names: ["quota-*"]}}]}
    generate:
      apiVersion: v1
      kind: ResourceQuota
      name: quota
      namespace: "{{request.object.metadata.name}}"
      data:
        spec:
          hard: {pods: "10"}
`;

describe.skipIf(!hasKubectl)("the background controller's own permissions, through kubectl", () => {
  let e2e: E2eCluster;
  let client: KubeClient;
  let background: BackgroundProcess;
  let kubectl: E2eCluster["kubectl"];

  beforeAll(async () => {
    e2e = await startE2eCluster({ crds: [UR_CRD], namespaces: ["kyverno"] });
    ({ client, kubectl } = e2e);
    const rbac = await kubectl(["apply", "-f", "-"], RBAC);
    expect(rbac.code, rbac.stderr).toBe(0);
    // The controller's kubeconfig: the sandbox's cluster, the ServiceAccount's token as the user.
    const token = (
      await kubectl(["create", "token", "kyverno-background-controller", "-n", "kyverno", "--duration", "2h"])
    ).stdout.trim();
    expect(token.split(".")).toHaveLength(3);
    const view = await kubectl(["config", "view", "--raw", "--minify", "-o", "json"]);
    const config = JSON.parse(view.stdout) as {
      clusters: Array<{ name: string; cluster: object }>;
      contexts: Array<{ name: string; context: { cluster: string } }>;
    };
    const cluster = config.clusters[0];
    if (cluster === undefined) throw new Error("no cluster in the sandbox kubeconfig");
    const kubeconfig = join(dirname(e2e.sandbox.kubeconfigPath), "background-sa.kubeconfig");
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [cluster],
        users: [{ name: "background", user: { token } }],
        contexts: [{ name: "background", context: { cluster: cluster.name, user: "background" } }],
        "current-context": "background",
      }),
    );
    const whoami = await kubectlFor(kubeconfig)(["auth", "whoami"]);
    expect(whoami.stdout).toContain(SA);
    background = await e2e.startBackground({
      kubeconfig,
      args: ["--genWorkers", "2"],
      fastLeaderElection: false,
    });
    const applied = await kubectl(["apply", "-f", "-"], POLICY);
    expect(applied.stderr).toBe("");
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=20s",
      "clusterpolicy/quota-per-namespace",
    ]);
    expect(ready.stderr + ready.stdout).toContain("condition met");
    await e2e.webhooks("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg", [
      '"namespaces"',
    ]);
  }, 240_000);
  afterAll(async () => {
    await e2e?.stop();
  }, 30_000);

  const quota = (namespace: string) =>
    read(client, { apiVersion: "v1", kind: "ResourceQuota", namespace, name: "quota" });

  it("generates with the ServiceAccount's permissions", async () => {
    expect((await kubectl(["create", "namespace", "quota-a"])).code).toBe(0);
    await until(
      async () => (await quota("quota-a")) !== undefined,
      20_000,
      `ResourceQuota in quota-a\n${background.output().slice(-3000)}`,
    );
  }, 30_000);

  it("a permission taken away: the UpdateRequest fails with upstream's message and a PolicyError Event", async () => {
    expect(
      (await kubectl(["delete", "clusterrolebinding", "kyverno:background-controller:quotas"])).code,
    ).toBe(0);
    expect((await kubectl(["create", "namespace", "quota-b"])).code).toBe(0);
    const message = `${SA} does not have permissions to 'create' ResourceQuota quota-b/quota`;
    let failed: KubeObject | undefined;
    await until(
      async () => {
        const listed = await kubectl(["get", "updaterequests", "-n", "kyverno", "-o", "json"]);
        const items = (JSON.parse(listed.stdout || '{"items":[]}') as { items: KubeObject[] }).items;
        failed = items.find((ur) => (ur.status as { state?: string } | undefined)?.state === "Failed");
        return failed !== undefined;
      },
      20_000,
      `a Failed UpdateRequest\n${background.output().slice(-3000)}`,
    );
    const status = failed?.status as { message?: string } | undefined;
    expect(status?.message).toContain(message);
    expect(status?.message).toContain("Grant proper permissions to the background controller");
    await until(
      async () =>
        (
          await kubectl([
            "get",
            "events",
            "-n",
            "default",
            "--field-selector",
            "reason=PolicyError,involvedObject.name=quota-per-namespace",
            "-o",
            "json",
          ])
        ).stdout.includes(message),
      20_000,
      "the PolicyError Event",
    );
    expect(await quota("quota-b")).toBeUndefined();
  }, 60_000);
});
