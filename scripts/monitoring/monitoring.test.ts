/**
 * The monitoring assets: every metric a dashboard panel or an alert names is one the binaries emit;
 * the generated files are up to date; the charts render the PrometheusRule, the dashboards, the
 * ServiceMonitors and the kyverno-metrics ConfigMap from their values; and the rendered rules pass
 * `promtool check rules` and `promtool test rules` (alerts.promtool.yaml: each alert fires and stays
 * silent).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { parseMetricsConfig } from "../../packages/server/src/metrics/config.ts";
import { render as renderChart } from "../charts/helm-render.ts";
import { find, type Obj, render } from "../charts/kyverno-ts-helm.ts";
import { ALERT_GROUPS } from "./alerts.ts";
import { GENERATED, outdatedFiles, REPO_ROOT } from "./generate.ts";
import { monitoringQueries, unknownMetrics } from "./queries.ts";

describe("dashboards and alerts", { timeout: 60_000 }, () => {
  it("name only metrics the binaries emit", () => {
    const queries = monitoringQueries();
    expect(queries.length).toBeGreaterThan(40);
    expect(unknownMetrics(queries)).toEqual([]);
  });

  it("would be caught naming a metric nobody emits, or a histogram suffix of a counter", () => {
    expect(
      unknownMetrics([
        { where: "a", expr: 'sum by (le) (rate(kyverno_admission_reviews_seconds_bucket{x="y"}[5m]))' },
        { where: "b", expr: "rate(kyverno_policy_results_total_count[5m])" },
        { where: "c", expr: "histogram_quantile(0.9, kyverno_policy_execution_duration_seconds_bucket) > 1" },
      ]),
    ).toEqual(["a: kyverno_admission_reviews_seconds_bucket", "b: kyverno_policy_results_total_count"]);
  });

  it("are generated: the chart files and the docs table match their sources", () => {
    expect(outdatedFiles()).toEqual([]);
  });
});

const ruleOf = (objects: Obj[]): { groups: Array<{ name: string; rules: Array<{ alert: string }> }> } => {
  const rule = objects.find((o) => o.kind === "PrometheusRule");
  if (rule === undefined) throw new Error("no PrometheusRule rendered");
  return rule.spec as { groups: Array<{ name: string; rules: Array<{ alert: string }> }> };
};

// Each test renders the chart with Helm a few times: seconds on a loaded machine.
describe("kyverno-ts chart", { timeout: 60_000 }, () => {
  it("renders no PrometheusRule unless enabled, then the alerts, less the disabled ones, plus spec", () => {
    expect(render().some((o) => o.kind === "PrometheusRule")).toBe(false);
    const all = ruleOf(render([], ["prometheusRule.enabled=true"]));
    expect(all.groups.flatMap((g) => g.rules.map((r) => r.alert))).toEqual(
      ALERT_GROUPS.flatMap((g) => g.rules.map((r) => r.alert)),
    );
    const trimmed = ruleOf(
      render(
        [],
        [
          "prometheusRule.enabled=true",
          "prometheusRule.defaultRules.disabledAlerts[0]=KyvernoPolicyNotReady",
          "prometheusRule.spec[0].name=mine",
          "prometheusRule.spec[0].rules[0].alert=Mine",
          "prometheusRule.spec[0].rules[0].expr=vector(1)",
        ],
      ),
    );
    expect(trimmed.groups.map((g) => g.name)).toEqual([
      "kyverno-ts.admission",
      "kyverno-ts.reports",
      "kyverno-ts.policy-reporter",
      "mine",
    ]);
  });

  it("puts the dashboard in a ConfigMap Grafana's sidecar finds, and a GrafanaDashboard on request", () => {
    const objects = render([], ["grafana.enabled=true", "grafana.grafanaDashboard.create=true"]);
    const cm = find(objects, "ConfigMap", "kyverno-grafana") as Obj & { data: Record<string, string> };
    expect((cm.metadata.labels as Record<string, string>).grafana_dashboard).toBe("1");
    expect(JSON.parse(cm.data["kyverno-ts.json"] ?? "")).toEqual(
      JSON.parse(readFileSync(join(REPO_ROOT, GENERATED.kyvernoDashboard), "utf8")),
    );
    expect(find(objects, "GrafanaDashboard", "kyverno-grafana")?.spec).toMatchObject({
      configMapRef: { name: "kyverno-grafana", key: "kyverno-ts.json" },
    });
    expect(render().some((o) => o.kind === "ConfigMap" && o.metadata.name === "kyverno-grafana")).toBe(false);
  });

  it("writes the kyverno-metrics ConfigMap the controllers read, as upstream's chart does", () => {
    const values = join(mkdtempSync(join(tmpdir(), "kyverno-ts-values-")), "values.yaml");
    writeFileSync(
      values,
      "metricsConfig:\n  namespaces:\n    exclude: [kube-system]\n  bucketBoundaries: [0.1, 1, 10]\n",
    );
    const objects = render([values]);
    const cm = find(objects, "ConfigMap", "kyverno-metrics") as Obj & { data: Record<string, string> };
    const parsed = parseMetricsConfig(cm.data, "rendered");
    expect(parsed.problems).toEqual([]);
    expect(parsed.config.namespaces.exclude).toEqual(["kube-system"]);
    expect(parsed.config.bucketBoundaries).toEqual([0.1, 1, 10]);
    expect(parsed.config.metricsExposure.kyverno_admission_requests_total?.disabledLabelDimensions).toEqual([
      "resource_namespace",
    ]);
    for (const name of ["kyverno-admission-controller", "kyverno-reports-controller"]) {
      const deployment = find(objects, "Deployment", name) as Obj & {
        spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
      };
      expect(deployment.spec.template.spec.containers[0]?.args).toContain(
        "--metricsConfigMap=kyverno-metrics",
      );
    }
  });

  it("scrapes each controller with the ServiceMonitor values, TLS included", () => {
    const objects = render(
      [],
      [
        "admissionController.serviceMonitor.enabled=true",
        "admissionController.serviceMonitor.interval=15s",
        "admissionController.serviceMonitor.secure=true",
        "admissionController.serviceMonitor.tlsConfig.insecureSkipVerify=true",
        "reportsController.serviceMonitor.enabled=true",
        "reportsController.serviceMonitor.relabelings[0].action=labeldrop",
        "reportsController.serviceMonitor.relabelings[0].regex=pod",
      ],
    );
    const endpoint = (name: string) =>
      (find(objects, "ServiceMonitor", name)?.spec as { endpoints: unknown[] } | undefined)?.endpoints[0];
    expect(endpoint("kyverno-admission-controller")).toMatchObject({
      port: "metrics",
      scheme: "https",
      interval: "15s",
      tlsConfig: { insecureSkipVerify: true },
    });
    expect(endpoint("kyverno-reports-controller")).toMatchObject({
      scheme: "http",
      relabelings: [{ action: "labeldrop", regex: "pod" }],
    });
  });
});

describe("policy-reporter chart", { timeout: 60_000 }, () => {
  it("scrapes Policy Reporter with the ServiceMonitor values, TLS included", () => {
    const objects = renderChart("charts/policy-reporter", {
      set: {
        "monitoring.enabled": "true",
        "monitoring.serviceMonitor.interval": "20s",
        "monitoring.serviceMonitor.scrapeTimeout": "10s",
        "monitoring.serviceMonitor.secure": "true",
        "monitoring.serviceMonitor.tlsConfig.insecureSkipVerify": "true",
        "monitoring.serviceMonitor.relabelings[0].action": "labeldrop",
        "monitoring.serviceMonitor.relabelings[0].regex": "pod",
      },
    });
    const monitor = objects.find((o) => o.kind === "ServiceMonitor") as
      | (Obj & { spec: { endpoints: unknown[] } })
      | undefined;
    expect(monitor?.spec.endpoints[0]).toMatchObject({
      port: "metrics",
      path: "/metrics",
      interval: "20s",
      scrapeTimeout: "10s",
      scheme: "https",
      tlsConfig: { insecureSkipVerify: true },
      relabelings: [{ action: "labeldrop", regex: "pod" }],
    });
  });

  it("ships its dashboard with monitoring, filed under the sidecar's label and folder", () => {
    const objects = renderChart("charts/policy-reporter", { set: { "monitoring.enabled": "true" } });
    const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-dashboard")) as
      | (Obj & { data: Record<string, string> })
      | undefined;
    expect(cm?.metadata.labels?.grafana_dashboard).toBe("1");
    expect(JSON.parse(cm?.data["policy-reporter.json"] ?? "")).toEqual(
      JSON.parse(readFileSync(join(REPO_ROOT, GENERATED.reporterDashboard), "utf8")),
    );
    expect(
      renderChart("charts/policy-reporter").some(
        (o) => o.kind === "ConfigMap" && o.metadata.name.endsWith("-dashboard"),
      ),
    ).toBe(false);
  });
});

const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" }).status === 0;
if (!promtool && process.env.CI === "true")
  throw new Error("promtool is missing in CI: .ci/run installs it with scripts/ensure-prometheus.sh");

describe.skipIf(!promtool)(
  "promtool (skipped when promtool is not installed: bash scripts/ensure-prometheus.sh)",
  { timeout: 60_000 },
  () => {
    const dir = mkdtempSync(join(tmpdir(), "kyverno-ts-rules-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const run = (args: string[]) => spawnSync("promtool", args, { cwd: dir, encoding: "utf8" });
    const rules = ruleOf(render([], ["prometheusRule.enabled=true"]));
    writeFileSync(join(dir, "rules.yaml"), stringify(rules));
    copyFileSync(join(REPO_ROOT, "scripts/monitoring/alerts.promtool.yaml"), join(dir, "tests.yaml"));

    it("checks the rendered PrometheusRule's rules", () => {
      const out = run(["check", "rules", "rules.yaml"]);
      expect(out.stderr + out.stdout).toContain("SUCCESS");
      expect(out.status).toBe(0);
    });

    it("makes every alert fire and stay silent as alerts.promtool.yaml expects", () => {
      const out = run(["test", "rules", "tests.yaml"]);
      expect(out.stdout + out.stderr).toContain("SUCCESS");
      expect(out.status).toBe(0);
    });

    it("has a firing and a silent case for every alert", () => {
      const tests = parse(readFileSync(join(dir, "tests.yaml"), "utf8")) as {
        tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      };
      const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
      const alerts = ALERT_GROUPS.flatMap((g) => g.rules.map((r) => r.alert));
      expect(alerts.filter((a) => !cases.some((c) => c.alertname === a && c.exp_alerts.length > 0))).toEqual(
        [],
      );
      expect(
        alerts.filter((a) => !cases.some((c) => c.alertname === a && c.exp_alerts.length === 0)),
      ).toEqual([]);
    });
  },
);
