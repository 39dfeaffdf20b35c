// Two reporter replicas with leader election on one PostgreSQL schema and one Redis: both serve the
// API, only the leader writes. Measured: time until both are ready and the API counts every result,
// that the database holds each report and result once, and API requests/s (dashboard queries, HTTP
// keep-alive, a separate load process) against one replica and against both.
import { randomBytes } from "node:crypto";
import { dashboardQueries } from "./data.ts";
import { type RoleProcess, range, runRoleOnce, until200 } from "./processes.ts";

/** What the main benchmark hands over. */
export interface ReplicaBenchOptions {
  kubeconfig: string;
  expected: number;
  runs: number;
  metrics: boolean;
  seconds: number;
  concurrency: number;
  postgresUrl: string;
  redis: string;
  start: (
    kubeconfig: string,
    config: object,
    extra?: readonly string[],
    env?: NodeJS.ProcessEnv,
  ) => Promise<{ proc: RoleProcess; url: string; startMs: number; started: number }>;
  stop: (proc: RoleProcess) => Promise<void>;
  stored: (url: string) => Promise<number>;
}

interface Load {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p95: number;
}

async function untilStored(url: string, expected: number, stored: (url: string) => Promise<number>) {
  for (;;) {
    if ((await stored(url).catch(() => 0)) === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs the replica benchmark and prints its figures. */
export async function benchReplicas(o: ReplicaBenchOptions): Promise<void> {
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: o.postgresUrl });
  await admin.connect();
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  await admin.query(`create schema "${schema}"`);
  const url = new URL(o.postgresUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const config = (podName: string) => ({
    database: { type: "postgres", dsn: url.toString() },
    redis: { enabled: true, address: o.redis, prefix: schema },
    leaderElection: { enabled: true, lockName: `bench-${schema.replaceAll("_", "-")}`, podName },
    metrics: { enabled: o.metrics },
    sourceFilters: [],
  });
  const env = { POD_NAMESPACE: "default" };
  const replicas: RoleProcess[] = [];
  try {
    const started = performance.now();
    const a = await o.start(o.kubeconfig, config("replica-a"), [], env);
    replicas.push(a.proc);
    const b = await o.start(o.kubeconfig, config("replica-b"), [], env);
    replicas.push(b.proc);
    const alive = () => replicas.every((r) => r.child.exitCode === null);
    await until200(`${a.url}/ready`, alive);
    await until200(`${b.url}/ready`, alive);
    await untilStored(a.url, o.expected, o.stored);
    await untilStored(b.url, o.expected, o.stored);
    const syncedMs = performance.now() - started;
    const counted = await admin.query(
      `select (select count(*) from "${schema}".results) as results, (select count(*) from "${schema}".reports) as reports`,
    );
    const row = counted.rows[0] as { results: string; reports: string };
    const leaders = replicas.map((r) => r.stderrAll().includes("started leading"));
    const rebuilt = replicas.some((r) => r.stderrAll().includes("database rebuilt by the new leader"));
    console.log(`\n== two replicas (leader election) on one PostgreSQL schema + Redis`);
    console.log(
      `both ready, API counts every result: ${(syncedMs / 1000).toFixed(1)} s; database: ${row.results} results in ${row.reports} reports (expected ${o.expected}); leader: ${leaders[0] ? "a" : leaders[1] ? "b" : "none"}; rebuilt after sync: ${rebuilt ? "yes" : "no"}`,
    );

    const { resourceId } = await import("../../packages/reporter/dist/index.js");
    const pod = resourceId({ apiVersion: "v1", kind: "Pod", namespace: "ns-1", name: "pod-1", uid: "uid-1" });
    const paths = Object.entries(dashboardQueries(pod))
      .filter(([label]) => !label.includes("not dashboard"))
      .map(([, path]) => path);
    const load = (urls: string[]) =>
      runRoleOnce<Load>("load", [
        "--urls",
        urls.join(","),
        "--paths",
        JSON.stringify(paths),
        "--concurrency",
        String(o.concurrency),
        "--seconds",
        String(o.seconds),
      ]);
    const one: Load[] = [];
    const two: Load[] = [];
    for (let r = 0; r < o.runs; r++) {
      one.push(await load([a.url]));
      two.push(await load([a.url, b.url]));
    }
    const show = (label: string, loads: Load[]) =>
      console.log(
        `${label}: ${range(
          loads.map((l) => l.rps),
          0,
        )} requests/s (p50 ${range(
          loads.map((l) => l.p50),
          1,
        )} ms, p95 ${range(
          loads.map((l) => l.p95),
          1,
        )} ms, errors ${loads.reduce((n, l) => n + l.errors, 0)})`,
      );
    console.log(
      `API throughput: ${o.concurrency} connections for ${o.seconds} s, the dashboard's queries in turn, ${o.runs} runs`,
    );
    show("one replica ", one);
    show("two replicas", two);
  } finally {
    for (const r of replicas) await o.stop(r);
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
}
