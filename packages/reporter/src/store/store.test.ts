import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isReporterError } from "../errors.js";
import { STATUSES } from "../model/types.js";
import { testBackends } from "../testing/backends.js";
import { normalized, pod, report, result } from "../testing/fixtures.js";
import { createStore } from "./connect.js";
import { MIGRATION_TABLE } from "./schema.js";
import type { Dimension, ReportStore, ResultFilter } from "./types.js";

function podReport(ns: string, name: string, statuses: string[], policy = "require-labels") {
  return normalized(
    report({
      name: `pol-${name}`,
      namespace: ns,
      scope: pod(name, ns),
      results: statuses.map((s, i) =>
        result({
          policy,
          rule: `rule-${i}`,
          result: s,
          severity: i % 2 ? "high" : "low",
          category: i ? "Security" : "",
        }),
      ),
    }),
  );
}

/** Counts computed from the raw result rows, to check the pre-aggregated tables against. */
async function expectAggregatesConsistent(store: ReportStore, filter: ResultFilter = {}) {
  const all = await store.results(filter);
  const expected = new Map<string, number>();
  for (const r of all.items) {
    const key = `${r.namespace}|${r.source}|${r.status}|${r.severity}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const counted = await store.countBy(["namespace", "source", "status", "severity"], filter);
  const actual = new Map(
    counted.map((r) => [`${r.namespace}|${r.source}|${r.status}|${r.severity}`, r.count]),
  );
  expect(actual).toEqual(expected);
  // Each pre-aggregated table (picked by the dimensions asked for) against the rows.
  const granularities: Dimension[][] = [
    ["source", "category", "policy", "severity", "status"],
    ["namespace", "source", "category", "severity", "status", "kind"],
    ["namespace", "source", "category", "policy", "rule", "severity", "status", "kind"],
  ];
  for (const dims of granularities) {
    for (const scope of [undefined, "namespaced", "cluster"] as const) {
      const fromRows = new Map<string, number>();
      for (const r of all.items) {
        if (scope && (r.namespace === "") !== (scope === "cluster")) continue;
        const values: Record<Dimension, string> = { ...r, kind: r.resource?.kind ?? "" };
        const key = dims.map((d) => values[d]).join("|");
        fromRows.set(key, (fromRows.get(key) ?? 0) + 1);
      }
      const rows = await store.countBy(dims, scope ? { ...filter, scope } : filter);
      expect(new Map(rows.map((row) => [dims.map((d) => row[d]).join("|"), row.count]))).toEqual(fromRows);
    }
  }
  // Per policy: grouped in the database from a count table, or (a filter on resources) folded from rows.
  const severities = ["info", "low", "medium", "high", "critical"];
  const policiesOf = (items: typeof all.items) => {
    const out = new Map<string, string>();
    const folded = new Map<string, { severity: number; counts: Record<string, number> }>();
    for (const r of items) {
      const key = `${r.source}|${r.category}|${r.policy}`;
      const entry = folded.get(key) ?? { severity: -1, counts: {} };
      entry.severity = Math.max(entry.severity, severities.indexOf(r.severity));
      entry.counts[r.status] = (entry.counts[r.status] ?? 0) + 1;
      folded.set(key, entry);
    }
    for (const [key, e] of folded)
      out.set(key, `${severities[e.severity] ?? "-"} ${STATUSES.map((st) => e.counts[st] ?? 0).join("/")}`);
    return out;
  };
  const policyMap = (rows: Awaited<ReturnType<ReportStore["policyCounts"]>>) =>
    new Map(
      rows.map((p) => [
        `${p.source}|${p.category}|${p.policy}`,
        `${p.severity ?? "-"} ${STATUSES.map((st) => p.results[st]).join("/")}`,
      ]),
    );
  expect(policyMap(await store.policyCounts(filter))).toEqual(policiesOf(all.items));
  const someResources = [...new Set(all.items.flatMap((r) => (r.resource ? [r.resource.id] : [])))].slice(
    0,
    2,
  );
  if (someResources.length > 0) {
    const picked = all.items.filter((r) => r.resource && someResources.includes(r.resource.name));
    expect(policyMap(await store.policyCounts({ ...filter, resources: someResources }))).toEqual(
      policiesOf(picked),
    );
  }
  const perResource = await store.resourceCounts(filter, { byCategory: true });
  const fromRows = new Map<string, number>();
  for (const r of all.items) {
    if (!r.resource) continue;
    const key = `${r.resource.id}|${r.source}|${r.category}|${r.status}`;
    fromRows.set(key, (fromRows.get(key) ?? 0) + 1);
  }
  const fromAgg = new Map<string, number>();
  for (const row of perResource.items) {
    for (const s of STATUSES) {
      if (row[s]) fromAgg.set(`${row.resource.id}|${row.source}|${row.category}|${s}`, row[s]);
    }
  }
  expect(fromAgg).toEqual(fromRows);
  const perSource = await store.resourceCounts(filter, { byCategory: false });
  const totals = new Map<string, number>();
  for (const [key, n] of fromRows) {
    const [id, source, , status] = key.split("|");
    totals.set(`${id}|${source}|${status}`, (totals.get(`${id}|${source}|${status}`) ?? 0) + n);
  }
  const fromTotals = new Map<string, number>();
  for (const row of perSource.items) {
    for (const s of STATUSES) if (row[s]) fromTotals.set(`${row.resource.id}|${row.source}|${s}`, row[s]);
  }
  expect(fromTotals).toEqual(totals);
  await expectResourceTotalsConsistent(store, filter);
}

/**
 * A resource page's total (from `resource_status_counts` when the filter fits it) against the
 * number of rows of the unpaginated list, for status, scope, kind, source and category filters.
 */
async function expectResourceTotalsConsistent(store: ReportStore, filter: ResultFilter = {}) {
  const variants: ResultFilter[] = [
    {},
    { status: ["fail"] },
    { status: ["warn", "skip"] },
    { scope: "namespaced", status: ["pass", "error"] },
    { scope: "cluster" },
    { kinds: ["Pod"] },
    { sources: ["kyverno"], status: ["fail"] },
    { categories: ["Security"] },
    { categories: ["Security"], status: ["pass"] },
    { categories: ["Security", ""] },
  ];
  for (const variant of variants) {
    for (const byCategory of [false, true]) {
      const f = { ...filter, ...variant };
      const all = await store.resourceCounts(f, { byCategory });
      const page = await store.resourceCounts(f, { byCategory, pagination: { page: 1, offset: 2 } });
      expect({ variant, byCategory, count: page.count }).toEqual({
        variant,
        byCategory,
        count: all.items.length,
      });
    }
  }
}

describe.each(testBackends())("store on $name", (backend) => {
  let store: ReportStore;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ store, cleanup } = await backend.open());
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it("is migrated to the current schema version", async () => {
    expect(await store.schemaVersion()).toBe(4);
  });

  it("keeps pre-aggregated counts equal to the rows through upserts, updates and deletes", async () => {
    const a = podReport("team-a", "web", ["pass", "fail", "warn"]);
    const b = podReport("team-b", "db", ["fail", "fail", "error", "skip"]);
    const cluster = normalized(
      report({
        name: "cpol-ns",
        results: [
          result({
            policy: "ns-labels",
            result: "fail",
            resources: [{ kind: "Namespace", name: "team-a", uid: "ns-a" }],
          }),
          result({
            policy: "ns-labels",
            result: "pass",
            resources: [{ kind: "Namespace", name: "team-b", uid: "ns-b" }],
          }),
        ],
      }),
    );
    const summary = await store.write([
      { type: "upsert", report: a },
      { type: "upsert", report: b },
      { type: "upsert", report: cluster },
    ]);
    expect(summary).toEqual({ upserted: 3, unchanged: 0, deleted: 0, resultsWritten: 9 });
    await expectAggregatesConsistent(store);

    // identical re-delivery is skipped
    expect((await store.write([{ type: "upsert", report: a }])).unchanged).toBe(1);

    // an update turns a failure into a pass and drops a result
    await store.write([{ type: "upsert", report: podReport("team-b", "db", ["pass", "fail"]) }]);
    await expectAggregatesConsistent(store);
    expect(await store.countBy(["status"], { namespaces: ["team-b"] })).toEqual([
      { status: "fail", count: 1 },
      { status: "pass", count: 1 },
    ]);

    await store.write([{ type: "delete", reportId: a.id }]);
    await expectAggregatesConsistent(store);
    expect(await store.values("namespace", { scope: "namespaced" })).toEqual(["team-b"]);
    expect(await store.resource(a.scope?.id ?? "")).toBeUndefined();
    expect((await store.resource(b.scope?.id ?? ""))?.name).toBe("db");
  });

  it("applies the last operation per report within a batch", async () => {
    const c = podReport("team-c", "cache", ["fail"]);
    const summary = await store.write([
      { type: "upsert", report: c },
      { type: "delete", reportId: c.id },
      { type: "upsert", report: podReport("team-c", "cache", ["pass", "pass"]) },
    ]);
    expect(summary.upserted).toBe(1);
    expect(await store.countBy(["status"], { namespaces: ["team-c"] })).toEqual([
      { status: "pass", count: 2 },
    ]);
    await store.clear();
    expect(await store.reportIds()).toEqual([]);
    expect(await store.countBy(["status"], {})).toEqual([]);
  });

  it("pages one policy's results in the dashboard's order (namespace, kind, name, policy, rule)", async () => {
    const reports = ["ns-b", "ns-a"].flatMap((ns) =>
      ["web", "api"].flatMap((name) => [
        podReport(ns, name, ["fail", "pass"], "one-policy"),
        normalized(
          report({
            name: `deploy-${name}`,
            namespace: ns,
            scope: { apiVersion: "apps/v1", kind: "Deployment", name, namespace: ns, uid: `d-${ns}-${name}` },
            results: [result({ policy: "one-policy", rule: "r" }), result({ policy: "other", rule: "r" })],
          }),
        ),
      ]),
    );
    await store.write(reports.map((r) => ({ type: "upsert" as const, report: r })));
    const page = await store.results(
      { scope: "namespaced", policies: ["one-policy"] },
      { page: 2, offset: 3, sortBy: ["namespace", "kind", "name", "policy", "rule"] },
    );
    expect(page.count).toBe(12);
    expect(page.items.map((r) => `${r.namespace}/${r.resource?.kind}/${r.resource?.name}/${r.rule}`)).toEqual(
      ["ns-a/Pod/api/rule-1", "ns-a/Pod/web/rule-0", "ns-a/Pod/web/rule-1"],
    );
    await store.clear();
  });

  it("writes large batches in chunks", async () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      podReport(`ns-${i % 7}`, `pod-${i}`, ["pass", "fail", "warn", "pass", "skip", "error", "pass", "fail"]),
    );
    await store.write(many.map((r) => ({ type: "upsert" as const, report: r })));
    const total = await store.countBy([], {});
    expect(total).toEqual([{ count: 2400 }]);
    const page = await store.results({ status: ["fail"] }, { page: 3, offset: 50 });
    expect(page.count).toBe(600);
    expect(page.items).toHaveLength(50);
    await expectAggregatesConsistent(store, { namespaces: ["ns-3"] });
    await store.clear();
  });
});

describe("store lifecycle", () => {
  it("reopens a migrated file without migrating again, keeping the data", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reporter-reopen-"));
    try {
      const path = join(dir, "r.db");
      const first = await createStore({ type: "sqlite", path });
      const r = podReport("a", "web", ["fail"]);
      await first.write([{ type: "upsert", report: r }]);
      await first.close();
      const second = await createStore({ type: "sqlite", path });
      expect(await second.schemaVersion()).toBe(4);
      expect(await second.reportIds()).toEqual([r.id]);
      expect(await second.size()).toBeGreaterThan(0);
      await second.optimize();
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("upgrades a version-1 file: a policy's results indexed in list order, and its resources by status", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reporter-upgrade-"));
    try {
      const path = join(dir, "r.db");
      await (await createStore({ type: "sqlite", path })).close();
      const raw = new DatabaseSync(path);
      raw.exec(`DROP INDEX results_policy_list; DROP INDEX results_policy_resources;
        CREATE INDEX results_policy ON results (policy); DROP TABLE resource_status_counts;
        DELETE FROM ${MIGRATION_TABLE} WHERE name IN ('0002_results_policy_list', '0003_results_policy_resources',
          '0004_resource_status_counts');`);
      raw.close();
      const store = await createStore({ type: "sqlite", path });
      expect(await store.schemaVersion()).toBe(4);
      await store.close();
      const check = new DatabaseSync(path);
      const indexes = check
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'results'")
        .all()
        .map((row) => String(row.name));
      check.close();
      expect(indexes).toContain("results_policy_list");
      expect(indexes).toContain("results_policy_resources");
      expect(indexes).not.toContain("results_policy");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("upgrades a version-3 file with data: the resource totals are filled from the per-resource tables", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reporter-upgrade-masks-"));
    try {
      const path = join(dir, "r.db");
      const first = await createStore({ type: "sqlite", path });
      await first.write([
        { type: "upsert", report: podReport("a", "web", ["fail", "pass", "warn"]) },
        { type: "upsert", report: podReport("b", "db", ["pass", "pass"]) },
        { type: "upsert", report: podReport("b", "api", ["skip", "error", "fail"]) },
      ]);
      await first.close();
      const raw = new DatabaseSync(path);
      raw.exec(`DROP TABLE resource_status_counts;
        DELETE FROM ${MIGRATION_TABLE} WHERE name = '0004_resource_status_counts';`);
      raw.close();
      const store = await createStore({ type: "sqlite", path });
      expect(await store.schemaVersion()).toBe(4);
      expect((await store.tableRows()).resource_status_counts).toBeGreaterThan(0);
      const page = await store.resourceCounts(
        { status: ["fail"] },
        { byCategory: false, pagination: { page: 1, offset: 1 } },
      );
      expect(page.count).toBe(2);
      await expectResourceTotalsConsistent(store);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unusable location with STORE_CONFIG_INVALID", async () => {
    const error = await createStore({ type: "sqlite", path: "/nonexistent/dir/r.db" }).catch((e) => e);
    expect(isReporterError(error, "STORE_CONFIG_INVALID")).toBe(true);
  });
});

describe("store failures", () => {
  it("surfaces a full SQLite disk as STORE_DISK_FULL and keeps earlier data", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reporter-full-"));
    try {
      const store = await createStore({ type: "sqlite", path: join(dir, "r.db"), maxSizeBytes: 256 * 1024 });
      const first = podReport("full", "first", ["fail"]);
      await store.write([{ type: "upsert", report: first }]);
      const big = Array.from({ length: 200 }, (_, i) =>
        podReport(
          "full",
          `pod-${i}`,
          Array.from({ length: 20 }, () => "fail"),
        ),
      );
      const error = await store
        .write(big.map((r) => ({ type: "upsert" as const, report: r })))
        .catch((e) => e);
      expect(isReporterError(error, "STORE_DISK_FULL")).toBe(true);
      expect(await store.reportIds()).toEqual([first.id]);
      await expectAggregatesConsistent(store);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
