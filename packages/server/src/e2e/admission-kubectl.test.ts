/**
 * End to end, one replica: `kyverno-ts admission` (cluster mode, `--serverIP`) as its own process
 * against the sandbox API server with the upstream Kyverno CRDs, driven by the real kubectl.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { blockingRules, kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookConfigurationJson } from "../controllers/webhooks/webhook-configs.js";
import { enforcedBundle } from "../testing/bundle.js";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const ARGOCD = "system:serviceaccount:argocd:argocd-application-controller";
const REPO = new URL("../../../..", import.meta.url);
const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the admission e2e suite: kubectl is not installed");

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: enforce-privileged}
spec:
  validationFailureAction: Enforce
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod], namespaces: [team-a]}}]}
    validate:
      message: privileged mode is not allowed
      pattern: {spec: {containers: [{=(securityContext): {=(privileged): "false"}}]}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: audit-team-label}
spec:
  validationFailureAction: Audit
  emitWarning: true
  rules:
  - name: team-label
    match: {any: [{resources: {kinds: [Pod], namespaces: [team-b]}}]}
    validate:
      message: the label team is required
      pattern: {metadata: {labels: {team: "?*"}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-owner}
spec:
  rules:
  - name: owner
    match: {any: [{resources: {kinds: [ConfigMap], namespaces: [team-c]}}]}
    mutate:
      patchStrategicMerge: {metadata: {labels: {owner: platform}}}
`;

const pod = (name: string, namespace: string, extra = "") => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}${extra}}
spec:
  containers:
  - name: app
    image: nginx:1.27
    securityContext: {privileged: true}
`;

describe.skipIf(!hasKubectl)("kyverno-ts admission in a cluster, through kubectl", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({
      crds: KYVERNO_CRDS,
      users: [{ username: ARGOCD, clusterRoles: ["cluster-admin"] }],
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "team-a", "team-b", "team-c", "staging", "production"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1"],
    });
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    const ready = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=20s",
      "clusterpolicy/enforce-privileged",
      "clusterpolicy/audit-team-label",
      "clusterpolicy/add-owner",
    ]);
    expect(ready.stderr + ready.stdout).toContain("condition met");
  }, 60_000);
  afterAll(async () => {
    if (replica) await replica.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("registers webhook configurations narrowed to what the policies match, with the CA bundle", async () => {
    const get = async (kind: string, name: string) =>
      (await read(client, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind,
        name,
      })) as unknown as WebhookConfigurationJson;
    const validating = await get("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg");
    const mutating = await get("MutatingWebhookConfiguration", "kyverno-resource-mutating-webhook-cfg");
    const policy = await get("ValidatingWebhookConfiguration", "kyverno-policy-validating-webhook-cfg");
    const exception = await get("ValidatingWebhookConfiguration", "kyverno-exception-validating-webhook-cfg");
    const ca = await read(client, {
      apiVersion: "v1",
      kind: "Secret",
      namespace: "kyverno",
      name: "kyverno-svc.kyverno.svc.kyverno-tls-ca",
    });
    const pair = await read(client, {
      apiVersion: "v1",
      kind: "Secret",
      namespace: "kyverno",
      name: "kyverno-svc.kyverno.svc.kyverno-tls-pair",
    });
    expect(pair?.type).toBe("kubernetes.io/tls");
    const caBundle = (ca?.data as Record<string, string> | undefined)?.["tls.crt"];
    expect(validating.webhooks.map((w) => w.name)).toEqual(["validate.kyverno.svc-fail"]);
    const [hook] = validating.webhooks;
    expect(hook?.clientConfig.url).toBe(`https://127.0.0.1:${replica.port}/validate/fail`);
    expect(hook?.clientConfig.caBundle).toBe(caBundle);
    expect(hook?.timeoutSeconds).toBe(10);
    expect(hook?.namespaceSelector.matchExpressions?.[0]).toEqual({
      key: "kubernetes.io/metadata.name",
      operator: "NotIn",
      values: ["kube-node-lease", "kube-public", "kube-system", "kyverno"],
    });
    // Pod rules plus every controller autogen extends them to.
    const resources = hook?.rules.flatMap((r) => r.resources.map((x) => `${r.apiGroups[0]}/${x}`));
    expect(resources?.sort()).toEqual([
      "/pods",
      "/pods/ephemeralcontainers",
      "/replicationcontrollers",
      "apps/daemonsets",
      "apps/deployments",
      "apps/replicasets",
      "apps/statefulsets",
      "batch/cronjobs",
      "batch/jobs",
    ]);
    expect(hook?.rules[0]?.operations).toEqual(["CREATE", "UPDATE", "DELETE", "CONNECT"]);
    expect(mutating.webhooks.map((w) => [w.name, w.rules])).toEqual([
      [
        "mutate.kyverno.svc-fail",
        [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
            operations: ["CREATE", "UPDATE"],
            scope: "*",
          },
        ],
      ],
    ]);
    expect(policy.webhooks[0]?.clientConfig.url).toMatch(/\/policyvalidate$/);
    expect(exception.webhooks[0]?.rules[0]?.resources).toEqual(["policyexceptions"]);
  });

  it("leads alone on the kyverno Lease with upstream's timings", async () => {
    const lease = await read(client, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      namespace: "kyverno",
      name: "kyverno",
    });
    expect(lease?.spec).toMatchObject({ holderIdentity: "kyverno-admission-0", leaseDurationSeconds: 12 });
    expect(await replica.isLeader()).toBe(true);
  });

  it("refuses a privileged Pod under an Enforce policy with Kyverno's message", async () => {
    const result = await kubectl(["apply", "-f", "-"], pod("root", "team-a"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('admission webhook "validate.kyverno.svc-fail" denied the request');
    expect(result.stderr).toContain("resource Pod/team-a/root was blocked due to the following policies");
    expect(blockingRules(result.stderr)).toEqual(["enforce-privileged/privileged"]);
    expect(
      await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team-a", name: "root" }),
    ).toBeUndefined();
  });

  it("admits under Audit with kubectl printing the warning; a dry run has no side effect", async () => {
    const ephemeral = async () => {
      const listed = await client.list<KubeObject>({
        apiVersion: "reports.kyverno.io/v1",
        kind: "EphemeralReport",
        namespace: "team-b",
      });
      if (!listed.ok) throw new Error(listed.message);
      return listed.value.items.map((r) => {
        const spec = r.spec as {
          owner: { name: string };
          results: Array<{ policy: string; result: string }>;
        };
        return [spec.owner.name, spec.results.map((x) => `${x.policy}=${x.result}`)];
      });
    };
    const dry = await kubectl(["apply", "--dry-run=server", "-f", "-"], pod("audited", "team-b"));
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/Warning: policy audit-team-label\.team-label: .*the label team is required/);
    expect(
      await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team-b", name: "audited" }),
    ).toBeUndefined();

    const real = await kubectl(["apply", "-f", "-"], pod("audited", "team-b"));
    expect(real.code).toBe(0);
    expect(real.stdout).toContain("pod/audited created");
    expect(real.stderr).toMatch(/Warning: policy audit-team-label\.team-label: .*the label team is required/);
    const stored = await read(client, {
      apiVersion: "v1",
      kind: "Pod",
      namespace: "team-b",
      name: "audited",
    });
    expect(stored?.metadata?.name).toBe("audited");
    // Handed to the reports controller (another process) as an ephemeral report; the dry run wrote none.
    await until(async () => (await ephemeral()).length > 0, 10_000, "the ephemeral report");
    expect(await ephemeral()).toEqual([["audited", ["audit-team-label=fail"]]]);
  });

  it("stores the change a mutate policy makes", async () => {
    const result = await kubectl(["create", "configmap", "settings", "-n", "team-c", "--from-literal=a=b"]);
    expect(result.code).toBe(0);
    const label = await kubectl([
      "get",
      "configmap",
      "settings",
      "-n",
      "team-c",
      "-o",
      "jsonpath={.metadata.labels.owner}",
    ]);
    expect(label.stdout).toBe("platform");
    const dry = await kubectl([
      "create",
      "configmap",
      "draft",
      "-n",
      "team-c",
      "--dry-run=server",
      "-o",
      "yaml",
    ]);
    expect(dry.stdout).toContain("owner: platform");
    expect(
      await read(client, { apiVersion: "v1", kind: "ConfigMap", namespace: "team-c", name: "draft" }),
    ).toBeUndefined();
  });

  it("rejects an invalid ClusterPolicy at kubectl apply with a precise message", async () => {
    const invalid = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: broken}
spec:
  rules:
  - name: bad-expression
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: never
      deny:
        conditions:
          any:
          - {key: "{{ request.object.metadata.name | [ }}", operator: Equals, value: x}
`;
    const result = await kubectl(["apply", "-f", "-"], invalid);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('admission webhook "validate-policy.kyverno.svc" denied the request');
    expect(result.stderr).toContain("spec.rules[0].validate.deny.conditions.any[0].key");
    expect(
      await read(client, { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", name: "broken" }),
    ).toBeUndefined();
  });

  it("writes policy status: Ready condition, autogen rules and rule counts", async () => {
    const policy = await read(client, {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "enforce-privileged",
    });
    const status = policy?.status as {
      ready: boolean;
      conditions: Array<{ type: string; status: string; reason: string; message: string }>;
      autogen: { rules: Array<{ name: string; match: { any: Array<{ resources: { kinds: string[] } }> } }> };
      rulecount: Record<string, number>;
      validatingadmissionpolicy: unknown;
    };
    expect(status.ready).toBe(true);
    expect(status.conditions).toMatchObject([
      { type: "Ready", status: "True", reason: "Succeeded", message: "Ready" },
    ]);
    expect(status.autogen.rules.map((r) => r.name)).toEqual([
      "autogen-privileged",
      "autogen-cronjob-privileged",
    ]);
    expect(status.rulecount).toEqual({ validate: 3, generate: 0, mutate: 0, verifyimages: 0 });
    // As upstream writes them: controller kinds with group and version, the VAP status always there.
    expect(status.autogen.rules.map((r) => r.match.any[0]?.resources.kinds)).toEqual([
      [
        "apps/v1/DaemonSet",
        "apps/v1/Deployment",
        "batch/v1/Job",
        "apps/v1/StatefulSet",
        "apps/v1/ReplicaSet",
        "v1/ReplicationController",
      ],
      ["batch/v1/CronJob"],
    ]);
    expect(status.validatingadmissionpolicy).toEqual({ generated: false, message: "" });
  });

  it("gives every example manifest the expected answer under the seven bundled policies in Enforce", async () => {
    await kubectl(["delete", "clusterpolicy", "enforce-privileged", "audit-team-label", "add-owner"]);
    const bundle = enforcedBundle();
    expect(bundle).toHaveLength(7);
    expect((await kubectl(["apply", "-f", "-"], bundle.join("\n---\n"))).code).toBe(0);
    const names = bundle.map((text) => /\n {2}name: (\S+)/.exec(text)?.[1] ?? "");
    const waited = await kubectl([
      "wait",
      "--for=condition=Ready",
      "--timeout=20s",
      ...names.map((n) => `clusterpolicy/${n}`),
    ]);
    expect(waited.code).toBe(0);

    const example = (path: string) => fileURLToPath(new URL(`examples/${path}`, REPO));
    const applyAs = (path: string, context?: string) =>
      kubectl([...(context ? ["--context", context] : []), "apply", "-f", example(path)]);
    const expectations: Array<[string, string[]]> = [
      ["production/checkout-deployment.yaml", ["protect-critical-namespaces/only-argocd-may-change"]],
      ["production/checkout-service.yaml", ["protect-critical-namespaces/only-argocd-may-change"]],
      [
        "staging/storefront-latest-no-probes.yaml",
        ["disallow-latest-tag/autogen-validate-image-tag", "require-probes/autogen-validate-probes"],
      ],
      [
        "staging/log-shipper-privileged.yaml",
        ["disallow-privileged-containers/autogen-privileged-containers"],
      ],
      [
        "staging/cache-warmer-pod-no-limits.yaml",
        ["require-argocd-management/require-argocd-tracking", "require-requests-limits/validate-resources"],
      ],
      [
        "staging/nightly-report-cronjob-missing-labels.yaml",
        [
          "require-argocd-management/require-argocd-tracking",
          "require-standard-labels/autogen-cronjob-check-standard-labels",
        ],
      ],
    ];
    for (const [path, blocked] of expectations) {
      const result = await applyAs(path);
      expect(result.code, `${path}: ${result.stdout}`).toBe(1);
      expect(blockingRules(result.stderr), path).toEqual(blocked);
    }
    // Argo CD's application controller syncing production from Git passes every policy.
    for (const path of ["production/checkout-deployment.yaml", "production/checkout-service.yaml"]) {
      const result = await applyAs(path, ARGOCD);
      expect(result.code, `${path}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toBe("");
    }
    const stored = await read(client, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "production",
      name: "checkout",
    });
    expect(stored?.metadata?.name).toBe("checkout");
  }, 60_000);
});
