/**
 * End to end, CEL policies (`policies.kyverno.io`) as a user meets them: `kyverno-ts admission`
 * (cluster mode) as its own process against the sandbox API server with upstream's CRDs, driven by
 * the real kubectl. A ValidatingPolicy in Deny blocks, in Audit writes an ephemeral report, a
 * MutatingPolicy patches, a CEL PolicyException exempts, an invalid ValidatingPolicy is rejected at
 * `kubectl apply`, an ImageValidatingPolicy answers an error rather than passing.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookConfigurationJson } from "../controllers/webhooks/webhook-configs.js";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the CEL policies e2e suite: kubectl is not installed");

const CEL_CRD_DIR = new URL(
  "../../../../../shared/reference/kyverno-crds/policies.kyverno.io/",
  import.meta.url,
);
const CEL_CRDS = [
  "validatingpolicies",
  "namespacedvalidatingpolicies",
  "mutatingpolicies",
  "namespacedmutatingpolicies",
  "imagevalidatingpolicies",
  "policyexceptions",
].map((plural) => fileURLToPath(new URL(`policies.kyverno.io_${plural}.yaml`, CEL_CRD_DIR)));

const POLICIES = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: require-team}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-a}}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: the label team is required
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: audit-owner}
spec:
  validationActions: [Audit, Warn]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-b}}
  validations:
  - expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels"
    messageExpression: "'pod ' + object.metadata.name + ' has no owner label'"
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: add-owner}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-c}}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}"
---
apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: exempt-debug, namespace: kyverno}
spec:
  policyRefs:
  - {name: require-team, kind: ValidatingPolicy}
  matchConditions:
  - name: debug-pods
    expression: "object.metadata.name.startsWith('debug-')"
`;

const pod = (name: string, namespace: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  containers:
  - {name: app, image: "nginx:1.27"}
`;

describe.skipIf(!hasKubectl)("CEL policies in a cluster, through kubectl", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let kubectl: ReturnType<typeof kubectlFor>;

  const celReady = async (resource: string): Promise<unknown> => {
    const got = await kubectl(["get", resource, "-o", "jsonpath={.status.conditionStatus.ready}"]);
    return got.stdout;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, ...CEL_CRDS] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "team-a", "team-b", "team-c", "team-d"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1", "--enablePolicyException", "--exceptionNamespace", "kyverno"],
      startTimeoutMs: 60_000,
    });
    // The policy webhook is registered once the replica serves; apply after it checks policies.
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
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    for (const name of [
      "validatingpolicy/require-team",
      "validatingpolicy/audit-owner",
      "mutatingpolicy/add-owner",
    ])
      await until(async () => (await celReady(name)) === "true", 20_000, `${name} ready`);
  }, 150_000);
  afterAll(async () => {
    if (replica) await replica.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("registers upstream's vpol and mpol webhooks with the policies' resource rules", async () => {
    const get = async (kind: string, name: string) =>
      (await read(client, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind,
        name,
      })) as unknown as WebhookConfigurationJson;
    const validating = await get("ValidatingWebhookConfiguration", "kyverno-resource-validating-webhook-cfg");
    const mutating = await get("MutatingWebhookConfiguration", "kyverno-resource-mutating-webhook-cfg");
    const vpol = validating.webhooks.find((w) => w.name === "vpol.validate.kyverno.svc-fail");
    expect(vpol?.clientConfig.url).toBe(`https://127.0.0.1:${replica.port}/vpol/fail`);
    expect(vpol?.rules).toEqual([
      {
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["pods"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
      // Autogen: the Pod controllers too.
      {
        apiGroups: ["apps"],
        apiVersions: ["v1"],
        resources: ["daemonsets", "deployments", "replicasets", "statefulsets"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
      {
        apiGroups: ["batch"],
        apiVersions: ["v1"],
        resources: ["cronjobs", "jobs"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
    ]);
    const mpol = mutating.webhooks.find((w) => w.name === "mpol.mutate.kyverno.svc-fail");
    expect(mpol?.clientConfig.url).toBe(`https://127.0.0.1:${replica.port}/mpol/fail`);
    expect(mpol?.reinvocationPolicy).toBe("Never");
  });

  it("blocks a Pod under a ValidatingPolicy in Deny with upstream's message", async () => {
    const result = await kubectl(["apply", "-f", "-"], pod("app", "team-a"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'admission webhook "vpol.validate.kyverno.svc-fail" denied the request: Policy require-team failed: the label team is required',
    );
    expect(
      await read(client, { apiVersion: "v1", kind: "Pod", namespace: "team-a", name: "app" }),
    ).toBeUndefined();
  });

  it("blocks a Deployment through autogen", async () => {
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
`;
    const result = await kubectl(["apply", "-f", "-"], deployment);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Policy require-team failed: the label team is required");
  });

  it("lets a CEL PolicyException exempt the Pods it matches", async () => {
    const result = await kubectl(["apply", "-f", "-"], pod("debug-shell", "team-a"));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("admits under Audit and Warn with the warning, and hands the result over in an ephemeral report", async () => {
    const result = await kubectl(["apply", "-f", "-"], pod("unowned", "team-b"));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("Warning: Policy audit-owner failed: pod unowned has no owner label");
    const reports = async () => {
      const listed = await client.list<KubeObject>({
        apiVersion: "reports.kyverno.io/v1",
        kind: "EphemeralReport",
        namespace: "team-b",
      });
      if (!listed.ok) throw new Error(listed.message);
      return listed.value.items.flatMap(
        (r) => (r.spec as { results: Array<Record<string, unknown>> }).results,
      );
    };
    await until(async () => (await reports()).length > 0, 10_000, "the ephemeral report");
    expect(await reports()).toEqual([
      expect.objectContaining({
        source: "KyvernoValidatingPolicy",
        policy: "audit-owner",
        rule: "",
        result: "fail",
        message: "pod unowned has no owner label",
      }),
    ]);
  });

  it("stores the change a MutatingPolicy makes", async () => {
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
  });

  it("rejects a ValidatingPolicy whose expression does not compile, naming the field and position", async () => {
    const invalid = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "object.metadata.name == "
`;
    const result = await kubectl(["apply", "-f", "-"], invalid);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('admission webhook "validate-policy.kyverno.svc" denied the request');
    expect(result.stderr).toContain("ValidatingPolicy/broken");
    expect(result.stderr).toContain("spec.validations[0].expression");
    // The position in the expression, once (not again for each autogen variant).
    expect(result.stderr).toContain("syntax error: 1:22");
    expect(result.stderr).not.toContain("object.spec.template");
    expect(
      await read(client, { apiVersion: "policies.kyverno.io/v1", kind: "ValidatingPolicy", name: "broken" }),
    ).toBeUndefined();
  });

  it("answers an ImageValidatingPolicy with an error that blocks under failurePolicy Fail, never a pass", async () => {
    const ivpol = `apiVersion: policies.kyverno.io/v1
kind: ImageValidatingPolicy
metadata: {name: verify-images}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: team-d}}
  matchImageReferences:
  - glob: "*"
  attestors:
  - name: notary
    notary:
      certs:
        value: "-----BEGIN CERTIFICATE-----"
  validations:
  - expression: "images.containers.map(image, verifyImageSignatures(image, [attestors.notary])).all(e, e > 0)"
    message: failed to verify image
`;
    const applied = await kubectl(["apply", "-f", "-"], ivpol);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain("image verification is not implemented");
    await until(
      async () =>
        (
          await kubectl([
            "get",
            "imagevalidatingpolicy/verify-images",
            "-o",
            "jsonpath={.status.conditionStatus.message}",
          ])
        ).stdout !== "",
      20_000,
      "the ImageValidatingPolicy status",
    );
    const status = await kubectl([
      "get",
      "imagevalidatingpolicy/verify-images",
      "-o",
      "jsonpath={.status.conditionStatus}",
    ]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      ready: false,
      message: expect.stringContaining("not supported"),
    });
    await until(
      async () => {
        const result = await kubectl(["apply", "--dry-run=server", "-f", "-"], pod("signed", "team-d"));
        return result.code === 1;
      },
      20_000,
      "the ivpol webhook",
    );
    const result = await kubectl(["apply", "-f", "-"], pod("signed", "team-d"));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('admission webhook "ivpol.validate.kyverno.svc-fail" denied the request');
    expect(result.stderr).toContain("Policy verify-images error:");
  }, 60_000);
});
