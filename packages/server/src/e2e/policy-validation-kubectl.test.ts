/**
 * End to end, the policy validation webhook as upstream's: `kyverno-ts admission` (cluster mode)
 * against the sandbox, driven by kubectl. A generate or mutate-existing policy the background
 * controller's ServiceAccount could not carry out is rejected (SubjectAccessReviews answered by the
 * sandbox's RBAC), an update changing a generate rule's immutable fields is rejected, and updates
 * whose change does not reach generated resources come back as warnings kubectl prints.
 */
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const BACKGROUND = "system:serviceaccount:kyverno:kyverno-background-controller";
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the policy validation e2e suite: kubectl is not installed");

const generateSecret = (name: string, data: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-secret}
spec:
  rules:
  - name: ${name}
    match: {any: [{resources: {kinds: [Namespace]}}]}
    generate:
      apiVersion: v1
      kind: Secret
      name: registry
      namespace: "{{request.object.metadata.name}}"
      synchronize: false
      data: {data: {token: ${data}}}
`;

const MUTATE_EXISTING = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: touch-configmaps}
spec:
  rules:
  - name: label-configmaps
    match: {any: [{resources: {kinds: [Secret]}}]}
    mutate:
      targets:
      - {apiVersion: v1, kind: ConfigMap, namespace: "{{request.object.metadata.namespace}}"}
      patchStrategicMerge: {metadata: {labels: {touched: "true"}}}
`;

const GRANT = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kyverno:background-controller:secrets}
rules:
- {apiGroups: [""], resources: [secrets], verbs: [create, update, get, delete, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kyverno:background-controller:secrets}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kyverno:background-controller:secrets}
subjects:
- {kind: ServiceAccount, name: kyverno-background-controller, namespace: kyverno}
`;

describe.skipIf(!hasKubectl)("policy validation in a cluster, through kubectl", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: KYVERNO_CRDS });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1"],
      startTimeoutMs: 90_000,
    });
    await until(
      async () =>
        (await read(client, {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          name: "kyverno-policy-validating-webhook-cfg",
        })) !== undefined,
      20_000,
      "policy validating webhook registered",
    );
  }, 120_000);
  afterAll(async () => {
    if (replica) await replica.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("rejects a generate policy the background controller may not carry out, with upstream's message", async () => {
    const denied = await kubectl(["apply", "-f", "-"], generateSecret("registry", "MQ=="));
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      `admission webhook "validate-policy.kyverno.svc" denied the request: path: spec.rules[0].generate..: ${BACKGROUND} does not have permissions to 'create' resource v1/Secret//{{request.object.metadata.name}}. Grant proper permissions to the background controller`,
    );
    expect(
      await read(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "add-secret" }),
    ).toBeUndefined();
  });

  it("accepts it once RBAC grants the ServiceAccount the verbs", async () => {
    expect((await kubectl(["apply", "-f", "-"], GRANT)).code).toBe(0);
    const can = await kubectl(["auth", "can-i", "delete", "secrets", "--as", BACKGROUND]);
    expect(can.stdout.trim()).toBe("yes");
    const applied = await kubectl(["apply", "-f", "-"], generateSecret("registry", "MQ=="));
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
  });

  it("writes the policy's status as upstream serializes it", async () => {
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=30s",
      "clusterpolicy/add-secret",
    ]);
    expect(ready.stdout).toContain("condition met");
    const stored = await read(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "add-secret",
    });
    expect(stored?.status).toMatchObject({
      ready: true,
      autogen: {},
      rulecount: { validate: 0, generate: 1, mutate: 0, verifyimages: 0 },
      validatingadmissionpolicy: { generated: false, message: "" },
    });
    expect((stored?.status as { autogen?: object } | undefined)?.autogen).toEqual({});
  });

  it("rejects a change of the generate rule's immutable fields on update", async () => {
    const renamed = generateSecret("registry", "MQ==").replace(
      "      name: registry\n",
      "      name: other\n",
    );
    const denied = await kubectl(["apply", "-f", "-"], renamed);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("change of immutable fields for a generate rule is disallowed");
    const stored = await read(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "add-secret",
    });
    const spec = stored?.spec as { rules: Array<{ generate: { name: string } }> } | undefined;
    const generate = spec?.rules[0]?.generate;
    expect(generate?.name).toBe("registry");
  });

  it("returns a warning, printed by kubectl, when changed data will not reach generated resources", async () => {
    const updated = await kubectl(["apply", "-f", "-"], generateSecret("registry", "Mg=="));
    expect(updated.code).toBe(0);
    expect(updated.stderr).toMatch(/^Warning: .*synchronize is false/m);
  });

  it("rejects a mutate-existing policy whose targets the ServiceAccount may not update", async () => {
    const denied = await kubectl(["apply", "-f", "-"], MUTATE_EXISTING);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      `denied the request: path: spec.rules[0].mutate.targets: auth check fails, additional privileges are required for the service account '${BACKGROUND}'`,
    );
    const listed = await client.list<KubeObject>({ apiVersion: "kyverno.io/v1", kind: "ClusterPolicy" });
    expect(listed.ok).toBe(true);
    expect(listed.ok && listed.value.items.map((p) => p.metadata?.name)).toEqual(["add-secret"]);
  });
});

describe.skipIf(!hasKubectl)("Kyverno's ConfigMap in a cluster, through kubectl", { timeout: 60_000 }, () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let kubectl: ReturnType<typeof kubectlFor>;
  const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-owner}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
  - name: owner
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team]}}]}
    validate:
      message: the label owner is required
      pattern: {metadata: {labels: {owner: "?*"}}}
`;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: KYVERNO_CRDS });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "team"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    await client.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kyverno", namespace: "kyverno" },
      data: { resourceFilters: "[Event,*,*]", excludeGroups: "system:nodes" },
    });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1"],
      startTimeoutMs: 90_000,
    });
    expect((await kubectl(["apply", "-f", "-"], POLICY)).code).toBe(0);
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=30s",
      "clusterpolicy/require-owner",
    ]);
    expect(ready.stdout).toContain("condition met");
  }, 120_000);
  afterAll(async () => {
    if (replica) await replica.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("stops evaluating what a resourceFilters edit covers, without a restart", async () => {
    const denied = await kubectl(["create", "configmap", "settings", "-n", "team"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("the label owner is required");
    const patched = await kubectl([
      "patch",
      "configmap",
      "kyverno",
      "-n",
      "kyverno",
      "--type",
      "merge",
      "-p",
      JSON.stringify({ data: { resourceFilters: "[Event,*,*] [ConfigMap,team,*]" } }),
    ]);
    expect(patched.code).toBe(0);
    await until(
      async () =>
        (await kubectl(["create", "configmap", "settings", "-n", "team", "--dry-run=server"])).code === 0,
      20_000,
      "the filter applied",
    );
    expect((await kubectl(["create", "configmap", "settings", "-n", "team"])).code).toBe(0);
  });
});
