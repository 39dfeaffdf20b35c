/**
 * End to end, how far a CEL policy's webhook reaches: `kyverno-ts admission` (cluster mode, its own
 * process) against the sandbox API server, driven by kubectl. A ValidatingPolicy with
 * `matchConditions` and `matchConstraints` selectors gets a webhook of its own carrying them, so the
 * API server (which evaluates them) calls only for the requests the policy is about.
 */
import { fileURLToPath } from "node:url";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookConfigurationJson } from "../controllers/webhooks/webhook-configs.js";
import { read, until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

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
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: [VPOL_CRD],
      namespaces: ["kyverno", "batch"],
      objects: [
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", labels: { tier: "frontend" } } },
      ],
    });
    ({ client, kubectl } = cluster);
    await cluster.webhooks("ValidatingWebhookConfiguration", "kyverno-policy-validating-webhook-cfg");
    const applied = await kubectl(["apply", "-f", "-"], POLICY);
    expect(applied.stderr).toBe("");
  }, 180_000);
  afterAll(() => cluster?.stop(), 30_000);

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
