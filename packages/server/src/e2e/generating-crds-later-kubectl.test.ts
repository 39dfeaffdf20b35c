/**
 * End to end: `kyverno-ts admission` and `kyverno-ts background` started against the sandbox without
 * the GeneratingPolicy CRDs (the kyverno-ts-crds chart installed after kyverno-ts). Once the CRDs are
 * applied with kubectl, a GeneratingPolicy generates for a new Namespace, without a restart of either.
 */
import { fileURLToPath } from "node:url";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BackgroundProcess, startBackground } from "../testing/background.js";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the late GeneratingPolicy CRDs e2e: kubectl is not installed");

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/", import.meta.url);
const UR_CRD = fileURLToPath(new URL("kyverno/kyverno.io_updaterequests.yaml", CRD_DIR));
const GENERATING_CRDS = [
  "policies.kyverno.io/policies.kyverno.io_generatingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_namespacedgeneratingpolicies.yaml",
].map((file) => fileURLToPath(new URL(file, CRD_DIR)));

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: GeneratingPolicy
metadata: {name: late-defaults}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}
  matchConditions:
  - name: late
    expression: "object.metadata.name.startsWith('late-')"
  generate:
  - expression: >-
      generator.Apply(object.metadata.name, [{"apiVersion": dyn("v1"), "kind": dyn("ConfigMap"),
        "metadata": dyn({"name": "defaults"}), "data": dyn({"generated": "yes"})}])
`;

describe.skipIf(!hasKubectl)("GeneratingPolicy CRDs installed after the controllers started", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let background: BackgroundProcess;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, UR_CRD] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
    replica = await startReplica({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-admission-0",
      args: ["--serverIP", "127.0.0.1"],
      startTimeoutMs: 120_000,
    });
    background = await startBackground({
      kubeconfig: sandbox.kubeconfigPath,
      identity: "kyverno-background-0",
      leaderTimings: { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 },
    });
  }, 240_000);
  afterAll(async () => {
    await background?.stop();
    await replica?.stop();
    client?.close();
    await sandbox?.stop();
  }, 30_000);

  it("once the CRDs are applied, a GeneratingPolicy generates for a new Namespace", async () => {
    const logs = () => `\n--- background ---\n${background.output().slice(-3000)}`;
    const crds = await kubectl(["apply", "--server-side", ...GENERATING_CRDS.flatMap((f) => ["-f", f])]);
    expect(crds.stderr).toBe("");
    await until(
      async () => (await kubectl(["apply", "-f", "-"], POLICY)).stderr === "",
      30_000,
      "the policy applied",
    );
    await until(
      async () =>
        (
          await kubectl([
            "get",
            "generatingpolicy/late-defaults",
            "-o",
            "jsonpath={.status.conditionStatus.ready}",
          ])
        ).stdout === "true",
      30_000,
      "the policy Ready",
    );
    // The admission controller registers the gpol webhook for Namespaces once it has the policy.
    await until(
      async () => {
        const cfg = await read(client, {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          name: "kyverno-resource-validating-webhook-cfg",
        });
        const hooks = JSON.stringify(cfg?.webhooks ?? []);
        return hooks.includes("gpol.validate.kyverno.svc") && hooks.includes("namespaces");
      },
      30_000,
      "the gpol webhook",
    );
    expect((await kubectl(["create", "namespace", "late-team"])).stderr).toBe("");
    try {
      await until(
        async () =>
          (await read(client, {
            apiVersion: "v1",
            kind: "ConfigMap",
            namespace: "late-team",
            name: "defaults",
          })) !== undefined,
        60_000,
        "the generated ConfigMap",
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}${logs()}`);
    }
    expect(background.output()).toContain("GeneratingPolicy");
  }, 180_000);
});
