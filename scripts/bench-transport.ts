// Kube client transport benchmark (not a test): N creates of small ConfigMaps against the local API
// server (a child process serving HTTP/2 and HTTP/1.1, as kube-apiserver does), sent by the kube client
// as it is (`createKubeClient().create`) and by bare HTTP clients with the same headers and body:
// node:https with a keep-alive agent, undici (a Pool of keep-alive connections, one pipelining
// Client, and allowH2) and node:http2 (one session). Prints, per client and concurrency, the wall time,
// the client's CPU per request (process.cpuUsage) and the server's (/proc), the best of --rounds runs
// (clients interleaved within a round). The machine is shared: compare clients within one run.
// Usage: node scripts/bench-transport.ts [--requests 5000] [--concurrency 2,8] [--rounds 2] [--only name,...]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import * as http2 from "node:http2";
import * as https from "node:https";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, Pool } from "undici";
import { createKubeClient } from "../packages/kube/dist/index.js";

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

interface Served {
  kubeconfigPath: string;
  url: string;
  caCertPem: string;
  token: string;
}

/** Child mode: the sandbox with HTTP/2 on, until stdin closes. */
async function serve(): Promise<void> {
  const { startSandbox } = await import("../packages/sandbox/dist/index.js");
  const http2 = !process.argv.includes("--http1-only");
  const sandbox = await startSandbox({ admission: false, http2, watchHistorySize: 1000 });
  const served: Served = {
    kubeconfigPath: sandbox.kubeconfigPath,
    url: sandbox.url,
    caCertPem: sandbox.caCertPem,
    token: sandbox.users["kubernetes-admin"] ?? Object.values(sandbox.users)[0] ?? "",
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => void sandbox.stop().then(() => process.exit(0)));
}

/** Sends one create (the body given) and resolves with the decoded answer; throws on a non-201. */
type Send = (body: string) => Promise<unknown>;

interface Contender {
  name: string;
  open(served: Served, concurrency: number): { send: Send; close(): void };
}

const PATH = "/api/v1/namespaces/bench/configmaps";

function headersOf(served: Served): Record<string, string> {
  return {
    "User-Agent": "kyverno-ts",
    Authorization: `Bearer ${served.token}`,
    Accept: "application/json",
    "Content-Type": "application/json",
  };
}

function created(status: number | undefined, text: string): unknown {
  if (status !== 201) throw new Error(`HTTP ${status}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

const CONTENDERS: Contender[] = [
  {
    name: "kube client (createKubeClient)",
    open(served) {
      const client = createKubeClient({ kubeconfigPath: served.kubeconfigPath, qps: 0 });
      return {
        async send(body) {
          const answer = await client.create(JSON.parse(body) as { apiVersion: string; kind: string });
          if (!answer.ok) throw new Error(answer.message);
          return answer.value;
        },
        close: () => client.close(),
      };
    },
  },
  {
    name: "node:https keep-alive agent",
    open(served) {
      const agent = new https.Agent({ keepAlive: true, ca: served.caCertPem });
      const url = new URL(served.url);
      const headers = headersOf(served);
      return {
        send: (body) =>
          new Promise((resolve, reject) => {
            const buffer = Buffer.from(body);
            const req = https.request(
              {
                hostname: url.hostname,
                port: Number(url.port),
                path: PATH,
                method: "POST",
                agent,
                headers: { ...headers, "Content-Length": String(buffer.length) },
              },
              (res) => {
                const chunks: Buffer[] = [];
                res.on("data", (c: Buffer) => chunks.push(c));
                res.on("end", () => {
                  try {
                    resolve(created(res.statusCode, Buffer.concat(chunks).toString("utf8")));
                  } catch (error) {
                    reject(error);
                  }
                });
              },
            );
            req.on("error", reject);
            req.end(buffer);
          }),
        close: () => agent.destroy(),
      };
    },
  },
  ...(
    [
      [
        "undici Pool (keep-alive)",
        (s: Served, c: number) => new Pool(s.url, { connections: c, connect: { ca: s.caCertPem } }),
      ],
      [
        "undici Client (pipelining)",
        (s: Served, c: number) => new Client(s.url, { pipelining: c, connect: { ca: s.caCertPem } }),
      ],
      [
        "undici Client (allowH2)",
        (s: Served, c: number) =>
          new Client(s.url, { allowH2: true, pipelining: c, connect: { ca: s.caCertPem } }),
      ],
    ] as const
  ).map(
    ([name, make]): Contender => ({
      name,
      open(served, concurrency) {
        const dispatcher = make(served, concurrency);
        const headers = headersOf(served);
        return {
          async send(body) {
            const res = await dispatcher.request({ path: PATH, method: "POST", headers, body });
            return created(res.statusCode, await res.body.text());
          },
          close: () => void dispatcher.close(),
        };
      },
    }),
  ),
  {
    name: "node:http2 session",
    open(served) {
      const session = http2.connect(served.url, { ca: served.caCertPem });
      const headers = Object.fromEntries(
        Object.entries(headersOf(served)).map(([k, v]) => [k.toLowerCase(), v]),
      );
      return {
        send: (body) =>
          new Promise((resolve, reject) => {
            const stream = session.request({ ...headers, ":method": "POST", ":path": PATH });
            let status: number | undefined;
            let text = "";
            stream.setEncoding("utf8");
            stream.on("response", (h) => {
              status = h[":status"];
            });
            stream.on("data", (chunk: string) => {
              text += chunk;
            });
            stream.on("end", () => {
              try {
                resolve(created(status, text));
              } catch (error) {
                reject(error);
              }
            });
            stream.on("error", reject);
            stream.end(body);
          }),
        close: () => session.close(),
      };
    },
  },
];

/** User + system CPU seconds of a process. */
function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Figures {
  wallS: number;
  clientUs: number;
  serverUs: number;
}

let serial = 0;
const bodyOf = (): string =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `cm-${serial++}`, namespace: "bench" },
    data: { key: "value" },
  });

async function measure(
  send: Send,
  requests: number,
  concurrency: number,
  serverPid: number,
): Promise<Figures> {
  // Warm-up: connections open, code compiled.
  await Promise.all(Array.from({ length: concurrency }, () => send(bodyOf())));
  for (let i = 0; i < 300; i++) await send(bodyOf());
  const server = procCpuSeconds(serverPid);
  const cpu = process.cpuUsage();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await send(bodyOf());
    }),
  );
  const wallS = (performance.now() - start) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return {
    wallS,
    clientUs: (user + system) / requests,
    serverUs: ((procCpuSeconds(serverPid) - server) * 1e6) / requests,
  };
}

async function main(): Promise<void> {
  const requests = Number(flag("requests", "5000"));
  const rounds = Number(flag("rounds", "2"));
  const levels = flag("concurrency", "2,8").split(",").map(Number);
  const only = flag("only", "").split(",").filter(Boolean);
  const contenders = CONTENDERS.filter((c) => only.length === 0 || only.some((o) => c.name.includes(o)));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--serve-sandbox"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once("line", resolve),
  );
  const served = JSON.parse(line) as Served;
  const setup = createKubeClient({ kubeconfigPath: served.kubeconfigPath, qps: 0 });
  const ns = await setup.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "bench" } });
  if (!ns.ok) throw new Error(ns.message);
  setup.close();
  // HTTP/2 offered by the server? (ALPN, as a client offering both would see it.)
  const probe = http2.connect(served.url, { ca: served.caCertPem });
  const alpn = await new Promise<string>((resolve) => {
    probe.once("connect", (s) => resolve(String(s.alpnProtocol)));
    probe.once("error", (e) => resolve(`error: ${e.message}`));
  });
  probe.close();
  console.log(
    `kube transport benchmark: ${requests} creates of small ConfigMaps per client and concurrency, best of ${rounds} rounds; server ALPN for h2: ${alpn}; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  const best = new Map<string, Figures>();
  for (let round = 0; round < rounds; round++) {
    for (const concurrency of levels) {
      const order = round % 2 === 0 ? contenders : [...contenders].reverse();
      for (const contender of order) {
        const { send, close } = contender.open(served, concurrency);
        const figures = await measure(send, requests, concurrency, child.pid as number);
        close();
        const key = `${concurrency}\t${contender.name}`;
        const previous = best.get(key);
        if (previous === undefined || figures.clientUs < previous.clientUs) best.set(key, figures);
      }
    }
  }
  console.log("concurrency | client | wall s | client CPU µs/request | server CPU µs/request");
  for (const concurrency of levels)
    for (const contender of contenders) {
      const f = best.get(`${concurrency}\t${contender.name}`) as Figures;
      console.log(
        `${concurrency} | ${contender.name} | ${f.wallS.toFixed(2)} | ${f.clientUs.toFixed(0)} | ${f.serverUs.toFixed(0)}`,
      );
    }
  console.log(`load after: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  child.stdin.end();
}

if (process.argv[2] === "--serve-sandbox") await serve();
else await main();
