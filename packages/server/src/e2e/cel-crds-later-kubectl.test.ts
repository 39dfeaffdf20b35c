/**
 * End to end, the `policies.kyverno.io` CRDs installed after the admission controller started (the
 * kyverno-ts-crds chart installed second, or `kubectl apply` of upstream's CRDs): `kyverno-ts
 * admission` (cluster mode, its own process) starts against the sandbox without them, the CRD is
 * applied with kubectl, and a ValidatingPolicy in Deny then blocks a Pod, without a restart.
 */
import { fileURLToPath } from "node:url";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the late CEL CRDs e2e suite: kubectl is not installed");

const VPOL_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml",
    import.meta.url,
  ),
);

const POLICY = `apiVersion: policies.kyverno.io/v1
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
`;

const POD = `apiVersion: v1
kind: Pod
metadata: {name: no-team, namespace: team-a}
spec:
  containers:
  - {name: app, image: "nginx:1.27"}
`;

describe.skipIf(!hasKubectl)(
  "policies.kyverno.io CRDs installed after the admission controller started",
  () => {
    let sandbox: Sandbox;
    let client: KubeClient;
    let replica: Replica;
    let kubectl: ReturnType<typeof kubectlFor>;

    beforeAll(async () => {
      sandbox = await startSandbox({ crds: KYVERNO_CRDS });
      client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
      kubectl = kubectlFor(sandbox.kubeconfigPath);
      for (const name of ["kyverno", "team-a"])
        await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
      replica = await startReplica({
        kubeconfig: sandbox.kubeconfigPath,
        identity: "kyverno-admission-0",
        args: ["--serverIP", "127.0.0.1"],
        startTimeoutMs: 60_000,
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
    }, 120_000);
    afterAll(async () => {
      if (replica) await replica.stop();
      client?.close();
      await sandbox?.stop();
    });

    it("started without the CRDs, says it waits for them; once applied, a ValidatingPolicy in Deny blocks a Pod", async () => {
      expect(replica.output()).toMatch(/kinds not served \(CRDs not installed\)/);
      // Before the CRD, the Pod is admitted (checked with a dry run, nothing is created).
      const before = await kubectl(["create", "--dry-run=server", "-f", "-"], POD);
      expect(before.stderr).toBe("");

      const crd = await kubectl(["apply", "--server-side", "-f", VPOL_CRD]);
      expect(crd.stderr).toBe("");
      await until(
        async () => (await kubectl(["apply", "-f", "-"], POLICY)).stderr === "",
        30_000,
        "kubectl apply of the ValidatingPolicy",
      );
      await until(
        async () =>
          (
            await kubectl([
              "get",
              "validatingpolicy/require-team",
              "-o",
              "jsonpath={.status.conditionStatus.ready}",
            ])
          ).stdout === "true",
        60_000,
        "the ValidatingPolicy ready",
      );
      let denied = "";
      await until(
        async () => {
          denied = (await kubectl(["create", "--dry-run=server", "-f", "-"], POD)).stderr;
          return denied !== "";
        },
        30_000,
        "a denial of the Pod",
      );
      expect(denied).toContain("require-team");
      expect(denied).toContain("the label team is required");
      const picked = replica
        .output()
        .split("\n")
        .filter((l) => l.includes("CRD installed: watching the kind"));
      expect(picked).toHaveLength(1);
      expect(picked[0]).toMatch(/"kind": ?"ValidatingPolicy"/);
    }, 150_000);
  },
);
