/**
 * A separate HTTP server for `/metrics` (`--metrics-port`); without that flag the metrics are served
 * by the API server on its own port, as upstream. Basic auth applies here too when configured.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  metrics: ReporterMetrics;
  port: number;
  host?: string;
  basicAuth?: { username: string; password: string };
  logger: Logger;
}

/** A listening metrics server. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function authorized(req: IncomingMessage, auth: { username: string; password: string } | undefined): boolean {
  if (auth === undefined) return true;
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const at = decoded.indexOf(":");
  if (at < 0) return false;
  const user = same(decoded.slice(0, at), auth.username);
  const password = same(decoded.slice(at + 1), auth.password);
  return user && password;
}

/** Starts serving `GET /metrics`; resolves once listening. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    if (!authorized(req, options.basicAuth)) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="policy-reporter"' }).end();
      return;
    }
    options.metrics.expose().then(
      (text) => res.writeHead(200, { "content-type": options.metrics.registry.contentType }).end(text),
      (error: unknown) => {
        options.logger.error({ err: String(error) }, "metrics exposition failed");
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
