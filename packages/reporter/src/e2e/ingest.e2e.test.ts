/**
 * End to end against the sandbox API server: the reporter's view (API, metrics, database) follows the
 * reports in the cluster; readiness waits for the initial sync; bad input and a full disk are counted
 * and logged without losing or blocking anything else.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReporter, startReporter } from "../app/reporter.js";
import { METRIC_NAMES } from "../metrics/metrics.js";
import { startReceiver } from "../targets/testing/receiver.js";
import {
  eventually,
  liveResult,
  metricValues,
  policyReport,
  policyReportCrdObjects,
  startTestCluster,
  type TestCluster,
  testConfig,
} from "../testing/cluster.js";

const WG = "wgpolicyk8s.io/v1alpha2";
const OR = "openreports.io/v1alpha1";

async function getJson(reporter: RunningReporter, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${reporter.url}${path}`);
  const text = await response.text();
  return {
    status: response.status,
    body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text,
  };
}

async function reportSummaries(
  reporter: RunningReporter,
  scope: "policy-reports" | "cluster-policy-reports",
) {
  const { body } = await getJson(reporter, `/v1/${scope}`);
  return (body as { items: { name: string; namespace?: string; pass: number; fail: number; warn: number }[] })
    .items;
}

describe("reporter against the cluster", { timeout: 20_000 }, () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await startTestCluster({
      withCrds: false,
      openReports: true,
      namespaces: ["team-a", "team-b"],
    });
    dir = mkdtempSync(join(tmpdir(), "reporter-e2e-"));
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is not ready until synced, then mirrors created, changed and deleted reports in the API, metrics and database", async () => {
    // Written before the reporter starts: the store is rebuilt from the cluster.
    await cluster.apply(
      policyReport({
        apiVersion: OR,
        kind: "Report",
        name: "pre-existing",
        namespace: "team-b",
        results: [liveResult({ result: "warn" })],
      }),
    );
    const sqlitePath = join(dir, "reports.db");
    const reporter = await startReporter({
      config: testConfig(),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
      sqlitePath,
      retryDelay: () => 50,
    });
    try {
      // The PolicyReport CRDs are not installed yet: listing fails, is counted and retried; not ready.
      expect((await getJson(reporter, "/healthz")).status).toBe(200);
      expect(await getJson(reporter, "/ready")).toMatchObject({
        status: 503,
        body: { status: "unavailable" },
      });
      await eventually(
        async () => (await metricValues(reporter.metrics, METRIC_NAMES.watchErrors, "kind")).PolicyReport,
      );
      expect((await getJson(reporter, "/ready")).status).toBe(503);

      for (const crd of policyReportCrdObjects()) await cluster.apply(crd);
      await reporter.synced;
      expect((await getJson(reporter, "/ready")).status).toBe(200);
      expect(await reportSummaries(reporter, "policy-reports")).toMatchObject([
        { name: "pre-existing", namespace: "team-b", warn: 1 },
      ]);

      // Created.
      await cluster.apply(
        policyReport({
          name: "pod-web",
          namespace: "team-a",
          results: [
            liveResult({ policy: "require-labels", result: "fail" }),
            liveResult({ policy: "disallow-latest", result: "pass", severity: "medium" }),
          ],
        }),
      );
      await cluster.apply(
        policyReport({
          name: "cluster-checks",
          results: [liveResult({ policy: "ns-quota", result: "fail" })],
        }),
      );
      await eventually(
        async () => (await reportSummaries(reporter, "policy-reports")).length === 2,
        5000,
        "created report in API",
      );
      await eventually(async () => (await reportSummaries(reporter, "cluster-policy-reports")).length === 1);
      const results = await getJson(reporter, "/v1/namespaced-resources/results?namespaces=team-a");
      expect(results.body).toMatchObject({ count: 2 });
      const series = await metricValues(reporter.metrics, METRIC_NAMES.result, "policy");
      expect(series).toMatchObject({ "require-labels": 2, "disallow-latest": 1 });
      expect(await metricValues(reporter.metrics, METRIC_NAMES.clusterResult, "policy")).toEqual({
        "ns-quota": 1,
      });
      const metricsText = await (await fetch(`${reporter.url}/metrics`)).text();
      expect(metricsText).toContain(
        'policy_report_result{namespace="team-a",rule="check-team",policy="require-labels"',
      );

      // The database itself, read beside the reporter.
      const rows = (sql: string) => {
        const db = new DatabaseSync(sqlitePath, { readOnly: true });
        try {
          return db.prepare(sql).all();
        } finally {
          db.close();
        }
      };
      expect(rows("select policy, status from results where namespace = 'team-a' order by policy")).toEqual([
        { policy: "disallow-latest", status: "pass" },
        { policy: "require-labels", status: "fail" },
      ]);

      // Changed: the failure is fixed and a warning appears.
      await cluster.apply(
        policyReport({
          name: "pod-web",
          namespace: "team-a",
          results: [
            liveResult({ policy: "require-labels", result: "pass" }),
            liveResult({ policy: "disallow-latest", result: "pass", severity: "medium" }),
            liveResult({ policy: "require-probes", result: "warn", severity: "low" }),
          ],
        }),
      );
      await eventually(
        async () =>
          (await reportSummaries(reporter, "policy-reports")).find((r) => r.name === "pod-web")?.warn === 1,
        5000,
        "changed report in API",
      );
      expect(
        (await reportSummaries(reporter, "policy-reports")).find((r) => r.name === "pod-web"),
      ).toMatchObject({
        pass: 2,
        fail: 0,
        warn: 1,
      });
      const statuses = await metricValues(reporter.metrics, METRIC_NAMES.result, "status");
      expect(statuses).toEqual({ pass: 2, warn: 2 });
      await reporter.settled();
      expect(rows("select count(*) as n from results where namespace = 'team-a'")).toEqual([{ n: 3 }]);

      // Deleted.
      await cluster.remove(WG, "PolicyReport", "pod-web", "team-a");
      await cluster.remove(WG, "ClusterPolicyReport", "cluster-checks");
      await eventually(
        async () => (await reportSummaries(reporter, "policy-reports")).length === 1,
        5000,
        "deletion in API",
      );
      await eventually(async () => (await reportSummaries(reporter, "cluster-policy-reports")).length === 0);
      expect(await metricValues(reporter.metrics, METRIC_NAMES.result, "namespace")).toEqual({ "team-b": 1 });
      expect(await metricValues(reporter.metrics, METRIC_NAMES.clusterResult)).toEqual({});
      await reporter.settled();
      expect(rows("select namespace, count(*) as n from results group by namespace")).toEqual([
        { namespace: "team-b", n: 1 },
      ]);
    } finally {
      await reporter.stop();
    }
    expect((await fetch(`${reporter.url}/ready`).catch(() => undefined))?.status).toBeUndefined();
  });

  it("counts and logs malformed reports and a full disk without losing or blocking the rest", async () => {
    await cluster.remove(OR, "Report", "pre-existing", "team-b");
    const receiver = await startReceiver();
    const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
      lines.push({ level, message, fields });
    const reporter = await startReporter({
      config: testConfig({ target: { webhook: { webhook: receiver.url } } }),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
      sqlitePath: join(dir, "full.db"),
      sqliteMaxSizeBytes: 256 * 1024,
      logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
    });
    try {
      await reporter.synced;
      // Malformed input, through the schema-less OpenReports kind.
      await cluster.apply({
        apiVersion: OR,
        kind: "Report",
        metadata: { name: "malformed", namespace: "team-a" },
        results: [
          { policy: "p1", result: "maybe" },
          { result: "fail" },
          "not a result",
          liveResult({ policy: "kept", severity: "urgent", message: "x".repeat(10_000) }),
        ],
      });
      await cluster.apply({
        apiVersion: OR,
        kind: "Report",
        metadata: { name: "broken", namespace: "team-a" },
        results: "nope",
      });
      await eventually(async () =>
        (await reportSummaries(reporter, "policy-reports")).some((r) => r.name === "malformed"),
      );
      expect(await metricValues(reporter.metrics, METRIC_NAMES.issues, "code")).toMatchObject({
        RESULT_UNKNOWN_STATUS: 1,
        RESULT_MISSING_POLICY: 1,
        RESULT_INVALID: 1,
        RESULT_UNKNOWN_SEVERITY: 1,
        FIELD_TRUNCATED: 1,
        REPORT_INVALID: 1,
      });
      expect(lines.some((l) => l.level === "warn" && l.message === "report rejected")).toBe(true);
      const kept = await getJson(
        reporter,
        "/v1/namespaced-resources/results?namespaces=team-a&policies=kept",
      );
      expect(kept.body).toMatchObject({ count: 1 });
      const message = (kept.body as { items: { message: string }[] }).items[0]?.message ?? "";
      expect(message.length).toBeLessThanOrEqual(4096);
      await receiver.waitFor(1); // the kept failure was notified
      receiver.requests.length = 0;

      // A report too big for the database: the write fails as on a full disk, is counted and retried.
      const big = Array.from({ length: 400 }, (_, i) =>
        liveResult({ policy: `policy-${i}`, message: `violation ${i} ${"m".repeat(600)}` }),
      );
      await cluster.apply(policyReport({ name: "huge", namespace: "team-b", results: big }));
      await eventually(
        async () => (await metricValues(reporter.metrics, METRIC_NAMES.storeErrors, "code")).STORE_DISK_FULL,
        5000,
        "a counted full disk",
      );
      expect(lines.some((l) => l.level !== "debug" && JSON.stringify(l).includes("STORE_DISK_FULL"))).toBe(
        true,
      );
      // Meanwhile: the API answers, metrics and notifications carry on.
      expect((await getJson(reporter, "/healthz")).status).toBe(200);
      expect((await metricValues(reporter.metrics, METRIC_NAMES.result, "namespace"))["team-b"]).toBe(400);
      await receiver.waitFor(400, 10_000);
      // Deleting the huge report supersedes its pending write; a report written meanwhile gets stored.
      await cluster.apply(
        policyReport({ name: "small", namespace: "team-b", results: [liveResult({ result: "pass" })] }),
      );
      await cluster.remove(WG, "PolicyReport", "huge", "team-b");
      await eventually(
        async () => (await reportSummaries(reporter, "policy-reports")).some((r) => r.name === "small"),
        10_000,
        "writes resume",
      );
    } finally {
      await reporter.stop();
      await receiver.close();
    }
  });

  it("drops reports about controlled Pods with uncontrolledOnly, asking the cluster for owners", async () => {
    await cluster.apply({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "web-rs", namespace: "team-a" },
      spec: {},
    });
    const owner = await cluster.client.get({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      namespace: "team-a",
      name: "web-rs",
    });
    if (!owner.ok) throw new Error(owner.message);
    const ownerReferences = [
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-rs",
        uid: owner.value.metadata?.uid ?? "",
        controller: true,
      },
    ];
    await cluster.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "team-a", ownerReferences },
      spec: {},
    });
    await cluster.apply({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "solo", namespace: "team-a" },
      spec: {},
    });
    await cluster.apply(policyReport({ name: "web-1", namespace: "team-a", results: [liveResult()] }));
    await cluster.apply(policyReport({ name: "solo", namespace: "team-a", results: [liveResult()] }));
    const reporter = await startReporter({
      config: testConfig({ sourceFilters: [{ selector: { sources: ["kyverno"] }, uncontrolledOnly: true }] }),
      client: cluster.client,
      port: 0,
      host: "127.0.0.1",
    });
    try {
      await reporter.synced;
      const names = (await reportSummaries(reporter, "policy-reports")).map((r) => r.name);
      expect(names).toContain("solo");
      expect(names).not.toContain("web-1");
    } finally {
      await reporter.stop();
    }
  });
});
