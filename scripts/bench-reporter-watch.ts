// Policy Reporter through the API server's watch, as in production (not a test). Each part is its
// own process: a sandbox API server with the PolicyReport CRDs, a writer that fills it with
// --reports reports of --results results, and `kyverno-ts reporter` (runReporterCommand) against it
// on SQLite, PostgreSQL and MariaDB. Per reporter run: time until /ready (every report listed and
// stored), its peak RSS (VmHWM), and p50/p95 of the dashboard's API queries over HTTP.
// Floors in the same run: a process that only lists the same reports page by page (and one that
// caches them in the kube informer), and the sandbox's own RSS.
// --replicas: two reporters with leader election on one PostgreSQL + Redis: results stored once,
// and API requests/s (p50/p95/p99) against one replica and against both, with each run's CPU seconds
// per replica, PostgreSQL, Redis, the API server, the load generator and the whole machine.
// --replica-cpu CORES[,CORES…] (with --replicas): each replica runs in its own CPU cgroup under a CFS
// quota of CORES (0.25 = 25 ms per 100 ms period), as a Pod's CPU limit, placed right after spawn;
// several values (`none`: no quota) are measured one after the other on the same replicas, each after
// a warm-up. The output gives each replica's CPU against its quota and its throttled periods. Needs
// a writable cpu cgroup (cgroup v1 /sys/fs/cgroup/cpu as root, or cgroup v2 with the cpu controller);
// without one the run fails at once saying why, never runs unlimited. The cgroups are removed
// afterwards. Pick a quota at which one replica is at ~100% of it while the machine still has idle
// CPU (its line says so; 0.1–0.2 here), otherwise two replicas compete for the same cores.
// --backends "" skips the single-reporter runs.
// Goals (issue "ten times today's benchmark"): 100,000 results: RSS <= 300 MiB, dashboard p95 <= 50 ms;
// 1,000,000 results: ingest <= 5 min, RSS <= 500 MiB, dashboard p95 <= 100 ms.
// --before FILE: also run another build of the reporter (its dist/index.js), alternating with this one.
// --kubeconfig FILE: use that API server (already holding the reports) instead of a sandbox.
// --keep-database: leave each reporter's PostgreSQL schema / MariaDB database in place (printed), to
// EXPLAIN its queries afterwards; drop it by hand.
// Usage: npm run bench:reporter:watch [-- --reports 10000 --results 10 --runs 3 --backends sqlite,postgres,mariadb
//        --iterations 30 --metrics false --replicas --replica-cpu 0.2,none --load-seconds 10 --load-concurrency 16
//        --no-informer-floor]
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { dashboardQueries, percentile } from "./reporter-bench/data.ts";
import {
  freePort,
  type RoleProcess,
  range,
  runRoleOnce,
  startCli,
  startRole,
  until200,
} from "./reporter-bench/processes.ts";
import { memoryOf, runRole } from "./reporter-bench/roles.ts";

interface Memory {
  peakMb: number;
  rssMb: number;
}

interface ReporterRun {
  backend: string;
  startMs: number;
  syncMs: number;
  atReady: Memory;
  afterQueries: Memory;
  stored: number;
  latency: Record<string, { p50: number; p95: number }>;
}

const PG_URL = process.env.REPORTER_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MY_URL = process.env.REPORTER_BENCH_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";
const REDIS = process.env.REPORTER_BENCH_REDIS ?? "127.0.0.1:6379";

/** A fresh database for one reporter: its `database` configuration and how to drop it. */
async function freshDatabase(
  backend: string,
  keep = false,
): Promise<{ config: object; sqlite?: string; drop: () => Promise<void> }> {
  const name = `bench_${randomBytes(4).toString("hex")}`;
  if (keep && backend !== "sqlite") console.log(`keeping the ${backend} database ${name}`);
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "reporter-watch-"));
    return {
      config: { type: "sqlite" },
      sqlite: join(dir, "reports.db"),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (backend === "postgres") {
    const pg = (await import("pg")).default;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema "${name}"`);
    const url = new URL(PG_URL);
    url.searchParams.set("options", `-c search_path=${name}`);
    return {
      config: { type: "postgres", dsn: url.toString() },
      drop: async () => {
        if (!keep) await admin.query(`drop schema if exists "${name}" cascade`);
        await admin.end();
      },
    };
  }
  const { createConnection } = await import("mysql2/promise");
  const admin = await createConnection(MY_URL);
  await admin.query(`create database \`${name}\``);
  const url = new URL(MY_URL);
  url.pathname = `/${name}`;
  return {
    config: { type: "mariadb", dsn: url.toString() },
    drop: async () => {
      if (!keep) await admin.query(`drop database if exists \`${name}\``);
      await admin.end();
    },
  };
}

/** How to start a reporter process besides its kubeconfig and configuration. */
export interface StartReporterOptions {
  /** More command-line flags. */
  extra?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Another build's dist/index.js (--before) instead of the CLI. */
  entry?: string;
  /** Called with the process id right after spawn, before it serves (e.g. to put it in a cgroup). */
  spawned?: (pid: number) => void;
}

/** Starts a reporter process with `config` (JSON is YAML); resolves once /healthz answers. */
async function startReporterProcess(
  kubeconfig: string,
  config: object,
  { extra = [], env = {}, entry, spawned }: StartReporterOptions = {},
): Promise<{ proc: RoleProcess; url: string; startMs: number; started: number }> {
  const dir = mkdtempSync(join(tmpdir(), "reporter-config-"));
  const file = join(dir, "values.yaml");
  writeFileSync(file, JSON.stringify(config));
  const port = await freePort();
  const started = performance.now();
  const args = [
    "--kubeconfig",
    kubeconfig,
    "--config",
    file,
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    ...extra,
  ];
  // Another build of the reporter (--before), run as the CLI runs it; else the CLI itself.
  const proc = entry
    ? startRole("reporter", ["--entry", entry, "--", ...args], env)
    : startCli(["reporter", ...args], env);
  try {
    spawned?.(proc.pid);
  } catch (error) {
    await stopProcess(proc);
    throw error;
  }
  let alive = true;
  void proc.exited.then(() => {
    alive = false;
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await until200(`${url}/healthz`, () => alive);
  } catch (error) {
    throw new Error(`${String(error)}\n${proc.stderrTail()}`);
  }
  return { proc, url, startMs: performance.now() - started, started };
}

async function stopProcess(proc: RoleProcess): Promise<void> {
  proc.child.kill("SIGTERM");
  await proc.exited;
}

/** Results the API counts (every status of every source). */
async function storedResults(url: string): Promise<number> {
  const res = await fetch(`${url}/v2/findings`);
  const body = (await res.json()) as { counts: { counts: Record<string, number> }[] };
  let total = 0;
  for (const source of body.counts) for (const n of Object.values(source.counts)) total += n;
  return total;
}

async function latencies(url: string, iterations: number): Promise<ReporterRun["latency"]> {
  const { resourceId } = await import("../packages/reporter/dist/index.js");
  const pod = resourceId({ apiVersion: "v1", kind: "Pod", namespace: "ns-1", name: "pod-1", uid: "uid-1" });
  const out: ReporterRun["latency"] = {};
  // The floor: a route that reads no database (the HTTP round trip and the machine's load).
  const queries = { "floor: /v2/targets (not dashboard)": "/v2/targets", ...dashboardQueries(pod) };
  for (const [label, path] of Object.entries(queries)) {
    const samples: number[] = [];
    for (let i = 0; i < iterations + 5; i++) {
      const t = performance.now();
      const res = await fetch(`${url}${path}`);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
      if (i >= 5) samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    out[label] = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  }
  return out;
}

async function reporterRun(
  kubeconfig: string,
  backend: string,
  options: { metrics: boolean; iterations: number; entry?: string; keep?: boolean },
): Promise<ReporterRun> {
  const db = await freshDatabase(backend, options.keep);
  try {
    const config = { database: db.config, metrics: { enabled: options.metrics }, sourceFilters: [] };
    const { proc, url, startMs, started } = await startReporterProcess(kubeconfig, config, {
      extra: db.sqlite ? ["--sqlite", db.sqlite] : [],
      entry: options.entry,
    });
    try {
      await until200(`${url}/ready`, () => proc.child.exitCode === null);
      const syncMs = performance.now() - started - startMs;
      const atReady = memoryOf(proc.pid);
      const stored = await storedResults(url);
      const latency = await latencies(url, options.iterations);
      const afterQueries = memoryOf(proc.pid);
      return { backend, startMs, syncMs, atReady, afterQueries, stored, latency };
    } catch (error) {
      throw new Error(`${String(error)}\n${proc.stderrTail()}`);
    } finally {
      await stopProcess(proc);
    }
  } finally {
    await db.drop();
  }
}

/** The issue's goals at this size: 100,000 results (or fewer) and 1,000,000. */
interface Goals {
  p95Ms: number;
  rssMb: number;
  /** Longest initial sync (only for the large size). */
  syncS?: number;
}

function printReporterRuns(runs: ReporterRun[], goals: Goals, build = ""): void {
  const backend = `${runs[0]?.backend ?? ""}${build ? `, ${build}` : ""}`;
  const worst = (r: ReporterRun) =>
    Math.max(
      ...Object.entries(r.latency)
        .filter(([l]) => !l.includes("not dashboard"))
        .map(([, l]) => l.p95),
    );
  console.log(`\n== reporter on ${backend} (${runs.length} runs; ranges are min–max over runs)`);
  console.log(`results stored   ${range(runs.map((r) => r.stored))}`);
  console.log(
    `start to listen  ${range(
      runs.map((r) => r.startMs / 1000),
      2,
    )} s`,
  );
  console.log(
    `initial sync     ${range(
      runs.map((r) => r.syncMs / 1000),
      2,
    )} s (listen to /ready 200)${goals.syncS ? `; goal <= ${goals.syncS} s` : ""}`,
  );
  console.log(
    `peak RSS         ${range(runs.map((r) => r.atReady.peakMb))} MiB at ready, ${range(runs.map((r) => r.afterQueries.peakMb))} MiB after the queries (goal <= ${goals.rssMb} MiB)`,
  );
  console.log(`RSS after        ${range(runs.map((r) => r.afterQueries.rssMb))} MiB`);
  console.log("query                              p50 ms        p95 ms");
  for (const label of Object.keys(runs[0]?.latency ?? {})) {
    const p50 = range(
      runs.map((r) => r.latency[label]?.p50 ?? 0),
      1,
    );
    const p95 = range(
      runs.map((r) => r.latency[label]?.p95 ?? 0),
      1,
    );
    console.log(`${label.padEnd(32)} ${p50.padStart(12)}  ${p95.padStart(12)}`);
  }
  console.log(`worst dashboard p95 ${range(runs.map(worst), 1)} ms (goal <= ${goals.p95Ms} ms)`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      reports: { type: "string", default: "10000" },
      results: { type: "string", default: "10" },
      runs: { type: "string", default: "3" },
      backends: { type: "string", default: "sqlite,postgres,mariadb" },
      iterations: { type: "string", default: "30" },
      metrics: { type: "string", default: "true" },
      replicas: { type: "boolean", default: false },
      "replica-cpu": { type: "string" },
      "load-seconds": { type: "string", default: "10" },
      "load-concurrency": { type: "string", default: "16" },
      "no-informer-floor": { type: "boolean", default: false },
      writers: { type: "string", default: "1" },
      kubeconfig: { type: "string" },
      before: { type: "string" },
      "no-floors": { type: "boolean", default: false },
      "keep-database": { type: "boolean", default: false },
    },
  });
  const reports = Number(values.reports);
  const results = Number(values.results);
  const runs = Number(values.runs);
  const iterations = Number(values.iterations);
  const metrics = values.metrics !== "false";
  const expected = reports * results;
  const replicaCpu = values["replica-cpu"]
    ?.split(",")
    .map((c) => (c.trim() === "none" ? undefined : Number(c)));
  if (replicaCpu !== undefined) {
    if (!values.replicas) throw new Error("--replica-cpu applies to --replicas");
    // Fail now, not after filling the cluster, when replicas cannot be limited.
    const { createCpuLimit } = await import("./reporter-bench/cpu.ts");
    for (const cores of replicaCpu)
      createCpuLimit({ cores, name: `reporter-bench-probe-${process.pid}` }).remove();
  }
  const goals: Goals =
    expected > 200_000 ? { p95Ms: 100, rssMb: 500, syncS: 300 } : { p95Ms: 50, rssMb: 300 };
  // The machine is usually shared: its load, with the floors, says how far the timings are from a quiet run.
  const load = () =>
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${cpus().length} CPUs`;

  console.log(`reporter through the watch: ${reports} reports × ${results} results = ${expected} results`);
  console.log(load());
  const cluster = values.kubeconfig
    ? { kubeconfig: values.kubeconfig, pid: undefined, memory: undefined, close: async () => undefined }
    : await filledSandbox(reports, results, Number(values.writers));
  const { kubeconfig } = cluster;
  try {
    const listFloor: { ms: number; peakMb: number; results: number }[] = [];
    const informerFloor: { ms: number; peakMb: number }[] = [];
    for (let r = 0; r < (values["no-floors"] ? 0 : runs); r++) {
      listFloor.push(await runRoleOnce("list-floor", ["--kubeconfig", kubeconfig]));
      if (!values["no-informer-floor"])
        informerFloor.push(await runRoleOnce("informer-floor", ["--kubeconfig", kubeconfig]));
    }
    if (listFloor.length > 0)
      console.log(
        `floor: list every report (500 a page): ${range(
          listFloor.map((f) => f.ms / 1000),
          2,
        )} s, peak RSS ${range(listFloor.map((f) => f.peakMb))} MiB (${listFloor[0]?.results} results)`,
      );
    if (informerFloor.length > 0)
      console.log(
        `floor: kube informer caching every report: ${range(
          informerFloor.map((f) => f.ms / 1000),
          2,
        )} s, peak RSS ${range(informerFloor.map((f) => f.peakMb))} MiB`,
      );

    for (const backend of values.backends.split(",").filter(Boolean)) {
      const done: ReporterRun[] = [];
      const before: ReporterRun[] = [];
      for (let r = 0; r < runs; r++) {
        // With --before, runs alternate between that build and this one, so the machine's load hits both.
        if (values.before)
          before.push(await reporterRun(kubeconfig, backend, { metrics, iterations, entry: values.before }));
        done.push(
          await reporterRun(kubeconfig, backend, { metrics, iterations, keep: values["keep-database"] }),
        );
        for (const last of [before.at(-1), done.at(-1)])
          if (last && last.stored !== expected)
            console.log(`!! ${backend}: ${last.stored} results stored, expected ${expected}`);
      }
      if (before.length > 0) printReporterRuns(before, goals, `before (${values.before})`);
      printReporterRuns(done, goals);
      console.log(load());
    }
    if (values.replicas) {
      const { benchReplicas } = await import("./reporter-bench/replicas.ts");
      await benchReplicas({
        kubeconfig,
        expected,
        runs,
        metrics,
        replicaCpu,
        sandboxPid: cluster.pid,
        seconds: Number(values["load-seconds"]),
        concurrency: Number(values["load-concurrency"]),
        postgresUrl: PG_URL,
        redis: REDIS,
        start: startReporterProcess,
        stop: stopProcess,
        stored: storedResults,
      });
    }
    const sandboxEnd = await cluster.memory?.();
    if (sandboxEnd) console.log(`\nsandbox peak RSS ${sandboxEnd.peakMb.toFixed(0)} MiB`);
  } finally {
    await cluster.close();
  }
}

/** A sandbox in its own process, filled by `writers` writer processes. */
async function filledSandbox(reports: number, results: number, writers: number) {
  const sandbox = startRole("sandbox", []);
  const { kubeconfig } = await sandbox.next<{ kubeconfig: string }>();
  const memory = async () => {
    sandbox.child.stdin?.write("rss\n");
    return sandbox.next<Memory>();
  };
  const close = async () => {
    sandbox.child.stdin?.end();
    await sandbox.exited;
  };
  try {
    console.log(`sandbox started (pid ${sandbox.pid}); RSS ${(await memory()).rssMb.toFixed(0)} MiB`);
    const wrote = performance.now();
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        runRoleOnce<{ ms: number }>("writer", [
          "--kubeconfig",
          kubeconfig,
          "--from",
          String(Math.floor((reports * w) / writers)),
          "--to",
          String(Math.floor((reports * (w + 1)) / writers)),
          "--results",
          String(results),
        ]),
      ),
    );
    const after = await memory();
    console.log(
      `written in ${((performance.now() - wrote) / 1000).toFixed(1)} s; sandbox RSS ${after.rssMb.toFixed(0)} MiB (peak ${after.peakMb.toFixed(0)} MiB)`,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { kubeconfig, pid: sandbox.pid, memory, close };
}

if (process.argv.includes("--role")) {
  await runRole(process.argv.slice(2));
} else {
  await main();
}
