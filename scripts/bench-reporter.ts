// Policy Reporter benchmark (not a test): ingests 10,000 reports with 100,000 results through the
// real ingest pipeline into SQLite (a file) and PostgreSQL, then measures the dashboard's API
// queries. Each database runs in its own child process so peak RSS is per database.
// Goals (issue 7): ingest <= 30 s, dashboard queries p95 <= 50 ms.
// Usage: npm run bench:reporter [-- --reports 10000 --results 10 --iterations 40 --mariadb]
//   REPORTER_BENCH_POSTGRES_URL / REPORTER_BENCH_MYSQL_URL point at other servers.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReportStore, StoreOptions } from "../packages/reporter/dist/index.js";
import {
  createApiServer,
  createIngest,
  createMetrics,
  createStore,
  resourceId,
} from "../packages/reporter/dist/index.js";

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const REPORTS = arg("reports", 10_000);
const RESULTS = arg("results", 10);
const ITERATIONS = arg("iterations", 40);
const PG_URL = process.env.REPORTER_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MY_URL = process.env.REPORTER_BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** Deterministic PRNG so every run ingests the same data. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// 40 Kyverno policies with 1-3 rules each; severity and category come from the policy's annotations,
// as in Kyverno's policy library (a handful of categories, mostly medium severity).
const CATEGORIES: [string, string][] = [
  ["Pod Security Standards (Baseline)", "medium"],
  ["Pod Security Standards (Restricted)", "medium"],
  ["Best Practices", "medium"],
  ["Best Practices", "low"],
  ["Multi-Tenancy", "high"],
  ["Security", "high"],
  ["Other", ""],
];
const POLICIES = Array.from({ length: 40 }, (_, i) => ({
  name: `policy-${String(i).padStart(2, "0")}`,
  rules: 1 + (i % 3),
  category: CATEGORIES[i % CATEGORIES.length]?.[0] ?? "",
  severity: CATEGORIES[i % CATEGORIES.length]?.[1] ?? "",
}));
const TRIVY_SEVERITIES = ["low", "medium", "high", "critical"];

function status(r: number): string {
  if (r < 0.7) return "pass";
  if (r < 0.9) return "fail";
  if (r < 0.95) return "warn";
  if (r < 0.98) return "error";
  return "skip";
}

/** One raw report: Pod-scoped PolicyReports in 100 namespaces (1% cluster reports, 10% Trivy). */
function generate(index: number, rand: () => number) {
  const cluster = index % 100 === 99;
  const namespace = cluster ? "" : `ns-${index % 100}`;
  const trivy = index % 10 === 7;
  const name = `pod-${index}`;
  const scope = cluster
    ? { apiVersion: "v1", kind: "Namespace", name: `ns-${index}`, uid: `uid-${index}` }
    : { apiVersion: "v1", kind: index % 3 ? "Pod" : "Deployment", name, namespace, uid: `uid-${index}` };
  const results = Array.from({ length: RESULTS }, (_, j) => {
    const cve = 1000 + Math.floor(rand() * 500);
    const p = POLICIES[(index + j) % POLICIES.length] ?? { name: "p", rules: 1, category: "", severity: "" };
    const policy = trivy ? `CVE-2025-${cve}` : p.name;
    return {
      source: trivy ? "trivy" : "kyverno",
      policy,
      rule: trivy ? `lib-${j}` : `rule-${j % p.rules}`,
      result: status(rand()),
      severity: trivy ? TRIVY_SEVERITIES[cve % 4] : p.severity,
      category: trivy ? "Vulnerability" : p.category,
      message: `validation error: rule ${j} of ${policy} failed for ${name}; details ${"x".repeat(Math.floor(rand() * 80))}`,
      scored: true,
      timestamp: { seconds: 1767225600 + index, nanos: 0 },
      ...(trivy ? { properties: { installedVersion: `1.${j}`, fixedVersion: `1.${j + 1}` } } : {}),
    };
  });
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: cluster ? "ClusterPolicyReport" : "PolicyReport",
    metadata: {
      name: `${trivy ? "trivy" : "pol"}-${name}`,
      ...(namespace ? { namespace } : {}),
      labels: { "app.kubernetes.io/managed-by": trivy ? "trivy-operator" : "kyverno" },
      creationTimestamp: "2026-01-01T00:00:00Z",
    },
    scope,
    results,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function runOne(backend: string) {
  const rand = prng(42);
  const reports = Array.from({ length: REPORTS }, (_, i) => generate(i, rand));
  let options: StoreOptions;
  let dir = "";
  let schema = "";
  if (backend === "sqlite") {
    dir = mkdtempSync(join(tmpdir(), "reporter-bench-"));
    options = { type: "sqlite", path: join(dir, "reports.db") };
  } else if (backend === "postgres") {
    schema = `bench_${randomBytes(4).toString("hex")}`;
    options = { type: "postgres", connectionString: PG_URL, schema };
  } else {
    const url = new URL(MY_URL);
    schema = `bench_${randomBytes(4).toString("hex")}`;
    const { createConnection } = await import("mysql2/promise");
    const conn = await createConnection(MY_URL);
    await conn.query(`create database \`${schema}\``);
    await conn.end();
    url.pathname = `/${schema}`;
    options = { type: "mariadb", connectionString: url.toString() };
  }
  const store: ReportStore = await createStore(options);
  const metrics = createMetrics();
  const ingest = createIngest({ store, metrics });

  const started = performance.now();
  const outcomes = await Promise.all(reports.map((r) => ingest.upsert(r)));
  await ingest.flush();
  const ingestMs = performance.now() - started;
  const failed = outcomes.filter((o) => o.status !== "stored").length;

  // Churn: 1,000 reports change (new statuses), as a background scan would.
  const churnRand = prng(7);
  const changed = reports.slice(0, 1000).map((r, i) => ({ ...generate(i, churnRand), metadata: r.metadata }));
  const churnStart = performance.now();
  await Promise.all(changed.map((r) => ingest.upsert(r)));
  await ingest.flush();
  const churnMs = performance.now() - churnStart;

  const total = (await store.countBy([], {}))[0]?.count ?? 0;
  const sizeBytes = await store.size();
  const tables = await store.tableRows();
  const api = await createApiServer({ store, ready: true });
  const pod = resourceId({ apiVersion: "v1", kind: "Pod", namespace: "ns-1", name: "pod-1", uid: "uid-1" });
  const queries: Record<string, string> = {
    "sources/categories": "/v2/sources/categories",
    findings: "/v2/findings",
    "severity-findings (fail)": "/v2/severity-findings?status=fail",
    namespaces: "/v2/namespaces",
    "namespace status counts": "/v2/namespace-scoped/kyverno/status-counts",
    "cluster status counts": "/v2/cluster-scoped/kyverno/status-counts",
    policies: "/v2/policies",
    "resource-results p1": "/v2/namespace-scoped/resource-results?page=1&offset=25",
    "resource-results fail p1": "/v2/namespace-scoped/resource-results?status=fail&page=1&offset=25",
    "results fail p1": "/v2/namespace-scoped/results?status=fail&page=1&offset=25",
    "results ns p1": "/v2/namespace-scoped/results?namespaces=ns-42&page=1&offset=25",
    "results p100": "/v2/namespace-scoped/results?page=100&offset=25",
    "v1 status-counts": "/v1/namespaced-resources/status-counts",
    "resource details": `/v2/resource/${pod}`,
    "resource results": `/v2/resource/${pod}/results?page=1&offset=25`,
    "search (not dashboard)": "/v2/namespace-scoped/results?search=pod-4242&page=1&offset=25",
  };
  const latency: Record<string, { p50: number; p95: number }> = {};
  for (const [label, url] of Object.entries(queries)) {
    const samples: number[] = [];
    for (let i = 0; i < ITERATIONS + 5; i++) {
      const t = performance.now();
      const res = await api.app.inject({ method: "GET", url });
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      if (i >= 5) samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    latency[label] = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  }
  await api.close();
  await store.close();
  if (args.includes("--keep") && backend !== "sqlite") {
    console.error(`kept ${backend} database: ${dir || schema}`);
    return {
      backend,
      reports: REPORTS,
      results: total,
      failed,
      ingestMs,
      churnMs,
      peakRssMb: 0,
      sizeBytes,
      tables,
      latency,
    };
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (backend === "postgres") {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  } else if (backend === "mariadb") {
    const { createConnection } = await import("mysql2/promise");
    const conn = await createConnection(MY_URL);
    await conn.query(`drop database if exists \`${schema}\``);
    await conn.end();
  }
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  return {
    backend,
    reports: REPORTS,
    results: total,
    failed,
    ingestMs,
    churnMs,
    peakRssMb,
    sizeBytes,
    tables,
    latency,
  };
}

type Outcome = Awaited<ReturnType<typeof runOne>>;

function print(o: Outcome) {
  const worst = Math.max(...Object.values(o.latency).map((l) => l.p95));
  console.log(
    `\n== ${o.backend}: ${o.reports} reports, ${o.results} results stored (${o.failed} not stored)`,
  );
  console.log(`ingest        ${(o.ingestMs / 1000).toFixed(2)} s  (goal <= 30 s)`);
  console.log(`churn 1,000   ${(o.churnMs / 1000).toFixed(2)} s`);
  console.log(`peak RSS      ${o.peakRssMb.toFixed(0)} MiB`);
  console.log(`database      ${(o.sizeBytes / 1024 / 1024).toFixed(1)} MiB`);
  console.log(
    `rows          ${Object.entries(o.tables)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ")}`,
  );
  console.log("query                            p50 ms   p95 ms");
  for (const [label, l] of Object.entries(o.latency)) {
    console.log(`${label.padEnd(32)} ${l.p50.toFixed(2).padStart(6)}   ${l.p95.toFixed(2).padStart(6)}`);
  }
  const dashboardWorst = Math.max(
    ...Object.entries(o.latency)
      .filter(([label]) => !label.includes("not dashboard"))
      .map(([, l]) => l.p95),
  );
  console.log(
    `worst dashboard p95 ${dashboardWorst.toFixed(2)} ms (goal <= 50 ms); worst overall ${worst.toFixed(2)} ms`,
  );
}

const backendAt = args.indexOf("--backend");
if (backendAt >= 0) {
  const outcome = await runOne(args[backendAt + 1] ?? "sqlite");
  console.log(JSON.stringify(outcome));
} else {
  const backends = ["sqlite", "postgres", ...(args.includes("--mariadb") ? ["mariadb"] : [])];
  for (const backend of backends) {
    const child = spawnSync(process.execPath, [process.argv[1] ?? "", ...args, "--backend", backend], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = child.stdout.trim().split("\n").pop() ?? "";
    if (child.status !== 0 || !line.startsWith("{")) {
      console.error(`${backend} failed:\n${child.stderr}${child.stdout}`);
      process.exitCode = 1;
      continue;
    }
    print(JSON.parse(line) as Outcome);
  }
}
