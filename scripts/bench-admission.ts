// Admission webhook benchmark (not a test). Starts `kyverno-ts admission --standalone` with the Pod
// Security policies (baseline + restricted) and a no-op fastify HTTPS webhook, each in a child process
// (one JS thread each), and drives both over HTTPS on loopback from this process (keep-alive agent)
// with a Pod AdmissionReview:
//   1. throughput: a fixed number of requests at fixed concurrency, as fast as the server answers;
//   2. latency: a fixed request rate (open loop, latency measured from the scheduled send time).
// Both servers are measured in alternating rounds (medians reported), because other load on the
// machine moves wall-clock numbers a lot; server CPU time per request (from the child's resource
// usage) is the steadier throughput measure and is what the throughput goal is judged on.
// Prints p50/p99 latency, requests/s, CPU per request, errors and peak RSS for both, and the ratios.
// Usage: npm run bench:admission [-- --requests 20000 --concurrency 32 --rate 1000 --seconds 10 --rounds 3]
// --pin pins the servers to CPU 1 and the load generator to CPU 0 (taskset): steadier on an idle
// machine, much worse tail latency on a busy one.
// BENCH_SERVER_NODE_OPTIONS passes V8/Node flags to the server processes (e.g. --cpu-prof).
// Needs the packages built (npm run build).
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { existsSync } from "node:fs";
import { Agent, request } from "node:https";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../", import.meta.url));
const serverDist = new URL("../packages/server/dist/index.js", import.meta.url);
const policiesRoot = fileURLToPath(
  new URL("../../shared/conformance/kyverno-policies/pod-security/", import.meta.url),
);

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

interface Ready {
  port: number;
  caCertPem: string;
}

interface ServerStats {
  peakRssMiB: number;
  cpuSeconds: number;
}

// ---------------------------------------------------------------- child processes

async function serveAdmission(): Promise<void> {
  const server = await import(serverDist.href);
  const stop = new AbortController();
  process.on("message", (m: unknown) => onStatsRequest(m, stop));
  await server.runAdmissionCommand({
    args: [
      "--standalone",
      "--policies",
      `${policiesRoot}baseline`,
      "--policies",
      `${policiesRoot}restricted`,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-port",
      "0",
      "--log-level",
      "warn",
    ],
    stdout: { write: () => true },
    stderr: process.stderr,
    signal: stop.signal,
    onReady: (info: Ready) => process.send?.({ port: info.port, caCertPem: info.caCertPem }),
  });
  process.exit(0);
}

async function serveNoop(): Promise<void> {
  const server = await import(serverDist.href);
  const { fastify } = await import("fastify");
  const clock = server.systemClock();
  const certs = await server.generateCertificates({ hosts: ["127.0.0.1", "localhost"], clock });
  const app = fastify({
    https: { cert: certs.serving.certPem, key: certs.serving.keyPem },
    logger: false,
    bodyLimit: 3 * 1024 * 1024,
  });
  app.post("/validate/fail", (req, reply) => {
    const uid = (req.body as { request?: { uid?: string } }).request?.uid ?? "";
    return reply.send({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid, allowed: true },
    });
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const stop = new AbortController();
  process.on("message", (m: unknown) => onStatsRequest(m, stop));
  process.send?.({
    port: typeof address === "object" && address ? address.port : 0,
    caCertPem: certs.ca.certPem,
  });
  await new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
  await app.close();
  process.exit(0);
}

function onStatsRequest(message: unknown, stop: AbortController): void {
  if (message === "stats") {
    const usage = process.resourceUsage();
    const stats: ServerStats = {
      peakRssMiB: usage.maxRSS / 1024,
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    };
    process.send?.(stats);
  } else if (message === "stop") {
    stop.abort();
  }
}

// ---------------------------------------------------------------- load generator

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "bench", namespace: "default", labels: { app: "bench" } },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [
      {
        name: "app",
        image: "ghcr.io/acme/app:1.4.2",
        ports: [{ containerPort: 8080 }],
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          runAsNonRoot: true,
        },
      },
    ],
  },
};

function reviewBody(i: number): { uid: string; body: string } {
  const uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  const review = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      namespace: "default",
      name: "bench",
      operation: "CREATE",
      userInfo: { username: "bench", groups: ["system:authenticated"] },
      object: POD,
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    },
  };
  return { uid, body: JSON.stringify(review) };
}

interface PhaseResult {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
  clientCpu: number;
}

function send(agent: Agent, port: number, i: number): Promise<boolean> {
  const { uid, body } = reviewBody(i);
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/validate/fail",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString()) as {
              response?: { uid?: string; allowed?: boolean };
            };
            resolve(
              res.statusCode === 200 && answer.response?.uid === uid && answer.response.allowed === true,
            );
          } catch {
            resolve(false);
          }
        });
        res.on("error", () => resolve(false));
      },
    );
    req.on("error", () => resolve(false));
    req.end(body);
  });
}

async function closedLoop(
  agent: Agent,
  port: number,
  total: number,
  concurrency: number,
  offset: number,
): Promise<PhaseResult> {
  const latenciesMs: number[] = [];
  let next = 0;
  let errors = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      if (!(await send(agent, port, offset + i))) errors++;
      latenciesMs.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    requests: total,
    errors,
    seconds,
    latenciesMs,
    clientCpu: (used.user + used.system) / 1e6 / seconds,
  };
}

async function openLoop(
  agent: Agent,
  port: number,
  rate: number,
  seconds: number,
  offset: number,
): Promise<PhaseResult> {
  const total = Math.round(rate * seconds);
  const latenciesMs: number[] = [];
  let errors = 0;
  let sent = 0;
  const pending: Promise<void>[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
      for (; sent < due; sent++) {
        const scheduled = start + (sent * 1000) / rate;
        pending.push(
          send(agent, port, offset + sent).then((ok) => {
            if (!ok) errors++;
            latenciesMs.push(performance.now() - scheduled);
          }),
        );
      }
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    requests: total,
    errors,
    seconds: elapsed,
    latenciesMs,
    clientCpu: (used.user + used.system) / 1e6 / elapsed,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

// ---------------------------------------------------------------- orchestration

const hasTaskset = (() => {
  if (!process.argv.includes("--pin") || availableParallelism() < 2) return false;
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function startChild(mode: string): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(fileURLToPath(import.meta.url), [mode], {
    cwd: repo,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: (process.env.BENCH_SERVER_NODE_OPTIONS ?? "").split(" ").filter((o) => o !== ""),
  });
  if (hasTaskset && child.pid !== undefined)
    execFileSync("taskset", ["-a", "-p", "-c", "1", String(child.pid)], { stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve({ child, ready: m as Ready }));
    child.once("exit", (code) => reject(new Error(`${mode} exited with ${code} before listening`)));
  });
}

function ask(child: ChildProcess): Promise<ServerStats> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as ServerStats));
    child.send("stats");
  });
}

interface Server {
  name: string;
  child: ChildProcess;
  agent: Agent;
  port: number;
}

interface Round {
  rps: number;
  /** Server CPU time per request in the throughput phase (robust to other load on the machine). */
  cpuMicros: number;
  p50: number;
  p99: number;
  rateP50: number;
  rateP99: number;
  errors: number;
  clientCpu: number;
}

const median = (values: number[]): number => percentile(values, 50);

async function start(name: string, mode: string, concurrency: number): Promise<Server> {
  const { child, ready } = await startChild(mode);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: ready.caCertPem });
  return { name, child, agent, port: ready.port };
}

async function stop(server: Server): Promise<void> {
  server.agent.destroy();
  server.child.send("stop");
  await new Promise((resolve) => server.child.once("exit", resolve));
}

/** Request uids stay unique across phases: each (round, phase) gets its own block of ten million. */
const uidBlock = (round: number, phase: number): number => (round * 4 + phase) * 10_000_000;

async function round(
  server: Server,
  index: number,
  requests: number,
  concurrency: number,
  rate: number,
  seconds: number,
): Promise<Round> {
  const before = await ask(server.child);
  const throughput = await closedLoop(server.agent, server.port, requests, concurrency, uidBlock(index, 1));
  const after = await ask(server.child);
  const latency = await openLoop(server.agent, server.port, rate, seconds, uidBlock(index, 2));
  return {
    rps: throughput.requests / throughput.seconds,
    cpuMicros: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / throughput.requests,
    p50: percentile(throughput.latenciesMs, 50),
    p99: percentile(throughput.latenciesMs, 99),
    rateP50: percentile(latency.latenciesMs, 50),
    rateP99: percentile(latency.latenciesMs, 99),
    errors: throughput.errors + latency.errors,
    clientCpu: throughput.clientCpu,
  };
}

interface Summary {
  name: string;
  rps: number;
  cpuMicros: number;
  p50: number;
  p99: number;
  rateP50: number;
  rateP99: number;
  errors: number;
  clientCpu: number;
  peakRssMiB: number;
}

function summarize(name: string, rounds: Round[], stats: ServerStats): Summary {
  const pick = (f: (r: Round) => number) => median(rounds.map(f));
  return {
    name,
    rps: pick((r) => r.rps),
    cpuMicros: pick((r) => r.cpuMicros),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    rateP50: pick((r) => r.rateP50),
    rateP99: pick((r) => r.rateP99),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    clientCpu: pick((r) => r.clientCpu),
    peakRssMiB: stats.peakRssMiB,
  };
}

function row(m: Summary, rate: number): string {
  return [
    m.name.padEnd(22),
    `${m.rps.toFixed(0).padStart(6)} req/s`,
    `CPU ${m.cpuMicros.toFixed(0).padStart(4)} us/req (${(1e6 / m.cpuMicros).toFixed(0)} req/s/core)`,
    `p50 ${m.p50.toFixed(2)} p99 ${m.p99.toFixed(2)} ms`,
    `| @${rate}/s p50 ${m.rateP50.toFixed(2)} p99 ${m.rateP99.toFixed(2)} ms`,
    `| errors ${m.errors}`,
    `| peak RSS ${m.peakRssMiB.toFixed(0)} MiB`,
    `| client CPU ${(m.clientCpu * 100).toFixed(0)}%`,
  ].join("  ");
}

async function main(): Promise<void> {
  if (!existsSync(serverDist)) {
    process.stderr.write("packages are not built: run `npm run build` first\n");
    process.exit(2);
  }
  const requests = flag("requests", 20_000);
  const concurrency = flag("concurrency", 32);
  const rate = flag("rate", 1000);
  const seconds = flag("seconds", 10);
  const rounds = flag("rounds", 3);
  if (hasTaskset) execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
  process.stdout.write(
    `admission benchmark: Pod Security baseline + restricted (13 policies), HTTPS on loopback; per round ${requests} requests at concurrency ${concurrency}, then ${rate} req/s for ${seconds} s; ${rounds} rounds, medians\n` +
      (hasTaskset
        ? "servers pinned to CPU 1, load generator to CPU 0\n"
        : "processes not pinned (--pin: servers on CPU 1, load generator on CPU 0, with taskset)\n"),
  );
  const admission = await start("kyverno-ts admission", "--serve-admission", concurrency);
  const noop = await start("no-op fastify webhook", "--serve-noop", concurrency);
  try {
    const warmup = Math.min(5000, requests);
    for (const server of [admission, noop])
      await closedLoop(server.agent, server.port, warmup, concurrency, uidBlock(0, 0));
    const results = new Map<Server, Round[]>([
      [admission, []],
      [noop, []],
    ]);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? [admission, noop] : [noop, admission];
      for (const server of order)
        results.get(server)?.push(await round(server, i + 1, requests, concurrency, rate, seconds));
    }
    const a = summarize(admission.name, results.get(admission) ?? [], await ask(admission.child));
    const n = summarize(noop.name, results.get(noop) ?? [], await ask(noop.child));
    process.stdout.write(`${row(a, rate)}\n${row(n, rate)}\n`);
    const cpuRatio = n.cpuMicros / a.cpuMicros;
    process.stdout.write(
      `ratios (admission / no-op): throughput ${((a.rps / n.rps) * 100).toFixed(0)}% wall-clock, ${(cpuRatio * 100).toFixed(0)}% by CPU per request; ` +
        `latency at ${rate}/s p50 ${(a.rateP50 / n.rateP50).toFixed(2)}x, p99 ${(a.rateP99 / n.rateP99).toFixed(2)}x; peak RSS ${(a.peakRssMiB / n.peakRssMiB).toFixed(2)}x\n` +
        `goals: p99 <= 5 ms at ${rate} req/s: ${a.rateP99 <= 5 ? "met" : "MISSED"} (${a.rateP99.toFixed(2)} ms); ` +
        `throughput >= 70% of no-op: ${cpuRatio >= 0.7 ? "met" : "MISSED"} (${(cpuRatio * 100).toFixed(0)}% by CPU); ` +
        `zero errors: ${a.errors === 0 ? "met" : "MISSED"}; RSS <= 200 MiB: ${a.peakRssMiB <= 200 ? "met" : "MISSED"} (${a.peakRssMiB.toFixed(0)} MiB)\n`,
    );
  } finally {
    await Promise.all([stop(admission), stop(noop)]);
  }
}

const mode = process.argv[2];
if (mode === "--serve-admission") await serveAdmission();
else if (mode === "--serve-noop") await serveNoop();
else await main();
