/**
 * Dev harness: the reporter's API (SQLite in memory, seeded with realistic PolicyReports through
 * the ingest) and the built dashboard on one port, for trying the UI and for the browser tests.
 *
 *   npm run build -w @kyverno-ts/reporter-ui && node packages/reporter-ui/scripts/demo-server.ts [--port 8082] [--namespaces 0]
 *
 * API paths are answered by the reporter's fastify app (`inject`, no second port); everything
 * else is a file of `dist/` (`/` is `index.html`).
 */
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type ApiServer,
  createApiServer,
  createIngest,
  createPolicyCatalog,
  createStore,
  type ReportStore,
} from "@kyverno-ts/reporter";
import { type DemoDataOptions, demoReports } from "./demo-data.ts";
import { demoPolicies } from "./demo-policies.ts";

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions extends DemoDataOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The built UI; default `../dist`. */
  distDir?: string;
  /** Serve Kyverno policy details as if watching a cluster (default true; false: as a reporter outside one). */
  policyDetails?: boolean;
}

/** A running demo server. */
export interface DemoServer {
  /** `http://host:port/`. */
  readonly url: string;
  /** Number of results stored. */
  readonly results: number;
  /** Ingests more raw reports (tests add violations). */
  ingest(reports: readonly unknown[]): Promise<void>;
  close(): Promise<void>;
}

const API_PREFIXES = ["/v1/", "/v2/", "/healthz", "/ready", "/metrics"];
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

const DEMO_TARGETS = [
  {
    name: "platform-alerts",
    type: "Slack",
    minimumSeverity: "high",
    sources: ["kyverno"],
    skipExistingOnStartup: true,
  },
  { name: "loki", type: "Loki", minimumSeverity: "", sources: [], skipExistingOnStartup: true },
  {
    name: "security-team",
    type: "Teams",
    minimumSeverity: "critical",
    sources: ["trivy"],
    skipExistingOnStartup: false,
  },
];

async function serveApi(api: ApiServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const reply = await api.app.inject({
    method: req.method === "HEAD" ? "HEAD" : "GET",
    url: req.url ?? "/",
    headers: req.headers,
  });
  const headers: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(reply.headers)) {
    if (value !== undefined && key !== "transfer-encoding" && key !== "connection")
      headers[key] = String(value);
  }
  res.writeHead(reply.statusCode, headers);
  res.end(reply.rawPayload);
}

async function serveFile(dist: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
  const file = normalize(join(dist, path === "/" ? "index.html" : path));
  if (!file.startsWith(dist)) {
    res.writeHead(403).end();
    return;
  }
  try {
    if (!(await stat(file)).isFile()) throw new Error("not a file");
    const body = await readFile(file);
    const immutable = file.includes(`${join(dist, "assets")}`);
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  }
}

/** Seeds a store, starts the API and the file server; resolves once listening. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const dist = resolve(options.distDir ?? fileURLToPath(new URL("../dist", import.meta.url)));
  await stat(join(dist, "index.html")).catch(() => {
    throw new Error(`no built UI in ${dist}: run npm run build -w @kyverno-ts/reporter-ui`);
  });
  const store: ReportStore = await createStore({ type: "sqlite", path: ":memory:" });
  const ingest = createIngest({ store });
  const add = async (reports: readonly unknown[]) => {
    for (const report of reports) {
      const outcome = await ingest.upsert(report);
      if (outcome.status === "invalid" || outcome.status === "failed") {
        throw new Error(`demo report rejected: ${JSON.stringify(outcome.error)}`);
      }
    }
    await ingest.flush();
  };
  await add(demoReports(options));
  const policies = createPolicyCatalog();
  if (options.policyDetails !== false) {
    policies.setWatched(["ClusterPolicy", "Policy"]);
    for (const policy of demoPolicies()) policies.upsert(policy);
  }
  const api = await createApiServer({ store, ready: true, targets: () => DEMO_TARGETS, policies });

  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    const handle =
      req.method !== "GET" && req.method !== "HEAD"
        ? Promise.resolve(void res.writeHead(405).end())
        : API_PREFIXES.some((p) => path.startsWith(p))
          ? serveApi(api, req, res)
          : serveFile(dist, req, res);
    handle.catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", ok);
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  const counted = await store.results({}, { page: 1, offset: 1 });
  return {
    url: `http://${host}:${port}/`,
    results: counted.count,
    ingest: add,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
      await ingest.close();
      await api.close();
      await store.close();
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8082" },
      host: { type: "string", default: "127.0.0.1" },
      namespaces: { type: "string", default: "0" },
    },
  });
  const demo = await startDemoServer({
    port: Number(values.port),
    host: values.host,
    extraNamespaces: Number(values.namespaces),
  });
  console.log(`Policy Reporter demo: ${demo.url} (${demo.results} results)`);
  const stop = () => void demo.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
