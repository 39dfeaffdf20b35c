/**
 * End to end, GeneratingPolicies as a user meets them: `kyverno-ts admission` and `kyverno-ts
 * background` as their own processes against the sandbox API server with upstream's CRDs, driven by
 * the real kubectl. An admitted trigger becomes a `cel-generate` UpdateRequest; the background
 * controller generates (data and clone sources) with upstream's labels, restores a deleted
 * synchronized downstream, keeps clones in sync with their source (deleted with it), deletes the
 * downstream with its trigger or its policy (unless orphaned), generates for
 * existing triggers (`generateExisting`), and keeps a NamespacedGeneratingPolicy in its namespace.
 * A new background replica recovers which kinds the synchronized policies generated from the
 * downstream objects' labels: a downstream generated before it is still restored.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BackgroundProcess, startBackground } from "../testing/background.js";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the GeneratingPolicy e2e suite: kubectl is not installed");

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/", import.meta.url);
const CRDS = [
  "kyverno/kyverno.io_updaterequests.yaml",
  "policies.kyverno.io/policies.kyverno.io_generatingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_namespacedgeneratingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_policyexceptions.yaml",
].map((file) => fileURLToPath(new URL(file, CRD_DIR)));

/** Exempts one Namespace from each GeneratingPolicy: at admission and for generateExisting. */
const EXCEPTIONS = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: exempt-namespaces, namespace: kyverno}
spec:
  policyRefs:
  - {name: team-defaults, kind: GeneratingPolicy}
  - {name: existing-marker, kind: GeneratingPolicy}
  matchConditions:
  - name: exempt
    expression: "object.metadata.name.endsWith('-exempt')"
`;

const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: GeneratingPolicy
metadata: {name: team-defaults}
spec:
  evaluation:
    synchronize: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [namespaces]}
  matchConditions:
  - name: teams
    expression: "object.metadata.name.startsWith('team-')"
  variables:
  - name: ns
    expression: object.metadata.name
  - name: source
    expression: resource.Get("v1", "secrets", "shared", "regcred")
  - name: settings
    expression: >-
      [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
        "metadata": dyn({"name": "defaults"}), "data": dyn({"team": variables.ns})}]
  generate:
  - expression: generator.Apply(variables.ns, variables.settings)
  - expression: generator.Apply(variables.ns, [variables.source])
---
apiVersion: policies.kyverno.io/v1
kind: NamespacedGeneratingPolicy
metadata: {name: app-companion, namespace: prod}
spec:
  evaluation:
    synchronize: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  matchConditions:
  - name: apps
    expression: "object.metadata.name.startsWith('app-')"
  generate:
  - expression: >-
      generator.Apply("prod", [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
        "metadata": dyn({"name": "companion-" + object.metadata.name}),
        "data": dyn({"for": object.metadata.name})}])
`;

/** Created after a labelled Namespace exists: generateExisting reaches it; orphaned on delete. */
const EXISTING = `apiVersion: policies.kyverno.io/v1
kind: GeneratingPolicy
metadata: {name: existing-marker}
spec:
  evaluation:
    generateExisting: {enabled: true}
    synchronize: {enabled: true}
    orphanDownstreamOnPolicyDelete: {enabled: true}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}
    objectSelector: {matchLabels: {marked: "yes"}}
  generate:
  - expression: >-
      generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
        "metadata": dyn({"name": "marker"}), "data": dyn({"marked": "yes"})}])
`;

const EXCEPTION_FLAGS = ["--enablePolicyException", "--exceptionNamespace", "kyverno"];

describe.skipIf(!hasKubectl)("GeneratingPolicies in a cluster, through kubectl", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let background: BackgroundProcess;
  let kubectl: ReturnType<typeof kubectlFor>;
  /** The UpdateRequests' states, one per UpdateRequest (`<none>`: not recorded yet). */
  const urStates = async () =>
    (
      await kubectl([
        "get",
        "updaterequests",
        "-n",
        "kyverno",
        "--no-headers",
        "-o",
        "custom-columns=NAME:.metadata.name,STATE:.status.state,TRIGGER:.spec.resource.name",
      ])
    ).stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => {
        const [name = "", state = "", trigger = ""] = l.trim().split(/\s+/);
        return { name, state, trigger };
      });
  /** Processed: Completed ones are deleted, Skip ones kept (as upstream); nothing else is left. */
  const allProcessed = async () => (await urStates()).every((u) => u.state === "Skip");
  const get = (kind: string, namespace: string, name: string) =>
    read(client, { apiVersion: "v1", kind, namespace, name });
  const ready = async (...resource: string[]) =>
    (await kubectl(["get", ...resource, "-o", "jsonpath={.status.conditionStatus.ready}"])).stdout;
  const logs = () => `\n--- background ---\n${background.output().slice(-3000)}`;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, ...CRDS] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "shared", "prod"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    for (const name of ["old-team", "old-exempt"])
      await client.create({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name, labels: { marked: "yes" } },
      });
    await client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "regcred", namespace: "shared" },
      data: { token: Buffer.from("one").toString("base64") },
    });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1", ...EXCEPTION_FLAGS],
      startTimeoutMs: 120_000,
    });
    background = await startBackground({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-background-0",
      args: EXCEPTION_FLAGS,
      leaderTimings: { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 },
    });
    await until(
      async () =>
        (await read(client, {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          name: "kyverno-policy-validating-webhook-cfg",
        })) !== undefined,
      20_000,
      "the policy validation webhook",
    );
    expect((await kubectl(["apply", "-f", "-"], EXCEPTIONS)).stderr).toBe("");
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    // The gpol webhook covers the triggers once the policies are in.
    await until(
      async () => {
        const cfg = await read(client, {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          name: "kyverno-resource-validating-webhook-cfg",
        });
        const hooks = JSON.stringify(cfg?.webhooks ?? []);
        return hooks.includes("gpol.validate.kyverno.svc-fail") && hooks.includes("configmaps");
      },
      20_000,
      "the gpol webhook",
    );
  }, 240_000);
  afterAll(async () => {
    await background?.stop();
    await replica?.stop();
    client?.close();
    await sandbox?.stop();
  }, 30_000);

  it("shows the GeneratingPolicies Ready", async () => {
    await until(async () => (await ready("generatingpolicy/team-defaults")) === "true", 20_000, "Ready");
    await until(
      async () => (await ready("namespacedgeneratingpolicy/app-companion", "-n", "prod")) === "true",
      20_000,
      "namespaced Ready",
    );
  }, 45_000);

  it("creating a Namespace generates the policy's ConfigMap and the cloned Secret, labelled as upstream", async () => {
    const created = await kubectl(["create", "namespace", "team-a"]);
    expect(created.stderr).toBe("");
    await until(
      async () =>
        (await get("ConfigMap", "team-a", "defaults")) !== undefined &&
        (await get("Secret", "team-a", "regcred")) !== undefined,
      20_000,
      `generated resources in team-a${logs()}`,
    );
    const ns = await get("Namespace", "", "team-a");
    const cm = await get("ConfigMap", "team-a", "defaults");
    expect(cm?.data).toEqual({ team: "team-a" });
    expect(cm?.metadata?.labels).toMatchObject({
      "app.kubernetes.io/managed-by": "kyverno",
      "generate.kyverno.io/policy-name": "team-defaults",
      "generate.kyverno.io/trigger-kind": "Namespace",
      "generate.kyverno.io/trigger-version": "v1",
      "generate.kyverno.io/trigger-name": "team-a",
      "generate.kyverno.io/trigger-uid": ns?.metadata?.uid,
    });
    // The result reaches the reports as the background controller's ephemeral report of the trigger,
    // with upstream's fields (the exceptions guide's GeneratingPolicy report): rule named after the
    // policy, "policy evaluated successfully", generated-resources and process admission review.
    let row: Record<string, unknown> | undefined;
    await until(
      async () => {
        const report = await read(client, {
          apiVersion: "reports.kyverno.io/v1",
          kind: "ClusterEphemeralReport",
          name: String(ns?.metadata?.uid),
        });
        const results = (report?.spec as { results?: Array<Record<string, unknown>> } | undefined)?.results;
        row = results?.find((r) => r.policy === "team-defaults");
        return row !== undefined;
      },
      20_000,
      `an ephemeral report of team-a${logs()}`,
    );
    expect(row).toMatchObject({
      source: "KyvernoGeneratingPolicy",
      policy: "team-defaults",
      rule: "team-defaults",
      result: "pass",
      message: "policy evaluated successfully",
      scored: true,
      properties: {
        "generated-resources":
          "/v1, Kind=ConfigMap Name=defaults Namespace=team-a; /v1, Kind=Secret Name=regcred Namespace=team-a",
        process: "admission review",
      },
    });
    const secret = await get("Secret", "team-a", "regcred");
    expect(secret?.data).toEqual({ token: Buffer.from("one").toString("base64") });
    expect(secret?.metadata?.labels).toMatchObject({
      "generate.kyverno.io/policy-name": "team-defaults",
      "generate.kyverno.io/source-namespace": "shared",
      "generate.kyverno.io/source-name": "regcred",
      "generate.kyverno.io/source-kind": "Secret",
    });
    // A Namespace the matchConditions leave out gets nothing, nor one a CEL PolicyException exempts.
    expect((await kubectl(["create", "namespace", "other"])).code).toBe(0);
    expect((await kubectl(["create", "namespace", "team-exempt"])).code).toBe(0);
    await until(allProcessed, 20_000, "UpdateRequests processed (deleted, or kept in Skip)");
    expect(await get("ConfigMap", "other", "defaults")).toBeUndefined();
    expect(await get("ConfigMap", "team-exempt", "defaults")).toBeUndefined();
    // The exempted Namespace's skip is reported as upstream's: rule named after the policy, no message,
    // the exception named in the properties.
    const exempt = await get("Namespace", "", "team-exempt");
    let skipRows: Array<Record<string, unknown>> | undefined;
    await until(
      async () => {
        const skipped = await read(client, {
          apiVersion: "reports.kyverno.io/v1",
          kind: "ClusterEphemeralReport",
          name: String(exempt?.metadata?.uid),
        });
        skipRows = (skipped?.spec as { results?: Array<Record<string, unknown>> } | undefined)?.results;
        return skipRows !== undefined;
      },
      20_000,
      `an ephemeral report of team-exempt${logs()}`,
    );
    expect(skipRows).toEqual([
      expect.objectContaining({
        source: "KyvernoGeneratingPolicy",
        policy: "team-defaults",
        rule: "team-defaults",
        result: "skip",
        properties: { exceptions: "exempt-namespaces", process: "admission review" },
      }),
    ]);
    expect(skipRows?.[0]?.message ?? "").toBe("");
  }, 45_000);

  it("synchronize restores a deleted downstream and reverts a changed one", async () => {
    const before = await get("ConfigMap", "team-a", "defaults");
    expect((await kubectl(["delete", "configmap", "-n", "team-a", "defaults"])).code).toBe(0);
    await until(
      async () => {
        const now = await get("ConfigMap", "team-a", "defaults");
        return now !== undefined && now.metadata?.uid !== before?.metadata?.uid;
      },
      20_000,
      `ConfigMap restored${logs()}`,
    );
    const patched = await kubectl([
      "patch",
      "configmap",
      "-n",
      "team-a",
      "defaults",
      "--type=merge",
      "-p",
      '{"data":{"team":"someone-else"}}',
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () =>
        ((await get("ConfigMap", "team-a", "defaults"))?.data as Record<string, string> | undefined)?.team ===
        "team-a",
      20_000,
      `ConfigMap reverted${logs()}`,
    );
  }, 45_000);

  it("a synchronized clone follows its source: changed, the copy is synced; deleted, the copy is deleted", async () => {
    const token = (s: string) => Buffer.from(s).toString("base64");
    const patched = await kubectl([
      "patch",
      "secret",
      "-n",
      "shared",
      "regcred",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { token: token("two") } }),
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () =>
        ((await get("Secret", "team-a", "regcred"))?.data as Record<string, string> | undefined)?.token ===
        token("two"),
      20_000,
      `the copy synced with its source${logs()}`,
    );
    expect((await kubectl(["delete", "secret", "-n", "shared", "regcred"])).code).toBe(0);
    await until(
      async () => (await get("Secret", "team-a", "regcred")) === undefined,
      20_000,
      `the copy deleted with its source${logs()}`,
    );
    // The source back, a new team gets its copy again.
    await client.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "regcred", namespace: "shared" },
      data: { token: token("three") },
    });
    expect((await kubectl(["create", "namespace", "team-b"])).code).toBe(0);
    await until(
      async () =>
        ((await get("Secret", "team-b", "regcred"))?.data as Record<string, string> | undefined)?.token ===
        token("three"),
      20_000,
      `the copy in team-b${logs()}`,
    );
  }, 60_000);

  it("after a restart of the background controller, synchronize still restores downstream generated before it and syncs clones", async () => {
    await background.stop();
    // Another replica: nothing in its memory says which kinds the policies generated.
    background = await startBackground({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-background-1",
      args: EXCEPTION_FLAGS,
      leaderTimings: { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 },
    });
    await until(
      async () =>
        (
          (
            await read(client, {
              apiVersion: "coordination.k8s.io/v1",
              kind: "Lease",
              namespace: "kyverno",
              name: "kyverno-background-controller",
            })
          )?.spec as { holderIdentity?: string } | undefined
        )?.holderIdentity === "kyverno-background-1",
      20_000,
      `the new replica leads${logs()}`,
    );
    await until(
      () => background.output().includes("watching the downstream of synchronized GeneratingPolicies"),
      20_000,
      `downstream kinds recovered${logs()}`,
    );
    const before = await get("ConfigMap", "team-b", "defaults");
    expect(before).toBeDefined();
    expect((await kubectl(["delete", "configmap", "-n", "team-b", "defaults"])).code).toBe(0);
    await until(
      async () => {
        const now = await get("ConfigMap", "team-b", "defaults");
        return now !== undefined && now.metadata?.uid !== before?.metadata?.uid;
      },
      20_000,
      `ConfigMap restored after the restart${logs()}`,
    );
    const token = (s: string) => Buffer.from(s).toString("base64");
    const patched = await kubectl([
      "patch",
      "secret",
      "-n",
      "shared",
      "regcred",
      "--type=merge",
      "-p",
      JSON.stringify({ data: { token: token("four") } }),
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () =>
        ((await get("Secret", "team-b", "regcred"))?.data as Record<string, string> | undefined)?.token ===
        token("four"),
      20_000,
      `the copy synced with its source after the restart${logs()}`,
    );
  }, 120_000);

  it("a NamespacedGeneratingPolicy generates in its namespace, and a deleted trigger takes the downstream along", async () => {
    expect((await kubectl(["create", "configmap", "app-web", "-n", "prod", "--from-literal=a=b"])).code).toBe(
      0,
    );
    let companion: KubeObject | undefined;
    await until(
      async () => {
        companion = await get("ConfigMap", "prod", "companion-app-web");
        return companion !== undefined;
      },
      20_000,
      `companion ConfigMap${logs()}`,
    );
    expect(companion?.data).toEqual({ for: "app-web" });
    expect(companion?.metadata?.labels).toMatchObject({
      "generate.kyverno.io/policy-name": "app-companion",
      "generate.kyverno.io/policy-namespace": "prod",
      "generate.kyverno.io/trigger-kind": "ConfigMap",
      "generate.kyverno.io/trigger-namespace": "prod",
    });
    // The policy's namespace only: the same trigger elsewhere generates nothing.
    expect((await kubectl(["create", "configmap", "app-web", "-n", "shared"])).code).toBe(0);
    expect((await kubectl(["delete", "configmap", "app-web", "-n", "prod"])).code).toBe(0);
    await until(
      async () => (await get("ConfigMap", "prod", "companion-app-web")) === undefined,
      20_000,
      `companion deleted with its trigger${logs()}`,
    );
    expect(await get("ConfigMap", "shared", "companion-app-web")).toBeUndefined();
  }, 45_000);

  it("generateExisting generates for a Namespace that existed before the policy; deleting policies deletes or orphans their downstream", async () => {
    const applied = await kubectl(["apply", "-f", "-"], EXISTING);
    expect(applied.stderr).toBe("");
    await until(
      async () => (await get("ConfigMap", "old-team", "marker")) !== undefined,
      20_000,
      `marker in the existing Namespace${logs()}`,
    );
    // The background controller knows the CEL PolicyException too: the exempted Namespace gets none.
    await until(allProcessed, 20_000, "UpdateRequests processed (deleted, or kept in Skip)");
    expect(await get("ConfigMap", "old-exempt", "marker")).toBeUndefined();
    expect((await kubectl(["delete", "generatingpolicy", "existing-marker"])).code).toBe(0);
    // Orphaned: the downstream outlives its policy (checked after the deletion had time to act).
    expect((await kubectl(["delete", "generatingpolicy", "team-defaults"])).code).toBe(0);
    await until(
      async () => (await get("ConfigMap", "team-a", "defaults")) === undefined,
      20_000,
      `a deleted synchronized policy's downstream deleted${logs()}`,
    );
    expect(await get("ConfigMap", "old-team", "marker")).toBeDefined();
    // A clone's lifecycle follows its source, not the policy (upstream's table): it is kept.
    expect(await get("Secret", "team-b", "regcred")).toBeDefined();
  }, 45_000);
});
