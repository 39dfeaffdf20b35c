/**
 * End to end, mutate-existing MutatingPolicies as a user meets them: `kyverno-ts admission` and
 * `kyverno-ts background` as their own processes against the sandbox API server with upstream's CRDs,
 * driven by the real kubectl. A trigger admitted through kubectl becomes a `cel-mutate` UpdateRequest;
 * the background controller resolves the targets (`targetMatchConstraints` resource rules with
 * `targetMatchConditions`, or an `expression`) and patches them, with the trigger's data through
 * `variables`. A policy created while its triggers exist mutates their targets at once (no trigger
 * needs to change), and without `targetMatchConstraints` its targets are the objects it matches.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl)
  console.warn("skipping the mutate-existing MutatingPolicy e2e suite: kubectl is not installed");

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/", import.meta.url);
const CRDS = [
  "kyverno/kyverno.io_updaterequests.yaml",
  "policies.kyverno.io/policies.kyverno.io_mutatingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_namespacedmutatingpolicies.yaml",
].map((file) => fileURLToPath(new URL(file, CRD_DIR)));

/**
 * A Secret `trigger-*` in any namespace stamps the web team's ConfigMaps of its namespace with its
 * name; a ConfigMap `rotate` in `app` annotates the Secret `creds` (an expression picks it).
 */
const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: stamp-configmaps}
spec:
  evaluation:
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [secrets]}
  matchConditions:
  - name: triggers
    expression: "object.metadata.name.startsWith('trigger-')"
  variables:
  - name: trigger
    expression: request.object.metadata.name
  targetMatchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [configmaps]}
  targetMatchConditions:
  - name: web-team
    expression: "object.metadata.?labels['team'].orValue('') == 'web'"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {"triggered-by": variables.trigger}}}
---
apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata: {name: rotate-creds, namespace: app}
spec:
  evaluation:
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps], resourceNames: [rotate]}
  targetMatchConstraints:
    expression: resource.Get("v1", "secrets", object.metadata.namespace, "creds")
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {"rotated": "yes"}}]
`;

/** Created while its triggers exist; no targetMatchConstraints: it mutates the objects it matches. */
const EXISTING = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: migrate-legacy}
spec:
  evaluation:
    mutateExisting: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
    objectSelector: {matchLabels: {legacy: "yes"}}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {"migrated": "true"}}}
`;

describe.skipIf(!hasKubectl)("mutate-existing MutatingPolicies in a cluster, through kubectl", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];
  const get = (kind: string, namespace: string, name: string) => cluster.get(kind, namespace, name);
  const ready = async (...resource: string[]) =>
    (await kubectl(["get", ...resource, "-o", "jsonpath={.status.conditionStatus.ready}"])).stdout;
  const logs = () => cluster.logs();
  const configMap = (namespace: string, name: string, labels: Record<string, string>): KubeObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels },
    data: { k: "v" },
  });

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: CRDS,
      namespaces: ["kyverno", "app", "legacy"],
      objects: [
        configMap("app", "web-settings", { team: "web" }),
        configMap("app", "db-settings", { team: "db" }),
        { apiVersion: "v1", kind: "Secret", metadata: { name: "creds", namespace: "app" } },
        configMap("legacy", "old-a", { legacy: "yes" }),
        configMap("legacy", "old-b", { legacy: "yes" }),
        configMap("legacy", "current", {}),
      ],
      background: true,
    });
    ({ client, kubectl } = cluster);
    await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-policy-validating-webhook-cfg");
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    // The mpol webhook covers the triggers once the policies are in.
    await cluster.webhooks("MutatingWebhookConfiguration", "kyverno-resource-mutating-webhook-cfg", [
      "mpol.mutate.kyverno.svc-fail",
      "secrets",
    ]);
  }, 240_000);
  afterAll(() => cluster?.stop(), 30_000);

  it("shows the mutate-existing policies Ready", async () => {
    await until(async () => (await ready("mutatingpolicy/stamp-configmaps")) === "true", 20_000, "Ready");
    await until(
      async () => (await ready("namespacedmutatingpolicy/rotate-creds", "-n", "app")) === "true",
      20_000,
      "namespaced Ready",
    );
  }, 45_000);

  it("a Secret created with kubectl stamps the ConfigMaps the target conditions select, and only those", async () => {
    const created = await kubectl([
      "create",
      "secret",
      "generic",
      "trigger-1",
      "-n",
      "app",
      "--from-literal=k=v",
    ]);
    expect(created.stderr).toBe("");
    await until(
      async () =>
        (await get("ConfigMap", "app", "web-settings"))?.metadata?.labels?.["triggered-by"] === "trigger-1",
      20_000,
      `web-settings stamped${logs()}`,
    );
    const web = await get("ConfigMap", "app", "web-settings");
    expect(web?.metadata?.labels).toEqual({ team: "web", "triggered-by": "trigger-1" });
    expect(web?.data).toEqual({ k: "v" });
    expect((await get("ConfigMap", "app", "db-settings"))?.metadata?.labels).toEqual({ team: "db" });
    // The trigger itself is admitted unchanged (the policy's targets are ConfigMaps).
    expect((await get("Secret", "app", "trigger-1"))?.metadata?.labels).toBeUndefined();
    // The result reaches the reports as an ephemeral report of the trigger, as upstream's background controller.
    const uid = (await get("Secret", "app", "trigger-1"))?.metadata?.uid;
    await until(
      async () => {
        const report = await read(client, {
          apiVersion: "reports.kyverno.io/v1",
          kind: "EphemeralReport",
          namespace: "app",
          name: String(uid),
        });
        const results = (report?.spec as { results?: Array<Record<string, unknown>> } | undefined)?.results;
        return (results ?? []).some(
          (r) =>
            r.policy === "stamp-configmaps" && r.source === "KyvernoMutatingPolicy" && r.result === "pass",
        );
      },
      20_000,
      `an ephemeral report of trigger-1${logs()}`,
    );
    // Processed UpdateRequests are deleted.
    await until(
      async () => {
        const urs = await kubectl(["get", "updaterequests", "-n", "kyverno", "-o", "name"]);
        return urs.stdout.trim() === "";
      },
      20_000,
      "UpdateRequests deleted once processed",
    );
  }, 45_000);

  it("a Secret the policy does not match changes nothing", async () => {
    expect((await kubectl(["create", "secret", "generic", "plain", "-n", "app"])).stderr).toBe("");
    // A second trigger afterwards proves the first was processed (or not) by now: UpdateRequests run in order.
    expect((await kubectl(["create", "secret", "generic", "trigger-2", "-n", "app"])).stderr).toBe("");
    await until(
      async () =>
        (await get("ConfigMap", "app", "web-settings"))?.metadata?.labels?.["triggered-by"] === "trigger-2",
      20_000,
      `web-settings stamped again${logs()}`,
    );
    expect((await get("ConfigMap", "app", "db-settings"))?.metadata?.labels).toEqual({ team: "db" });
  }, 45_000);

  it("a NamespacedMutatingPolicy patches the target its expression reads", async () => {
    expect((await kubectl(["create", "configmap", "rotate", "-n", "app"])).stderr).toBe("");
    await until(
      async () => (await get("Secret", "app", "creds"))?.metadata?.annotations?.rotated === "yes",
      20_000,
      `creds annotated${logs()}`,
    );
  }, 45_000);

  it("a policy created while its triggers exist mutates the objects it matches, without a trigger changing", async () => {
    expect((await kubectl(["apply", "-f", "-"], EXISTING)).stderr).toBe("");
    await until(
      async () =>
        (await get("ConfigMap", "legacy", "old-a"))?.metadata?.labels?.migrated === "true" &&
        (await get("ConfigMap", "legacy", "old-b"))?.metadata?.labels?.migrated === "true",
      30_000,
      `legacy ConfigMaps migrated${logs()}`,
    );
    expect((await get("ConfigMap", "legacy", "current"))?.metadata?.labels?.migrated).toBeUndefined();
  }, 45_000);
});
