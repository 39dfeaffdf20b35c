// Metrics cardinality benchmark (not a test). Starts the admission controller as a user runs it
// (`kyverno-ts admission --standalone`, the CLI's own bin, with the Pod Security policies, baseline +
// restricted), sends one Pod AdmissionReview in each of N namespaces (each request creates the
// namespace's series of `kyverno_admission_*` and `kyverno_policy_*`), then scrapes `/metrics` a few
// times and prints, per scrape, the HTTP status, the bytes and the time to the last byte, and the
// server's resident memory (VmRSS) before and after the scrapes and its high-water mark (VmHWM).
// Usage: npm run bench:metrics [-- --namespaces 20000 --scrapes 3 --concurrency 16
//   --metrics-config kyverno-metrics.yaml]
// `--metrics-config` passes a `kyverno-metrics` ConfigMap file to the server (`--metricsConfig`).
// Needs Linux (/proc) and the packages built (npm run build).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { fileURLToPath } from "node:url";

const cliBin = fileURLToPath(new URL("../packages/cli/dist/bin.js", import.meta.url));
const policiesRoot = fileURLToPath(
  new URL("../../shared/conformance/kyverno-policies/pod-security/", import.meta.url),
);

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function numberFlag(name: string, fallback: number): number {
  const value = Number(flag(name) ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const namespaces = numberFlag("namespaces", 20_000);
const scrapes = numberFlag("scrapes", 3);
const concurrency = numberFlag("concurrency", 16);
const metricsConfig = flag("metrics-config");

interface Started {
  child: ChildProcess;
  port: number;
  metricsPort: number;
  caCertPem: string;
}

function startServer(): Promise<Started> {
  const args = [
    cliBin,
    "admission",
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
    ...(metricsConfig ? ["--metricsConfig", metricsConfig] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`admission exited with ${code}: ${out}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const port = /webhooks: https:\/\/[^\s]*:(\d+)/.exec(out)?.[1];
      const metricsPort = /metrics: http:\/\/[^\s]*:(\d+)\/metrics/.exec(out)?.[1];
      const bundle = /caBundle: ([A-Za-z0-9+/=]+)\n/.exec(out)?.[1];
      if (port && metricsPort && bundle)
        resolve({
          child,
          port: Number(port),
          metricsPort: Number(metricsPort),
          caCertPem: Buffer.from(bundle, "base64").toString("utf8"),
        });
    });
  });
}

function review(i: number): string {
  const namespace = `ns-${i}`;
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace,
      name: "app",
      operation: "CREATE",
      userInfo: { username: "bench", groups: ["system:authenticated"] },
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "app", namespace },
        spec: { containers: [{ name: "app", image: "ghcr.io/acme/app:1.4.2" }] },
      },
      oldObject: null,
      dryRun: false,
    },
  });
}

function post(agent: Agent, port: number, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/validate/fail",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      },
    );
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

interface Scrape {
  status: number;
  bytes: number;
  ms: number;
  lines: number;
  /** `nodejs_heap_size_used_bytes` as the scrape reports it (absent before kyverno-ts exposed it). */
  heapMiB?: number;
}

function scrape(port: number): Promise<Scrape> {
  const start = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/metrics", timeout: 300_000 }, (res) => {
      let bytes = 0;
      let lines = 0;
      let tail = "";
      res.on("data", (c: Buffer) => {
        bytes += c.length;
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        tail = (tail + c.toString()).slice(-4096);
      });
      res.on("end", () => {
        const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(tail)?.[1];
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          lines,
          ms: performance.now() - start,
          ...(heap === undefined ? {} : { heapMiB: Number(heap) / 2 ** 20 }),
        });
      });
      res.on("error", () => resolve({ status: 0, bytes, lines, ms: performance.now() - start }));
    });
    req.on("error", () => resolve({ status: 0, bytes: 0, lines: 0, ms: performance.now() - start }));
    req.end();
  });
}

function memory(pid: number): { rssMiB: number; hwmMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: kib("VmRSS") / 1024, hwmMiB: kib("VmHWM") / 1024 };
}

const mib = (n: number) => `${n.toFixed(0)} MiB`;

async function main(): Promise<void> {
  const server = await startServer();
  const pid = server.child.pid as number;
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca: server.caCertPem });
    const idle = memory(pid);
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < namespaces) {
          const status = await post(agent, server.port, review(next++));
          if (status !== 200) failed++;
        }
      }),
    );
    const sendSeconds = (performance.now() - started) / 1000;
    agent.destroy();
    const loaded = memory(pid);
    console.log(
      `${namespaces} namespaces: ${namespaces} requests in ${sendSeconds.toFixed(1)} s (${failed} failed); ` +
        `RSS idle ${mib(idle.rssMiB)}, after the requests ${mib(loaded.rssMiB)}` +
        (metricsConfig ? `; metrics config ${metricsConfig}` : ""),
    );
    for (let i = 1; i <= scrapes; i++) {
      const s = await scrape(server.metricsPort);
      const m = memory(pid);
      console.log(
        `scrape ${i}: HTTP ${s.status}, ${(s.bytes / 2 ** 20).toFixed(1)} MiB, ${s.lines} lines, ` +
          `${s.ms.toFixed(0)} ms; RSS ${mib(m.rssMiB)}, peak ${mib(m.hwmMiB)}` +
          (s.heapMiB === undefined ? "" : `; V8 heap used ${mib(s.heapMiB)}`),
      );
    }
  } finally {
    server.child.kill("SIGTERM");
  }
}

await main();
