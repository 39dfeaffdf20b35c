/**
 * End to end: `kyverno-ts admission` and `kyverno-ts background` started against the sandbox without
 * the GeneratingPolicy CRDs (the kyverno-ts-crds chart installed after kyverno-ts). Once the CRDs are
 * applied with kubectl, a GeneratingPolicy generates for a new Namespace, without a restart of either.
 */
import { fileURLToPath } from "node:url";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

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
  let cluster: E2eCluster;
  let kubectl: E2eCluster["kubectl"];

  beforeAll(async () => {
    cluster = await startE2eCluster({ crds: [UR_CRD], namespaces: ["kyverno"], background: true });
    kubectl = cluster.kubectl;
  }, 240_000);
  afterAll(() => cluster?.stop(), 30_000);

  it("once the CRDs are applied, a GeneratingPolicy generates for a new Namespace", async () => {
    const logs = () => cluster.logs();
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
    await cluster.webhooks(
      "ValidatingWebhookConfiguration",
      "kyverno-resource-validating-webhook-cfg",
      ["gpol.validate.kyverno.svc", "namespaces"],
      30_000,
    );
    expect((await kubectl(["create", "namespace", "late-team"])).stderr).toBe("");
    try {
      await until(
        async () => (await cluster.get("ConfigMap", "late-team", "defaults")) !== undefined,
        60_000,
        "the generated ConfigMap",
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}${logs()}`);
    }
    expect(cluster.background?.output()).toContain("GeneratingPolicy");
  }, 180_000);
});
