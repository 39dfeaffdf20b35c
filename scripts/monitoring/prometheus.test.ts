/**
 * End to end with a real Prometheus: the sandbox API server, `kyverno-ts admission`, `kyverno-ts
 * reports` and `kyverno-ts reporter` as the local processes a user starts (the built CLI), two policies
 * and some admission traffic, and Prometheus (Debian's package) scraping the three on loopback with
 * the chart's alert rules loaded. Each binary's `/metrics` has exactly the documented families, types
 * and label names; every metric a dashboard panel or an alert names returns data from Prometheus; and
 * Prometheus evaluates every rule without error.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type KubeObject, parseDocuments } from "@kyverno-ts/api";
import { createKubeClient, type KubeClient } from "@kyverno-ts/kube";
import { type Sandbox, startSandbox } from "@kyverno-ts/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { REPORTER_METRIC_FAMILIES } from "../../packages/reporter/src/metrics/catalog.ts";
import { familiesOf } from "../../packages/server/src/metrics/catalog.ts";
import { KYVERNO_CRDS, policyReady, until } from "../../packages/server/src/testing/cluster.ts";
import { render } from "../charts/kyverno-ts-helm.ts";
import { compareWithCatalog, parseExposition } from "./exposition.ts";
import { type Child, freePort, startKyvernoTs, startPrometheus } from "./processes.ts";
import { metricNames } from "./promql.ts";
import { monitoringQueries } from "./queries.ts";

/** The PolicyReport CRDs (from the shared reference folder beside the repository). */
const REPORT_CRDS = ["wgpolicyk8s.io_policyreports.yaml", "wgpolicyk8s.io_clusterpolicyreports.yaml"].map(
  (f) => fileURLToPath(new URL(`../../../shared/reference/kyverno-crds/policyreport/${f}`, import.meta.url)),
);

const installed = (tool: string) => spawnSync(tool, ["--version"], { encoding: "utf8" }).status === 0;
const hasPrometheus = installed("prometheus");
if (!hasPrometheus && process.env.CI === "true")
  throw new Error("prometheus is missing in CI: .ci/run installs it with scripts/ensure-prometheus.sh");

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: disallow-privileged
  annotations: {policies.kyverno.io/severity: high}
spec:
  validationFailureAction: Enforce
  background: true
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod], namespaces: [apps]}}]}
    validate:
      message: privileged mode is not allowed
      pattern: {spec: {containers: [{=(securityContext): {=(privileged): "false"}}]}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team-label
  annotations: {policies.kyverno.io/severity: medium}
spec:
  validationFailureAction: Audit
  background: true
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Namespace, Pod]}}]}
    validate:
      message: a team label is required
      pattern: {metadata: {labels: {team: "?*"}}}
`;

const pod = (name: string, privileged: boolean): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "apps" },
  spec: { containers: [{ name: "app", image: "nginx:1.27", securityContext: { privileged } }] },
});

async function text(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

describe.skipIf(!hasPrometheus)(
  "Prometheus scraping the controllers (skipped when prometheus is not installed: bash scripts/ensure-prometheus.sh)",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-prometheus-"));
    const children: Child[] = [];
    let sandbox: Sandbox;
    let client: KubeClient;
    const ports = { admission: 0, reports: 0, reporter: 0, prometheus: 0 };
    const query = async (promql: string): Promise<unknown[]> => {
      const url = `http://127.0.0.1:${ports.prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`;
      const body = JSON.parse(await text(url)) as { data: { result: unknown[] } };
      return body.data.result;
    };

    beforeAll(async () => {
      sandbox = await startSandbox({ crds: [...KYVERNO_CRDS, ...REPORT_CRDS] });
      client = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
      for (const name of ["kyverno", "apps"])
        await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
      const kubeconfig = sandbox.kubeconfigPath;
      const admission = startKyvernoTs("admission", [
        "admission",
        ...["--kubeconfig", kubeconfig, "--serverIP", "127.0.0.1", "--host", "127.0.0.1"],
        ...["--port", "0", "--metrics-port", "0", "--leaderElection=false", "--log-level", "warn"],
      ]);
      const reports = startKyvernoTs("reports", [
        "reports",
        ...["--kubeconfig", kubeconfig, "--metrics-port", "0", "--backgroundScanInterval", "5s"],
        ...["--log-level", "warn"],
      ]);
      // A webhook target on a closed loopback port: every notification fails (policy_reporter_notification_errors_total).
      const reporterConfig = join(dir, "reporter.yaml");
      writeFileSync(
        reporterConfig,
        stringify({
          metrics: { enabled: true },
          target: { webhook: { webhook: "http://127.0.0.1:9/hook" } },
        }),
      );
      const reporter = startKyvernoTs("reporter", [
        "reporter",
        ...["--kubeconfig", kubeconfig, "--config", reporterConfig, "--host", "127.0.0.1", "--port", "0"],
      ]);
      children.push(admission, reports, reporter);
      ports.admission = Number(
        (await admission.waitFor(/metrics: http:\/\/[^\s]*:(\d+)\/metrics/, 60_000))[1],
      );
      ports.reports = Number((await reports.waitFor(/metrics: http:\/\/[^\s]*:(\d+)\/metrics/, 60_000))[1]);
      ports.reporter = Number((await reporter.waitFor(/listening on http:\/\/[^\s]*:(\d+)/, 60_000))[1]);

      for (const doc of parseDocuments(POLICIES, "policies.yaml").documents) {
        const created = await client.create(doc.value as KubeObject);
        if (!created.ok) throw new Error(created.message);
      }
      for (const name of ["disallow-privileged", "require-team-label"])
        await policyReady(client, name, { ms: 30_000 });
      // Traffic once the webhooks are registered: denied, admitted with an audit failure, admitted clean.
      await until(
        async () => !(await client.create(pod("probe", true), { dryRun: true })).ok,
        30_000,
        "the validating webhook to deny a privileged Pod",
      );
      for (let i = 0; i < 3; i++) {
        expect((await client.create(pod(`privileged-${i}`, true))).ok).toBe(false);
        expect((await client.create(pod(`app-${i}`, false))).ok).toBe(true);
      }
      await client.create({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "team-a", labels: { team: "a" } },
      });

      const rules = render([], ["prometheusRule.enabled=true"]).find((o) => o.kind === "PrometheusRule");
      writeFileSync(join(dir, "rules.yaml"), stringify(rules?.spec));
      const target = (port: number) => [{ targets: [`127.0.0.1:${port}`] }];
      writeFileSync(
        join(dir, "prometheus.yaml"),
        stringify({
          global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
          rule_files: ["rules.yaml"],
          scrape_configs: [
            // The job names the chart's ServiceMonitors give (the metrics Services' names).
            { job_name: "kyverno-svc-metrics", static_configs: target(ports.admission) },
            { job_name: "kyverno-reports-controller-metrics", static_configs: target(ports.reports) },
            { job_name: "policy-reporter", static_configs: target(ports.reporter) },
          ],
        }),
      );
      ports.prometheus = await freePort();
      const prometheus = startPrometheus(join(dir, "prometheus.yaml"), join(dir, "data"), ports.prometheus);
      children.push(prometheus);
      await until(
        async () => {
          try {
            return (await query("up == 1")).length === 3;
          } catch {
            return false;
          }
        },
        60_000,
        "Prometheus to scrape the three binaries",
      );
    }, 240_000);

    afterAll(async () => {
      await Promise.allSettled(children.map((c) => c.stop()));
      client?.close();
      await sandbox?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it("finds in each binary's /metrics exactly the documented families, types and label names", async () => {
      const scrape = async (port: number) => parseExposition(await text(`http://127.0.0.1:${port}/metrics`));
      // The reports controller's rule results come from its background scans.
      await until(
        async () => ((await scrape(ports.reports)).get("kyverno_policy_results_total")?.samples ?? 0) > 0,
        60_000,
        "background scan results",
      );
      const server = (binary: "admission" | "reports") =>
        familiesOf(binary).map((f) => ({ name: f.name, type: f.type, labels: f.labels }));
      expect(compareWithCatalog(await scrape(ports.admission), server("admission"))).toEqual([]);
      expect(compareWithCatalog(await scrape(ports.reports), server("reports"))).toEqual([]);
      expect(
        compareWithCatalog(await scrape(ports.reporter), Object.values(REPORTER_METRIC_FAMILIES)),
      ).toEqual([]);
    }, 90_000);

    it("returns data from Prometheus for every metric a dashboard panel or an alert names", async () => {
      const names = [...new Set(monitoringQueries().flatMap((q) => metricNames(q.expr)))].sort();
      let missing: string[] = names;
      await until(
        async () => {
          const found = await Promise.all(missing.map(async (n) => ((await query(n)).length > 0 ? "" : n)));
          missing = found.filter((n) => n !== "");
          return missing.length === 0;
        },
        90_000,
        "data for every metric",
      ).catch(() => undefined);
      const reports = await client.list({ apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "PolicyReport" });
      expect(
        missing,
        `PolicyReports: ${reports.ok ? reports.value.items.length : reports.message}\n${children.map((c) => `--- ${c.name}\n${c.output().slice(-3000)}`).join("\n")}`,
      ).toEqual([]);
      // What the admission traffic recorded: denied and allowed Pod creations, and rule results.
      expect(
        await query('kyverno_admission_requests_total{request_allowed="false",resource_kind="Pod"}'),
      ).not.toEqual([]);
      expect(
        await query('kyverno_policy_results_total{rule_result="fail",policy_name="require-team-label"}'),
      ).not.toEqual([]);
    }, 120_000);

    it("evaluates every alert rule against the scraped data without error", async () => {
      const url = `http://127.0.0.1:${ports.prometheus}/api/v1/rules`;
      let rules: Array<{ name: string; health: string; lastError?: string }> = [];
      await until(
        async () => {
          const body = JSON.parse(await text(url)) as {
            data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
          };
          rules = body.data.groups.flatMap((g) => g.rules);
          return rules.length > 0 && rules.every((r) => r.health !== "unknown");
        },
        30_000,
        "the rules to be evaluated",
      );
      expect(rules.filter((r) => r.health !== "ok").map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
      expect(rules.length).toBe(10);
    }, 60_000);
  },
);
