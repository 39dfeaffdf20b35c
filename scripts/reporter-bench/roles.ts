// The child processes of the reporter benchmarks, each its own Node.js process so its peak RSS is its
// own: the API server (sandbox), the writer that fills it, the floors (a plain paginated list, and the
// kube informer that caches every report) and an HTTP load generator (the reporter is the built CLI).
// Each prints one JSON line on stdout when done (the sandbox when started).
import { readFileSync } from "node:fs";
import type { KubeClient } from "../../packages/kube/dist/index.js";
import { generateReport, NAMESPACES, percentile, prng } from "./data.ts";

const REFERENCE = new URL("../../../shared/reference/kyverno-crds/policyreport/", import.meta.url).pathname;
const CRDS = [
  `${REFERENCE}wgpolicyk8s.io_policyreports.yaml`,
  `${REFERENCE}wgpolicyk8s.io_clusterpolicyreports.yaml`,
];

/** Peak and current resident set of a process, in MiB (Linux /proc). */
export function memoryOf(pid: number | "self"): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return { peakMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 };
}

function emit(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function flag(args: readonly string[], name: string, fallback = ""): string {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
}

/** The API server: runs until its standard input closes; a line `rss` on stdin prints its memory. */
async function sandboxRole(): Promise<void> {
  const { startSandbox } = await import("../../packages/sandbox/dist/index.js");
  const sandbox = await startSandbox({ crds: CRDS, admission: false, authorization: "AlwaysAllow" });
  emit({ kubeconfig: sandbox.kubeconfigPath, pid: process.pid });
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    if (chunk.includes("rss")) emit(memoryOf("self"));
  });
  await new Promise<void>((resolve) => process.stdin.on("end", resolve));
  await sandbox.stop();
}

async function client(args: readonly string[]): Promise<KubeClient> {
  const { createKubeClient } = await import("../../packages/kube/dist/index.js");
  return createKubeClient({ kubeconfigPath: flag(args, "kubeconfig"), qps: 0 });
}

/** Writes reports `--from` … `--to` - 1 with `--results` results each, `--concurrency` at a time. */
async function writerRole(args: readonly string[]): Promise<void> {
  const kube = await client(args);
  const from = Number(flag(args, "from", "0"));
  const to = Number(flag(args, "to", "10000"));
  const results = Number(flag(args, "results", "10"));
  const concurrency = Number(flag(args, "concurrency", "16"));
  const started = performance.now();
  for (let n = 0; n < NAMESPACES; n++) {
    const created = await kube.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } });
    if (!created.ok && created.status !== 409) throw new Error(`namespace ns-${n}: ${created.message}`);
  }
  // The PRNG runs in report order, so a report's content does not depend on how the range is split.
  const rand = prng(42);
  for (let i = 0; i < from; i++) generateReport(i, results, rand);
  let next = from;
  const worker = async () => {
    while (next < to) {
      const report = generateReport(next++, results, rand);
      const created = await kube.create(report);
      if (!created.ok && created.status !== 409)
        throw new Error(`${report.metadata.name}: ${created.status} ${created.message}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  kube.close();
  emit({ written: to - from, ms: performance.now() - started, ...memoryOf("self") });
}

const REPORT_KINDS = ["PolicyReport", "ClusterPolicyReport"] as const;

/** Floor: every report listed page by page (500 a page, as the informer) and dropped after counting. */
async function listFloorRole(args: readonly string[]): Promise<void> {
  const kube = await client(args);
  const started = performance.now();
  let reports = 0;
  let results = 0;
  for (const kind of REPORT_KINDS) {
    let token: string | undefined;
    do {
      const page = await kube.list<{ metadata: { name: string }; results?: unknown[] }>({
        apiVersion: "wgpolicyk8s.io/v1alpha2",
        kind,
        limit: 500,
        ...(token ? { continue: token } : {}),
      });
      if (!page.ok) throw new Error(`list ${kind}: ${page.message}`);
      reports += page.value.items.length;
      for (const item of page.value.items) results += item.results?.length ?? 0;
      token = page.value.metadata.continue || undefined;
    } while (token);
  }
  const ms = performance.now() - started;
  kube.close();
  emit({ reports, results, ms, ...memoryOf("self") });
}

/** Floor: the kube informer of both kinds (what the reporter used to hold: every report cached). */
async function informerFloorRole(args: readonly string[]): Promise<void> {
  const kube = await client(args);
  const { createInformer } = await import("../../packages/kube/dist/index.js");
  const started = performance.now();
  const informers = REPORT_KINDS.map((kind) =>
    createInformer<{ metadata: { name: string } }>({
      client: kube,
      apiVersion: "wgpolicyk8s.io/v1alpha2",
      kind,
    }),
  );
  await Promise.all(informers.map((i) => i.start()));
  const ms = performance.now() - started;
  const reports = informers.reduce((n, i) => n + i.list().length, 0);
  await Promise.all(informers.map((i) => i.stop()));
  kube.close();
  emit({ reports, ms, ...memoryOf("self") });
}

/** Another build's `runReporterCommand` (`--entry …/dist/index.js`), with the flags after `--`. */
async function reporterRole(args: readonly string[]): Promise<void> {
  const entry = flag(args, "entry");
  const { runReporterCommand } = (await import(entry)) as {
    runReporterCommand: (o: {
      args: string[];
      stdout: NodeJS.WritableStream;
      stderr: NodeJS.WritableStream;
    }) => Promise<number>;
  };
  const rest = args.slice(args.indexOf("--") + 1);
  process.exitCode = await runReporterCommand({ args: rest, stdout: process.stdout, stderr: process.stderr });
}

/**
 * HTTP load: `--concurrency` loops GET the `--paths` in turn for `--seconds`, each loop pinned to one of
 * the `--urls` (loop i to url i mod n), as keep-alive connections through a Service stay on one Pod:
 * a slower replica then does not hold the other's share of the loops (it would with requests
 * alternating over the urls, throughput being n × the slowest).
 */
async function loadRole(args: readonly string[]): Promise<void> {
  const urls = flag(args, "urls").split(",");
  const paths = JSON.parse(flag(args, "paths", "[]")) as string[];
  const concurrency = Number(flag(args, "concurrency", "8"));
  const seconds = Number(flag(args, "seconds", "10"));
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let errors = 0;
  const cpuBefore = process.cpuUsage();
  const loop = async (_: unknown, i: number) => {
    const base = urls[i % urls.length];
    let turn = i;
    while (performance.now() < until) {
      const url = `${base}${paths[turn++ % paths.length]}`;
      const t = performance.now();
      const res = await fetch(url).catch(() => undefined);
      if (res === undefined || res.status !== 200) errors++;
      await res?.arrayBuffer();
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  emit({
    requests: latencies.length,
    errors,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    // The load generator's own CPU while it ran (it shares the machine with the replicas).
    cpuS: (cpu.user + cpu.system) / 1e6,
  });
}

/** Runs the role named by `--role`. */
export async function runRole(args: readonly string[]): Promise<void> {
  const role = flag(args, "role");
  if (role === "sandbox") return sandboxRole();
  if (role === "writer") return writerRole(args);
  if (role === "list-floor") return listFloorRole(args);
  if (role === "informer-floor") return informerFloorRole(args);
  if (role === "load") return loadRole(args);
  if (role === "reporter") return reporterRole(args);
  throw new Error(`unknown role ${role}`);
}
