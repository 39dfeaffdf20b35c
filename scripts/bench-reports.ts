// Reports controller benchmark (not a test): a background scan of generated Pods and Deployments in the
// local API server (run in a child process, so this process's RSS is the controller's), with the Pod
// Security and best-practices policies of the conformance set. Prints the time from start to every
// report written, reports/s, API requests, the evaluation time (from the controller's own metric) and
// peak RSS, against floors measured in the same run: listing and parsing the same resources, and
// creating as many small objects with as many concurrent writers.
// Usage: node scripts/bench-reports.ts [--pods 10000] [--deployments 2000] [--workers 2] [--qps 0]
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadPolicy, parseDocuments } from "../packages/api/dist/index.js";
import { createEngine } from "../packages/engine/dist/index.js";
import { createKubeClient } from "../packages/kube/dist/index.js";
// Until the server's index exports the reports controller, import its modules directly.
import { createReportsMetrics } from "../packages/server/dist/controllers/reports/metrics.js";
import { createReportsController } from "../packages/server/dist/controllers/reports/reports-controller.js";

const CRDS = fileURLToPath(new URL("../../shared/reference/kyverno-crds/", import.meta.url));
const POLICIES = fileURLToPath(new URL("../../shared/conformance/kyverno-policies/", import.meta.url));
const SETS = ["pod-security/baseline", "pod-security/restricted", "best-practices"];

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

// Child mode: the sandbox, filled with the resources and policies, served until stdin closes.
if (process.argv[2] === "--serve-sandbox") await serve();
else await main();

async function serve() {
  // Imported here only: the parent's RSS is the controller's.
  const { startSandbox } = await import("../packages/sandbox/dist/index.js");
  const sandbox = await startSandbox({
    admission: false,
    watchHistorySize: 100_000,
    crds: [
      `${CRDS}kyverno/kyverno.io_clusterpolicies.yaml`,
      `${CRDS}kyverno/kyverno.io_policies.yaml`,
      `${CRDS}kyverno/kyverno.io_policyexceptions.yaml`,
      `${CRDS}policyreport/wgpolicyk8s.io_policyreports.yaml`,
      `${CRDS}policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml`,
    ],
  });
  const setup = createKubeClient({ kubeconfigPath: sandbox.kubeconfigPath, qps: 0 });
  const must = (r: { ok: boolean; message?: string }) => {
    if (!r.ok) throw new Error(r.message);
  };
  const loaded = policies();
  const objects = resources(flag("pods", 10_000), flag("deployments", 2000));
  for (let n = 0; n < 20; n++)
    must(await setup.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: `ns-${n}` } }));
  await inParallel(objects, 64, async (o) => must(await setup.create(o)));
  for (const p of loaded) must(await setup.create(p));
  setup.close();
  const rules = loaded.reduce((n, p) => n + (p.spec.rules?.length ?? 0), 0);
  const ready = { kubeconfigPath: sandbox.kubeconfigPath, policies: loaded.length, rules };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => void sandbox.stop().then(() => process.exit(0)));
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name.startsWith(".")) continue;
    if (statSync(path).isDirectory()) out.push(...yamlFiles(path));
    else if (name.endsWith(".yaml") && name !== "artifacthub-pkg.yml") out.push(path);
  }
  return out;
}

/** Validate-only ClusterPolicies of the sets that load and compile, as Audit background policies. */
function policies() {
  const engine = createEngine();
  const out = [];
  for (const set of SETS) {
    for (const file of yamlFiles(join(POLICIES, set))) {
      for (const doc of parseDocuments(readFileSync(file, "utf8"), file).documents) {
        const value = doc.value as { kind?: string; spec?: { rules?: Array<Record<string, unknown>> } };
        if (value?.kind !== "ClusterPolicy" || !value.spec?.rules?.every((r) => r.validate !== undefined))
          continue;
        const loaded = loadPolicy(doc.value, { file });
        if (!loaded.ok || !engine.compile(loaded.value).ok) continue;
        out.push({ ...value, spec: { ...value.spec, background: true, validationFailureAction: "Audit" } });
      }
    }
  }
  return out;
}

function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function podSpec(rand: () => number) {
  const containers = [];
  for (let c = 0; c < 1 + Math.floor(rand() * 2); c++) {
    const container: Record<string, unknown> = {
      name: `c${c}`,
      image: rand() < 0.2 ? "nginx:latest" : "nginx:1.27",
    };
    if (rand() < 0.7)
      container.resources = { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } };
    if (rand() < 0.6) container.readinessProbe = { httpGet: { path: "/ready", port: 8080 } };
    if (rand() < 0.6) container.livenessProbe = { httpGet: { path: "/live", port: 8080 } };
    if (rand() < 0.5)
      container.securityContext = {
        runAsNonRoot: rand() < 0.8,
        allowPrivilegeEscalation: rand() < 0.2,
        privileged: rand() < 0.05,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      };
    containers.push(container);
  }
  return { containers, ...(rand() < 0.05 ? { hostNetwork: true } : {}) };
}

function resources(pods: number, deployments: number) {
  const rand = prng(42);
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < pods; i++) {
    const labels = { "app.kubernetes.io/name": `app${i}` };
    out.push({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `pod-${i}`, namespace: `ns-${i % 20}`, labels },
      spec: podSpec(rand),
    });
  }
  for (let i = 0; i < deployments; i++) {
    const labels = { app: `deploy-${i}` };
    out.push({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: `deploy-${i}`, namespace: `ns-${i % 20}`, labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: podSpec(rand) },
      },
    });
  }
  return out;
}

async function inParallel<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

async function main() {
  const rssImports = process.memoryUsage().rss;
  const podCount = flag("pods", 10_000);
  const deploymentCount = flag("deployments", 2000);
  const workers = flag("workers", 2);
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), "--serve-sandbox", ...process.argv.slice(2)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once("line", resolve),
  );
  const {
    kubeconfigPath,
    policies: policyCount,
    rules,
  } = JSON.parse(first) as {
    kubeconfigPath: string;
    policies: number;
    rules: number;
  };
  const setup = createKubeClient({ kubeconfigPath, qps: 0 });
  const must = (r: { ok: boolean; message?: string }) => {
    if (!r.ok) throw new Error(r.message);
  };
  console.log(
    `kyverno-ts reports benchmark: ${podCount} Pods + ${deploymentCount} Deployments, ${policyCount} policies (${rules} rules), ${workers} workers`,
  );

  // Floor: list and parse the same resources through the same client.
  const floorStart = performance.now();
  for (const [apiVersion, kind] of [
    ["v1", "Pod"],
    ["apps/v1", "Deployment"],
  ] as const) {
    let token: string | undefined;
    do {
      const page = await setup.list({ apiVersion, kind, limit: 500, ...(token ? { continue: token } : {}) });
      if (!page.ok) throw new Error(page.message);
      token = page.value.metadata.continue || undefined;
    } while (token);
  }
  const floorMs = performance.now() - floorStart;

  const queries = new Map<string, number>();
  const queryMs = new Map<string, number>();
  const client = createKubeClient({
    kubeconfigPath,
    qps: flag("qps", 0),
    onQuery: (e) => {
      queries.set(e.operation, (queries.get(e.operation) ?? 0) + 1);
      queryMs.set(e.operation, (queryMs.get(e.operation) ?? 0) + e.durationMs);
    },
  });
  const metrics = createReportsMetrics();
  // BENCH_DEBUG=1 prints the controller's logs to stderr.
  const line = (level: string) => (fields: object, message: string) =>
    console.error(Math.round(performance.now()), level, message, JSON.stringify(fields));
  const logger = process.env.BENCH_DEBUG
    ? { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") }
    : undefined;
  const controller = createReportsController({
    client,
    engine: createEngine(),
    metrics,
    workers,
    leaderElection: false,
    ...(logger ? { logger } : {}),
  });
  const rssBefore = process.memoryUsage().rss;
  const start = performance.now();
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  await controller.start();
  let peakRss = process.memoryUsage().rss;
  for (;;) {
    const s = controller.stats();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (s.scans > 0 && s.queued === 0 && s.inFlight === 0 && s.retrying === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const scanMs = performance.now() - start;
  const busy = performance.eventLoopUtilization(elu).utilization;
  const cpuMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu));
  const stats = controller.stats();
  const heapAfter = process.memoryUsage();
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    console.log(
      `live heap after the scan (forced GC): ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
    );
  }
  const durations = (await metrics.registry.getMetricsAsJSON()).find(
    (m) => m.name === "kyverno_policy_execution_duration_seconds",
  ) as { values: Array<{ metricName?: string; value: number }> } | undefined;
  const evalSeconds = (durations?.values ?? [])
    .filter((v) => v.metricName === "kyverno_policy_execution_duration_seconds_sum")
    .reduce((sum, v) => sum + v.value, 0);
  await controller.stop();
  client.close();

  // Second floor: as many creates of small objects, with as many concurrent writers as workers.
  const total = podCount + deploymentCount;
  must(await setup.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "write-floor" } }));
  const writeStart = performance.now();
  await inParallel(
    Array.from({ length: total }, (_, i) => i),
    workers,
    async (i) =>
      must(
        await setup.create({
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `cm-${i}`, namespace: "write-floor" },
          data: { key: "value" },
        }),
      ),
  );
  const writeFloorMs = performance.now() - writeStart;
  setup.close();
  child.stdin.end();

  const requests = [...queries]
    .map(([op, n]) => `${op} ${n} (${((queryMs.get(op) ?? 0) / n).toFixed(1)} ms each)`)
    .join(", ");
  console.log(`floor (list + parse ${total} resources): ${floorMs.toFixed(0)} ms`);
  console.log(
    `write floor (${total} creates of small ConfigMaps, ${workers} at a time): ${(writeFloorMs / 1000).toFixed(2)} s`,
  );
  console.log(
    `scan: ${(scanMs / 1000).toFixed(2)} s to ${stats.created} reports (${((stats.created / scanMs) * 1000).toFixed(0)} reports/s, ${(scanMs / floorMs).toFixed(1)}x the floor)`,
  );
  console.log(
    `controller CPU: ${(cpuMs / 1000).toFixed(2)} s (event loop busy ${(busy * 100).toFixed(0)} %); evaluation (sum of rule execution time): ${evalSeconds.toFixed(2)} s`,
  );
  console.log(`API requests: ${requests}`);
  console.log(
    `heap after the scan: ${(heapAfter.heapUsed / 2 ** 20).toFixed(0)} MiB used of ${(heapAfter.heapTotal / 2 ** 20).toFixed(0)} MiB; ` +
      `RSS: ${(rssImports / 2 ** 20).toFixed(0)} MiB after imports, ${(rssBefore / 2 ** 20).toFixed(0)} MiB before start, peak ${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20).toFixed(0)} MiB`,
  );
}
