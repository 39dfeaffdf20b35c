/**
 * CEL policies' rows in PolicyReports as upstream writes them (issue #18), end to end: the admission
 * controller (cluster mode, ephemeral reports) and the reports controller in process against the
 * sandbox, driven by kubectl. An unscored ValidatingPolicy (`policies.kyverno.io/scored: "false"`)
 * reports its failures as `warn` with `scored: false`, as upstream's report builder does for every
 * policy kind, and one labelled `reports.kyverno.io/disabled` is left out; a MutatingPolicy's admission
 * row is an unnamed rule passing with `success`.
 */
import { fileURLToPath } from "node:url";
import type { KubeObject, PolicyReportResult } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import { kubectlAvailable } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../testing/cluster.js";
import { type E2eCluster, startE2eCluster } from "../testing/e2e-cluster.js";

const hasKubectl = kubectlAvailable();
if (!hasKubectl) console.warn("skipping the CEL report rows e2e suite: kubectl is not installed");

const CRD_DIR = new URL("../../../../../shared/reference/kyverno-crds/", import.meta.url);
const CRDS = [
  "policies.kyverno.io/policies.kyverno.io_validatingpolicies.yaml",
  "policies.kyverno.io/policies.kyverno.io_mutatingpolicies.yaml",
  "policyreport/wgpolicyk8s.io_policyreports.yaml",
  "policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml",
].map((file) => fileURLToPath(new URL(file, CRD_DIR)));

const configMapsIn = (namespace: string) => `  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ${namespace}}}`;

const ownerPolicy = (name: string, annotations: string, labels = "") => `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: ${name}, annotations: {${annotations}}, labels: {${labels}}}
spec:
  validationActions: [Audit]
  evaluation: {background: {enabled: false}}
${configMapsIn("scored")}
  validations:
  - expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels"
    message: the label owner is required
`;

const POLICIES = `${ownerPolicy("unscored-owner", 'policies.kyverno.io/scored: "false"')}---
${ownerPolicy("scored-owner", "")}---
${ownerPolicy("quiet-owner", "", 'reports.kyverno.io/disabled: "true"')}---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: stamp}
spec:
${configMapsIn("mpol")}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{annotations: {'stamped': 'yes'}}}"
`;

describe.skipIf(!hasKubectl)("CEL policies' report rows, through kubectl", { timeout: 60_000 }, () => {
  let cluster: E2eCluster;
  let client: KubeClient;
  let kubectl: E2eCluster["kubectl"];

  /** The report of one resource, once `ready` holds for its results. */
  const reportOf = async (
    namespace: string,
    name: string,
    ready: (results: PolicyReportResult[]) => boolean,
  ): Promise<KubeObject & { results?: PolicyReportResult[]; summary?: Record<string, number> }> => {
    const got = await client.get<KubeObject>({ apiVersion: "v1", kind: "ConfigMap", namespace, name });
    if (!got.ok) throw new Error(got.message);
    let report: KubeObject & { results?: PolicyReportResult[]; summary?: Record<string, number> } = {};
    await until(
      async () => {
        const r = await client.get<typeof report>({
          apiVersion: "wgpolicyk8s.io/v1alpha2",
          kind: "PolicyReport",
          namespace,
          name: String(got.value.metadata?.uid ?? ""),
        });
        report = r.ok ? r.value : {};
        return ready(report.results ?? []);
      },
      20_000,
      `the report of ConfigMap ${namespace}/${name}`,
    );
    return report;
  };

  beforeAll(async () => {
    cluster = await startE2eCluster({
      crds: CRDS,
      namespaces: ["kyverno", "scored", "mpol"],
      inProcess: { admission: { publishEphemeralReports: true }, reports: true },
    });
    ({ client, kubectl } = cluster);
    const applied = await kubectl(["apply", "-f", "-"], POLICIES);
    expect(applied.stderr).toBe("");
    for (const name of [
      "validatingpolicy/unscored-owner",
      "validatingpolicy/scored-owner",
      "validatingpolicy/quiet-owner",
      "mutatingpolicy/stamp",
    ])
      await until(
        async () =>
          (await kubectl(["get", name, "-o", "jsonpath={.status.conditionStatus.ready}"])).stdout === "true",
        20_000,
        `${name} ready`,
      );
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("reports an unscored ValidatingPolicy's failure as warn, scored false; a scored one's as fail", async () => {
    const created = await kubectl(["create", "configmap", "plain", "-n", "scored", "--from-literal=a=1"]);
    expect(created.stderr).toBe("");
    const report = await reportOf("scored", "plain", (rs) => rs.length === 2);
    const byPolicy = Object.fromEntries((report.results ?? []).map((r) => [r.policy, r]));
    expect(byPolicy["unscored-owner"]).toMatchObject({
      source: "KyvernoValidatingPolicy",
      result: "warn",
      scored: false,
      message: "the label owner is required",
      properties: { process: "admission review" },
    });
    expect(byPolicy["scored-owner"]).toMatchObject({ result: "fail", scored: true });
    expect(report.summary).toMatchObject({ warn: 1, fail: 1 });
    // A policy labelled reports.kyverno.io/disabled is in no report.
    expect(Object.keys(byPolicy).sort()).toEqual(["scored-owner", "unscored-owner"]);
  });

  it("reports a MutatingPolicy's admission as upstream: no rule name, pass, success", async () => {
    const created = await kubectl(["create", "configmap", "stamped", "-n", "mpol", "--from-literal=a=1"]);
    expect(created.stderr).toBe("");
    const annotation = await kubectl([
      "get",
      "configmap",
      "stamped",
      "-n",
      "mpol",
      "-o",
      "jsonpath={.metadata.annotations.stamped}",
    ]);
    expect(annotation.stdout).toBe("yes");
    const report = await reportOf("mpol", "stamped", (rs) => rs.length > 0);
    expect(report.results).toEqual([
      expect.objectContaining({
        source: "KyvernoMutatingPolicy",
        policy: "stamp",
        result: "pass",
        message: "success",
        scored: true,
        properties: { process: "admission review" },
      }),
    ]);
    expect(report.results?.[0]?.rule ?? "").toBe("");
  });
});
