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
import { createEngine } from "@kyverno-ts/engine";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { kubectlAvailable, kubectlFor } from "@kyverno-ts/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../clock.js";
import {
  type ClusterAdmission,
  startClusterAdmission,
} from "../controllers/admission/cluster/cluster-admission.js";
import { createReportsController } from "../controllers/reports/reports-controller.js";
import type { ReportsController } from "../controllers/reports/types.js";
import { KYVERNO_CRDS, until } from "../testing/cluster.js";
import { recordingLogger } from "../testing/fixtures.js";

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
  let sandbox: Sandbox;
  let client: KubeClient;
  let admission: ClusterAdmission;
  let reports: ReportsController;
  let kubectl: ReturnType<typeof kubectlFor>;

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
    sandbox = await startSandbox({
      crds: [...KYVERNO_CRDS, ...CRDS],
      resolveService: () => `https://127.0.0.1:${admission?.port ?? 1}`,
    });
    client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
    kubectl = kubectlFor(sandbox.kubeconfigPath);
    for (const name of ["kyverno", "scored", "mpol"])
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    admission = await startClusterAdmission({
      kube: { kubeconfigPath: sandbox.kubeconfigPath, qps: 0 },
      namespace: "kyverno",
      serviceName: "kyverno-svc",
      identity: "kyverno-admission-controller-0",
      leaderElection: false,
      host: "127.0.0.1",
      port: 0,
      publishEphemeralReports: true,
      clock: systemClock(),
      logger: recordingLogger(),
    });
    reports = createReportsController({
      client,
      engine: (contextLoader) => createEngine({ contextLoader }),
      leaderElection: false,
      ephemeralReports: true,
      informerDelay: () => 100,
    });
    await reports.start();
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
    await reports?.stop();
    await admission?.close();
    client?.close();
    await sandbox?.stop();
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
