/**
 * End to end, how far a CEL policy's webhook reaches: `kyverno-ts admission` (cluster mode, its own
 * process) against the sandbox API server, driven by kubectl. A ValidatingPolicy with
 * `matchConditions` and `matchConstraints` selectors gets a webhook of its own carrying them, so the
 * API server (which evaluates them) calls only for the requests the policy is about.
 */
import { fileURLToPath } from "node:url";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookConfigurationJson } from "../controllers/webhooks/webhook-configs.js";
import { KYVERNO_CRDS, read, until } from "../testing/cluster.js";
import { type Replica, startReplica } from "../testing/replicas.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the CEL webhook scope e2e: kubectl is not installed");

const VPOL_CRD = fileURLToPath(
  new URL(
    "../../../../../shared/reference/kyverno-crds/policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml",
    import.meta.url,
  ),
);

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: web-needs-team}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
    namespaceSelector: {matchLabels: {tier: frontend}}
    objectSelector: {matchExpressions: [{key: skip-policy, operator: DoesNotExist}]}
  matchConditions:
  - name: web-pods
    expression: "object.metadata.name.startsWith('web')"
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: web Pods need the label team
`;

const pod = (name: string, namespace: string, labels: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }] },
  });

describe.skipIf(!hasKubectl)("a CEL policy's own webhook, with its conditions and selectors", () => {
  let sandbox: Sandbox;
  let client: KubeClient;
  let replica: Replica;
  let kubectl: ReturnType<typeof kubectlFor>;

  beforeAll(async () => {
    sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, VPOL_CRD] });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "kyverno" } });
    await client.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop", labels: { tier: "frontend" } },
    });
    await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "batch" } });
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
    const applied = await kubectl(["apply", "-f", "-"], POLICY);
    expect(applied.stderr).toBe("");
  }, 120_000);
  afterAll(async () => {
    if (replica) await replica.stop();
    client?.close();
    await sandbox?.stop();
  });

  it("registers the policy's webhook with its matchConditions and selectors, and the API server applies them", async () => {
    let hook: WebhookConfigurationJson["webhooks"][number] | undefined;
    await until(
      async () => {
        const config = (await read(client, {
          apiVersion: "admissionregistration.k8s.io/v1",
          kind: "ValidatingWebhookConfiguration",
          name: "kyverno-resource-validating-webhook-cfg",
        })) as unknown as WebhookConfigurationJson | undefined;
        hook = config?.webhooks?.find(
          (w) => w.name === "vpol.validate.kyverno.svc-fail-finegrained-web-needs-team",
        );
        return hook !== undefined;
      },
      30_000,
      "the policy's webhook",
    );
    expect(hook?.clientConfig.url).toMatch(/\/vpol\/fail\/finegrained\/web-needs-team$/);
    expect(hook?.matchConditions?.map((c) => c.name)).toEqual(["web-pods"]);
    expect(hook?.namespaceSelector.matchLabels).toEqual({ tier: "frontend" });
    expect(hook?.objectSelector).toEqual({
      matchExpressions: [{ key: "skip-policy", operator: "DoesNotExist" }],
    });

    let denied = "";
    await until(
      async () => {
        denied = (await kubectl(["create", "--dry-run=server", "-f", "-"], pod("web-1", "shop"))).stderr;
        return denied !== "";
      },
      30_000,
      "a denial of web-1",
    );
    expect(denied).toContain("web Pods need the label team");
    // Outside the conditions and selectors the policy is not called: each is admitted.
    for (const [name, namespace, labels] of [
      ["db-1", "shop", {}],
      ["web-2", "batch", {}],
      ["web-3", "shop", { "skip-policy": "yes" }],
      ["web-4", "shop", { team: "a" }],
    ] as const) {
      const created = await kubectl(["create", "--dry-run=server", "-f", "-"], pod(name, namespace, labels));
      expect(created.stderr, name).toBe("");
    }
  }, 90_000);
});
