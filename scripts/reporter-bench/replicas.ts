// Two reporter replicas with leader election on one PostgreSQL schema and one Redis: both serve the
// API, only the leader writes. Measured: time until both are ready and the API counts every result,
// that the database holds each report and result once, and API requests/s (dashboard queries, HTTP
// keep-alive, a separate load process) against one replica and against both. With `replicaCpu` each
// replica runs in its own cgroup under that CFS quota (a Pod's CPU limit), so a second replica brings
// its own CPU as in a cluster. Per load run: each replica's CPU time (and against its quota), the
// periods the kernel throttled it, and the CPU of PostgreSQL, Redis, the API server, the load
// generator and the whole machine, so the reader sees where the CPU went.
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { type CpuLimit, cpuSecondsOf, cpuSecondsOfCommand, createCpuLimit, machineCpu } from "./cpu.ts";
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
  /**
   * Each replica's CPU limits in cores (a CFS quota on its own cgroup), measured one after the other on
   * the same replicas; `undefined` in the list: no quota. Without the list, no cgroups (unlimited).
   */
  replicaCpu?: (number | undefined)[];
  /** The API server's process, for its CPU time. */
  sandboxPid?: number;
  postgresUrl: string;
  redis: string;
  start: (
    kubeconfig: string,
    config: object,
    options?: { env?: NodeJS.ProcessEnv; spawned?: (pid: number) => void },
  ) => Promise<{ proc: RoleProcess; url: string; startMs: number; started: number }>;
  stop: (proc: RoleProcess) => Promise<void>;
  stored: (url: string) => Promise<number>;
}

interface Load {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** The load generator's CPU seconds. */
  cpuS: number;
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
  const limits: CpuLimit[] = [];
  try {
    // The cgroups first: without them there is no point starting the replicas.
    if (o.replicaCpu !== undefined)
      for (const name of ["a", "b"])
        limits.push(createCpuLimit({ cores: o.replicaCpu[0], name: `reporter-bench-${schema}-${name}` }));
    const started = performance.now();
    const spawned = (i: number) => (pid: number) => limits[i]?.add(pid);
    const a = await o.start(o.kubeconfig, config("replica-a"), { env, spawned: spawned(0) });
    replicas.push(a.proc);
    const b = await o.start(o.kubeconfig, config("replica-b"), { env, spawned: spawned(1) });
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
    for (const cores of o.replicaCpu ?? [undefined]) {
      for (const limit of limits) limit.setCores(cores);
      await measureThroughput(o, [a.url, b.url], replicas, limits, cores);
    }
  } finally {
    for (const r of replicas) await o.stop(r);
    for (const limit of limits) limit.remove();
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  }
}

/** One load run's figures, with the CPU each process spent during it. */
interface Measured extends Load {
  /** CPU seconds of replica a and b. */
  replicaCpuS: number[];
  /** Throttled periods / all periods of each limited replica. */
  throttled: string[];
  postgresS: number;
  redisS: number;
  sandboxS: number;
  /** The machine's busy and steal CPU seconds (all CPUs) and its idle share. */
  machine: { busy: number; steal: number; idleShare: number };
  load: string;
}

function snapshot(o: ReplicaBenchOptions, replicas: RoleProcess[], limits: CpuLimit[]) {
  return {
    replicas: replicas.map((r) => cpuSecondsOf(r.pid)),
    throttled: limits.map((l) => l.throttled()),
    postgres: cpuSecondsOfCommand("postgres"),
    redis: cpuSecondsOfCommand("redis-server"),
    sandbox: o.sandboxPid ? cpuSecondsOf(o.sandboxPid) : 0,
    machine: machineCpu(),
  };
}

async function measuredLoad(
  o: ReplicaBenchOptions,
  urls: string[],
  paths: string[],
  replicas: RoleProcess[],
  limits: CpuLimit[],
): Promise<Measured> {
  const before = snapshot(o, replicas, limits);
  const load = await runRoleOnce<Load>("load", [
    "--urls",
    urls.join(","),
    "--paths",
    JSON.stringify(paths),
    "--concurrency",
    String(o.concurrency),
    "--seconds",
    String(o.seconds),
  ]);
  const after = snapshot(o, replicas, limits);
  const idle = after.machine.idle - before.machine.idle;
  const busy = after.machine.busy - before.machine.busy;
  const steal = after.machine.steal - before.machine.steal;
  return {
    ...load,
    replicaCpuS: after.replicas.map((s, i) => s - (before.replicas[i] ?? 0)),
    throttled: after.throttled.map((t, i) => {
      const b = before.throttled[i];
      return `${t.throttledPeriods - (b?.throttledPeriods ?? 0)}/${t.periods - (b?.periods ?? 0)}`;
    }),
    postgresS: after.postgres - before.postgres,
    redisS: after.redis - before.redis,
    sandboxS: after.sandbox - before.sandbox,
    machine: { busy, steal, idleShare: idle / (idle + busy + steal) },
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
  };
}

function printMeasured(label: string, m: Measured, quota: number | undefined): void {
  const perReplica = m.replicaCpuS
    .map((s, i) => {
      const name = i === 0 ? "a" : "b";
      const share = quota === undefined ? "" : ` = ${((100 * s) / (quota * m.seconds)).toFixed(0)}% of quota`;
      const throttled = m.throttled[i] === undefined ? "" : `, throttled ${m.throttled[i]} periods`;
      return `${name} ${s.toFixed(2)} s${share}${throttled}`;
    })
    .join("; ");
  console.log(
    `${label}: ${m.rps.toFixed(0)} requests/s (${m.requests} in ${m.seconds.toFixed(1)} s; p50 ${m.p50.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms, errors ${m.errors}); load average ${m.load}`,
  );
  console.log(
    `  CPU: replica ${perReplica}; PostgreSQL ${m.postgresS.toFixed(2)} s, Redis ${m.redisS.toFixed(2)} s, API server ${m.sandboxS.toFixed(2)} s, load generator ${m.cpuS.toFixed(2)} s; machine busy ${m.machine.busy.toFixed(1)} s, steal ${m.machine.steal.toFixed(1)} s, idle ${(100 * m.machine.idleShare).toFixed(0)}%`,
  );
}

/** Requests/s of the dashboard's queries against replica a alone, then against both. */
async function measureThroughput(
  o: ReplicaBenchOptions,
  urls: string[],
  replicas: RoleProcess[],
  limits: CpuLimit[],
  quota: number | undefined,
): Promise<void> {
  const { resourceId } = await import("../../packages/reporter/dist/index.js");
  const pod = resourceId({ apiVersion: "v1", kind: "Pod", namespace: "ns-1", name: "pod-1", uid: "uid-1" });
  const paths = Object.entries(dashboardQueries(pod))
    .filter(([label]) => !label.includes("not dashboard"))
    .map(([, path]) => path);
  const limit = quota === undefined ? "unlimited CPU" : `each limited to ${quota} CPU (CFS quota)`;
  console.log(
    `\nAPI throughput: ${o.concurrency} connections for ${o.seconds} s, the dashboard's queries in turn, ${o.runs} runs; replicas ${limit}; CPU in seconds over each run (all CPUs)`,
  );
  // A warm-up against both (not shown): a fresh process's first requests also pay for compiling.
  await measuredLoad({ ...o, seconds: Math.min(o.seconds, 5) }, urls, paths, replicas, limits);
  const one: Measured[] = [];
  const two: Measured[] = [];
  for (let r = 0; r < o.runs; r++) {
    one.push(await measuredLoad(o, urls.slice(0, 1), paths, replicas, limits));
    printMeasured("one replica ", one.at(-1) as Measured, quota);
    two.push(await measuredLoad(o, urls, paths, replicas, limits));
    printMeasured("two replicas", two.at(-1) as Measured, quota);
  }
  const show = (label: string, loads: Measured[]) =>
    console.log(
      `${label}: ${range(
        loads.map((l) => l.rps),
        0,
      )} requests/s (p50 ${range(
        loads.map((l) => l.p50),
        1,
      )} ms, p99 ${range(
        loads.map((l) => l.p99),
        1,
      )} ms, errors ${loads.reduce((n, l) => n + l.errors, 0)})`,
    );
  if (o.runs > 1) {
    console.log("over the runs (min–max):");
    show("one replica ", one);
    show("two replicas", two);
  }
}
