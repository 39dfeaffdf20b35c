import { describe, expect, it } from "vitest";
import { isReporterError } from "../errors.js";
import { normalized, pod, report, result } from "../testing/fixtures.js";
import { createMetrics, METRIC_NAMES, type ReporterMetrics } from "./metrics.js";

async function series(metrics: ReporterMetrics, name: string) {
  const all = await metrics.registry.getMetricsAsJSON();
  const metric = all.find((m) => m.name === name);
  return (metric?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
}

const web = (statuses: string[]) =>
  normalized(
    report({
      name: "pol-web",
      namespace: "team-a",
      scope: pod("web", "team-a"),
      results: statuses.map((s, i) =>
        result({ rule: `r${i}`, result: s, severity: "high", category: "Security" }),
      ),
    }),
  );
const cluster = normalized(
  report({
    name: "cpol",
    results: [result({ policy: "ns-labels", result: "fail", resources: [{ kind: "Namespace", name: "a" }] })],
  }),
);

describe("metrics", () => {
  it("exposes one series per result with upstream's labels in detailed mode", async () => {
    const m = createMetrics();
    m.upsertReport(web(["fail", "pass"]));
    m.upsertReport(cluster);
    expect(await series(m, METRIC_NAMES.result)).toEqual([
      {
        labels: {
          namespace: "team-a",
          rule: "r0",
          policy: "require-labels",
          report: "pol-web",
          kind: "Pod",
          name: "web",
          status: "fail",
          severity: "high",
          category: "Security",
          source: "kyverno",
        },
        value: 1,
      },
      expect.objectContaining({ labels: expect.objectContaining({ rule: "r1", status: "pass" }), value: 1 }),
    ]);
    expect(await series(m, METRIC_NAMES.clusterResult)).toEqual([
      {
        labels: {
          rule: "check",
          policy: "ns-labels",
          report: "cpol",
          kind: "Namespace",
          name: "a",
          status: "fail",
          severity: "",
          category: "Other",
          source: "kyverno",
        },
        value: 1,
      },
    ]);
    const text = await m.expose();
    expect(text).toContain("# TYPE policy_report_result gauge");
  });

  it("aggregates in simple mode and keeps only the custom labels in custom mode", async () => {
    const simple = createMetrics({ mode: "simple" });
    simple.upsertReport(web(["fail", "fail", "pass"]));
    expect(await series(simple, METRIC_NAMES.result)).toEqual([
      {
        labels: {
          namespace: "team-a",
          policy: "require-labels",
          status: "fail",
          severity: "high",
          category: "Security",
          source: "kyverno",
        },
        value: 2,
      },
      expect.objectContaining({ labels: expect.objectContaining({ status: "pass" }), value: 1 }),
    ]);
    const custom = createMetrics({ mode: "custom", customLabels: ["status", "namespace"] });
    custom.upsertReport(web(["fail", "fail", "pass"]));
    custom.upsertReport(cluster);
    expect(await series(custom, METRIC_NAMES.result)).toEqual([
      { labels: { namespace: "team-a", status: "fail" }, value: 2 },
      { labels: { namespace: "team-a", status: "pass" }, value: 1 },
    ]);
    expect(await series(custom, METRIC_NAMES.clusterResult)).toEqual([
      { labels: { status: "fail" }, value: 1 },
    ]);
  });

  it("refuses unknown custom labels naming the key", () => {
    let error: unknown;
    try {
      createMetrics({ mode: "custom", customLabels: ["status", "colour"] });
    } catch (e) {
      error = e;
    }
    expect(isReporterError(error, "CONFIG_INVALID")).toBe(true);
    expect(String(error)).toContain("metrics.customLabels");
    expect(() => createMetrics({ mode: "custom" })).toThrow(/customLabels/);
  });

  it("filters results by metrics.filter", async () => {
    const m = createMetrics({
      filter: { status: { exclude: ["pass", "skip"] }, namespaces: { include: ["team-*"] } },
    });
    m.upsertReport(web(["fail", "pass", "skip", "warn"]));
    m.upsertReport(
      normalized(report({ name: "other", namespace: "kube-system", results: [result({ result: "fail" })] })),
    );
    expect(
      (await series(m, METRIC_NAMES.result)).map((s) => `${s.labels.namespace}/${s.labels.status}`),
    ).toEqual(["team-a/fail", "team-a/warn"]);
  });

  it("removes the series of results that disappear on update and of deleted reports", async () => {
    const m = createMetrics({ mode: "simple" });
    const first = web(["fail", "fail", "pass"]);
    m.upsertReport(first);
    m.upsertReport(
      normalized(
        report({
          name: "pol-db",
          namespace: "team-a",
          results: [result({ result: "fail", severity: "high", category: "Security" })],
        }),
      ),
    );
    expect((await series(m, METRIC_NAMES.result)).map((s) => `${s.labels.status}=${s.value}`)).toEqual([
      "fail=3",
      "pass=1",
    ]);
    m.upsertReport(web(["pass"]));
    expect((await series(m, METRIC_NAMES.result)).map((s) => `${s.labels.status}=${s.value}`)).toEqual([
      "fail=1",
      "pass=1",
    ]);
    m.deleteReport(first.id);
    expect((await series(m, METRIC_NAMES.result)).map((s) => `${s.labels.status}=${s.value}`)).toEqual([
      "fail=1",
    ]);
    m.deleteReport("unknown");
  });

  it("counts equal results once per label set and drops a report's series on update and delete in detailed mode", async () => {
    const m = createMetrics();
    const labels = (s: { labels: Record<string, unknown>; value: number }) =>
      `${s.labels.report}/${s.labels.rule}/${s.labels.status}=${s.value}`;
    // Two results with the same labels (same rule and status) are one series of value 2.
    m.upsertReport(
      normalized(
        report({
          name: "pol-web",
          namespace: "team-a",
          scope: pod("web", "team-a"),
          results: [
            result({ rule: "r0", message: "first" }),
            result({ rule: "r0", message: "second" }),
            result({ rule: "r1", result: "fail" }),
          ],
        }),
      ),
    );
    m.upsertReport(
      normalized(
        report({
          name: "pol-db",
          namespace: "team-a",
          scope: pod("db", "team-a"),
          results: [result({ rule: "r0" })],
        }),
      ),
    );
    m.upsertReport(cluster);
    expect((await series(m, METRIC_NAMES.result)).map(labels)).toEqual([
      "pol-web/r0/pass=2",
      "pol-web/r1/fail=1",
      "pol-db/r0/pass=1",
    ]);
    m.upsertReport(web(["warn"]));
    expect((await series(m, METRIC_NAMES.result)).map(labels)).toEqual([
      "pol-web/r0/warn=1",
      "pol-db/r0/pass=1",
    ]);
    m.deleteReport(web([]).id);
    m.deleteReport(cluster.id);
    expect((await series(m, METRIC_NAMES.result)).map(labels)).toEqual(["pol-db/r0/pass=1"]);
    expect(await series(m, METRIC_NAMES.clusterResult)).toEqual([]);
    // A report whose results are all filtered out has no series.
    const filtered = createMetrics({ filter: { status: { exclude: ["pass"] } } });
    filtered.upsertReport(web(["pass"]));
    expect(await series(filtered, METRIC_NAMES.result)).toEqual([]);
  });

  it("counts report issues and store errors by code", async () => {
    const m = createMetrics();
    m.countIssue("RESULT_UNKNOWN_STATUS");
    m.countIssue("RESULT_UNKNOWN_STATUS");
    m.countStoreError("STORE_DISK_FULL");
    expect(await series(m, METRIC_NAMES.issues)).toEqual([
      { labels: { code: "RESULT_UNKNOWN_STATUS" }, value: 2 },
    ]);
    expect(await series(m, METRIC_NAMES.storeErrors)).toEqual([
      { labels: { code: "STORE_DISK_FULL" }, value: 1 },
    ]);
  });
});
