/**
 * End to end: `kyverno-ts admission` and `kyverno-ts background` as their own processes against the
 * sandbox API server with the upstream CRDs, driven by the real kubectl as a user works. Admitted
 * requests become UpdateRequests; the background controller generates, synchronizes and mutates
 * existing resources, and finishes what a crashed (SIGKILLed) predecessor left pending.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackgroundProcess } from "../testing/background.js";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the background e2e suite: kubectl is not installed");

const UR_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/kyverno/kyverno.io_updaterequests.yaml",
    import.meta.url,
  ),
);

/** What the background controller may do, as the chart grants it (checked when a policy is created). */
const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller}
rules:
- apiGroups: ["", networking.k8s.io]
  resources: [namespaces, configmaps, secrets, resourcequotas, networkpolicies]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: namespace-defaults}
spec:
  rules:
  - name: default-deny
    match: {any: [{resources: {kinds: [Namespace], names: ["team-*"]}}]}
    generate:
      synchronize: true
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      name: default-deny
      namespace: "{{request.object.metadata.name}}"
      data:
        spec:
          podSelector: {}
          policyTypes: [Ingress, Egress]
  - name: quota
    match: {any: [{resources: {kinds: [Namespace], names: ["team-*"]}}]}
    generate:
      apiVersion: v1
      kind: ResourceQuota
      name: quota
      namespace: "{{request.object.metadata.name}}"
      data:
        spec:
          hard: {pods: "10"}
  - name: registry-secret
    match: {any: [{resources: {kinds: [Namespace], names: ["team-*"]}}]}
    generate:
      synchronize: true
      apiVersion: v1
      kind: Secret
      name: regcred
      namespace: "{{request.object.metadata.name}}"
      clone: {namespace: shared, name: regcred}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: copy-settings}
spec:
  rules:
  - name: copy
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps], names: ["gen-*"]}}]}
    generate:
      synchronize: true
      apiVersion: v1
      kind: ConfigMap
      name: "copy-{{request.object.metadata.name}}"
      namespace: shared
      data:
        data: {from: "{{request.object.metadata.name}}"}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: touch-target}
spec:
  rules:
  - name: label-target
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [apps], names: ["trigger-*"]}}]}
    mutate:
      targets:
      - apiVersion: v1
        kind: Secret
        namespace: apps
        name: target
      patchStrategicMerge:
        metadata:
          labels:
            touched-by: "{{request.object.metadata.name}}"
`;

describe.skipIf(!hasKubectl)("kyverno-ts background in a cluster, through kubectl", () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let background: BackgroundProcess;
  let kubectl: E2eCluster["kubectl"];
  const get = (kind: string, namespace: string, name: string, apiVersion = "v1") =>
    cluster.get(kind, namespace, name, apiVersion);
  const startController = (workers = 4) =>
    cluster.startBackground({ args: ["--genWorkers", String(workers)] });

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: [UR_CRD],
      namespaces: ["kyverno", "shared", "apps"],
      objects: (
        [
          ["shared", "regcred"],
          ["apps", "target"],
        ] as const
      ).map(([namespace, name]) => ({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace },
        data: { token: Buffer.from("one").toString("base64") },
      })),
    });
    ({ client, kubectl } = cluster);
    background = await startController();
    expect((await kubectl(["apply", "-f", "-"], RBAC)).code).toBe(0);
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=20s",
      "clusterpolicy/namespace-defaults",
      "clusterpolicy/copy-settings",
      "clusterpolicy/touch-target",
    ]);
    expect(ready.stderr + ready.stdout).toContain("condition met");
    // The webhook configuration covers the triggers' kinds once the policies are in.
    await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg", [
      "namespaces",
    ]);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);

  it("creating a Namespace generates its NetworkPolicy, ResourceQuota and cloned Secret, labelled as upstream", async () => {
    // A watcher of UpdateRequests (as `kubectl get ur -w`) sees each one Completed before it is deleted.
    const states = new Map<string, string[]>();
    const watch = await client.watch<KubeObject>(
      { apiVersion: "kyverno.io/v2", kind: "UpdateRequest", namespace: "kyverno" },
      (event) => {
        if (event.type === "ERROR" || event.type === "BOOKMARK") return;
        const name = event.object.metadata?.name ?? "";
        const state = (event.object.status as { state?: string } | undefined)?.state ?? "";
        states.set(name, [...(states.get(name) ?? []), `${event.type}:${state}`]);
      },
    );
    if (!watch.ok) throw new Error(watch.message);
    const created = await kubectl(["create", "namespace", "team-a"]);
    expect(created.stderr).toBe("");
    let netpol: KubeObject | undefined;
    await until(
      async () => {
        netpol = await get("NetworkPolicy", "team-a", "default-deny", "networking.k8s.io/v1");
        return (
          netpol !== undefined &&
          (await get("ResourceQuota", "team-a", "quota")) !== undefined &&
          (await get("Secret", "team-a", "regcred")) !== undefined
        );
      },
      20_000,
      `generated resources in team-a\n${background.output().slice(-4000)}`,
    );
    const ns = await get("Namespace", "", "team-a");
    expect(netpol?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "kyverno",
      "generate.kyverno.io/policy-name": "namespace-defaults",
      "generate.kyverno.io/rule-name": "default-deny",
      "generate.kyverno.io/trigger-kind": "Namespace",
      "generate.kyverno.io/trigger-name": "team-a",
      "generate.kyverno.io/trigger-uid": ns?.metadata?.uid,
    });
    expect(netpol?.spec).toMatchObject({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
    const secret = await get("Secret", "team-a", "regcred");
    expect(secret?.data).toEqual({ token: Buffer.from("one").toString("base64") });
    expect(secret?.metadata?.labels).toMatchObject({
      "generate.kyverno.io/source-namespace": "shared",
      "generate.kyverno.io/source-name": "regcred",
    });
    // Completed UpdateRequests are deleted.
    await until(
      async () =>
        (await kubectl(["get", "updaterequests", "-n", "kyverno", "-o", "name"])).stdout.trim() === "",
      20_000,
      "UpdateRequests deleted",
    );
    await until(
      () => [...states.values()].some((events) => events.at(-1)?.startsWith("DELETED") === true),
      5000,
      "the watch's DELETED event",
    );
    watch.value.stop();
    const seen = [...states.values()].filter((events) => events.at(-1)?.startsWith("DELETED"));
    expect(seen.length).toBeGreaterThan(0);
    for (const events of seen) expect(events.slice(-2)).toEqual(["MODIFIED:Completed", "DELETED:Completed"]);
  }, 30_000);

  it("a deleted synchronized NetworkPolicy is restored; a changed one is reverted", async () => {
    const before = await get("NetworkPolicy", "team-a", "default-deny", "networking.k8s.io/v1");
    const deleted = await kubectl(["delete", "networkpolicy", "-n", "team-a", "default-deny"]);
    expect(deleted.code).toBe(0);
    let after: KubeObject | undefined;
    await until(
      async () => {
        after = await get("NetworkPolicy", "team-a", "default-deny", "networking.k8s.io/v1");
        return after !== undefined && after.metadata?.uid !== before?.metadata?.uid;
      },
      20_000,
      "NetworkPolicy restored",
    );
    const patched = await kubectl([
      "patch",
      "networkpolicy",
      "-n",
      "team-a",
      "default-deny",
      "--type=merge",
      "-p",
      '{"spec":{"policyTypes":["Ingress"]}}',
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () => {
        const now = await get("NetworkPolicy", "team-a", "default-deny", "networking.k8s.io/v1");
        return (
          JSON.stringify((now?.spec as { policyTypes?: unknown })?.policyTypes) === '["Ingress","Egress"]'
        );
      },
      20_000,
      "NetworkPolicy reverted",
    );
  }, 30_000);

  it("a change of the clone source Secret reaches the downstream Secret", async () => {
    const two = Buffer.from("two").toString("base64");
    const patched = await kubectl([
      "patch",
      "secret",
      "-n",
      "shared",
      "regcred",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { token: two } }),
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () => ((await get("Secret", "team-a", "regcred"))?.data as Record<string, string>)?.token === two,
      20_000,
      "downstream Secret updated",
    );
  }, 30_000);

  it("deleting a trigger deletes what its synchronized rule generated", async () => {
    expect((await kubectl(["create", "configmap", "-n", "apps", "gen-1", "--from-literal=a=b"])).code).toBe(
      0,
    );
    await until(
      async () => (await get("ConfigMap", "shared", "copy-gen-1")) !== undefined,
      20_000,
      "copy created",
    );
    expect((await get("ConfigMap", "shared", "copy-gen-1"))?.data).toEqual({ from: "gen-1" });
    expect((await kubectl(["delete", "configmap", "-n", "apps", "gen-1"])).code).toBe(0);
    await until(
      async () => (await get("ConfigMap", "shared", "copy-gen-1")) === undefined,
      20_000,
      "copy deleted",
    );
  }, 30_000);

  it("creating a ConfigMap patches the mutate-existing target Secret", async () => {
    expect(
      (await kubectl(["create", "configmap", "-n", "apps", "trigger-1", "--from-literal=a=b"])).code,
    ).toBe(0);
    await until(
      async () => (await get("Secret", "apps", "target"))?.metadata?.labels?.["touched-by"] === "trigger-1",
      20_000,
      "target Secret labelled",
    );
  }, 30_000);

  it("leads on the kyverno-background-controller Lease and counts UpdateRequests in its metrics", async () => {
    const lease = await read(client, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "kyverno",
      name: "kyverno-background-controller",
    });
    expect((lease?.spec as { holderIdentity?: string })?.holderIdentity).toBe("kyverno-background-0");
    const scrape = await (await fetch(`http://127.0.0.1:${background.metricsPort}/metrics`)).text();
    expect(scrape).toMatch(
      /kyverno_updaterequest_processed_total\{request_type="generate",state="Completed"\} [1-9]/,
    );
    expect(scrape).toMatch(
      /kyverno_updaterequest_processed_total\{request_type="mutate",state="Completed"\} [1-9]/,
    );
    expect(scrape).toContain(
      'kyverno_controller_reconcile_total{controller_name="update-request-controller"}',
    );
    const health = await fetch(`http://127.0.0.1:${background.metricsPort}/health/readiness`);
    expect(health.status).toBe(200);
  }, 30_000);

  it("after a SIGKILL mid-work, the restarted controller finishes the pending UpdateRequests without duplicates", async () => {
    // One worker, so that the kill finds most of the work pending.
    await background.stop();
    background = await startController(1);
    const names = Array.from({ length: 60 }, (_, i) => `team-k${i}`);
    const yaml = names.map((n) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${n}}\n`).join("---\n");
    expect((await kubectl(["apply", "-f", "-"], yaml)).code).toBe(0);
    // Kill as soon as the first generated object shows up: the rest is pending.
    await until(
      async () =>
        (
          await client.list({
            apiVersion: "v1",
            kind: "ResourceQuota",
            labelSelector: "generate.kyverno.io/policy-name",
          })
        ).ok,
      10_000,
    );
    await until(async () => {
      const listed = await client.list({
        apiVersion: "v1",
        kind: "ResourceQuota",
        labelSelector: "generate.kyverno.io/policy-name",
      });
      return listed.ok && listed.value.items.some((o) => o.metadata?.namespace?.startsWith("team-k"));
    }, 20_000);
    await background.kill();
    // What was generated before the crash: it must survive the restart as it is (not re-created).
    const quotasOf = async () => {
      const listed = await client.list({
        apiVersion: "v1",
        kind: "ResourceQuota",
        labelSelector: "generate.kyverno.io/policy-name=namespace-defaults",
      });
      return new Map(
        (listed.ok ? listed.value.items : [])
          .filter((o) => o.metadata?.namespace?.startsWith("team-k"))
          .map((o) => [o.metadata?.namespace ?? "", String(o.metadata?.uid)]),
      );
    };
    const beforeRestart = await quotasOf();
    expect(beforeRestart.size).toBeGreaterThan(0);
    const left = await client.list({
      apiVersion: "kyverno.io/v2",
      kind: "UpdateRequest",
      namespace: "kyverno",
    });
    expect(left.ok && left.value.items.length).toBeGreaterThan(0);
    // What is left shows as Pending in kubectl's status column (the admission controller records it).
    await until(
      async () => {
        const table = await kubectl(["get", "updaterequests", "-n", "kyverno", "--no-headers"]);
        // Skip ones of the earlier tests are kept, as upstream keeps them.
        const rows = table.stdout
          .trim()
          .split("\n")
          .filter((l) => l !== "" && !/\sSkip\s/.test(l));
        return rows.length > 0 && rows.every((row) => /\sPending\s/.test(row));
      },
      10_000,
      "pending UpdateRequests listed as Pending",
    );
    background = await startController();
    await until(
      async () => {
        const listed = await client.list({
          apiVersion: "kyverno.io/v2",
          kind: "UpdateRequest",
          namespace: "kyverno",
        });
        // Completed ones are deleted; Skip ones (kept, as upstream) are from the earlier tests.
        return (
          listed.ok && listed.value.items.every((o) => (o.status as { state?: string })?.state === "Skip")
        );
      },
      120_000,
      `pending UpdateRequests finished\n${background.output().slice(-4000)}`,
    );
    for (const kind of ["ResourceQuota", "Secret"]) {
      const listed = await client.list({
        apiVersion: "v1",
        kind,
        labelSelector: "generate.kyverno.io/policy-name=namespace-defaults",
      });
      const perNamespace = new Map<string, number>();
      for (const o of listed.ok ? listed.value.items : [])
        perNamespace.set(
          o.metadata?.namespace ?? "",
          (perNamespace.get(o.metadata?.namespace ?? "") ?? 0) + 1,
        );
      for (const n of names) expect(perNamespace.get(n), `${kind} in ${n}`).toBe(1);
    }
    const afterRestart = await quotasOf();
    for (const [namespace, uid] of beforeRestart)
      expect(afterRestart.get(namespace), `ResourceQuota in ${namespace}`).toBe(uid);
    const netpols = await client.list({ apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy" });
    const inK = (netpols.ok ? netpols.value.items : []).filter((o) =>
      o.metadata?.namespace?.startsWith("team-k"),
    );
    expect(inK.length).toBe(names.length);
  }, 300_000);
});
