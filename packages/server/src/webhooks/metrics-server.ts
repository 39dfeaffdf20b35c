/**
 * The plain-HTTP metrics endpoint (`:8000/metrics` by default), separate from the webhook's TLS port,
 * with the health probes of controllers that have no webhook server (the reports controller):
 * `/health/liveness` answers while the process runs, `/health/readiness` while `ready()` holds and
 * the server is not closing.
 */
import { Readable } from "node:stream";
import { fastify } from "fastify";
import type { MetricsSource } from "../metrics/exposition.js";

/** A running metrics server. */
export interface MetricsServer {
  listen(options: { host?: string; port: number }): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
}

/** Options of `createMetricsServer`. */
export interface MetricsServerOptions {
  metrics: Pick<MetricsSource, "chunks" | "contentType">;
  /** Readiness answer (e.g. caches synced); ready while listening when omitted. Never ready once closing. */
  ready?: () => boolean;
}

/** Serves `GET /metrics` with the metrics' text exposition, and the health probes. */
export function createMetricsServer(options: MetricsServerOptions): MetricsServer {
  const app = fastify({ logger: false });
  let closing = false;
  // Streamed: a large exposition is sent chunk by chunk, never held as one string.
  app.get("/metrics", (_request, reply) =>
    reply
      .header("content-type", options.metrics.contentType)
      .send(Readable.from(options.metrics.chunks(), { objectMode: false })),
  );
  app.get("/health/liveness", (_request, reply) => reply.code(200).send("ok"));
  app.get("/health/readiness", (_request, reply) => {
    const ready = !closing && (options.ready?.() ?? true);
    return reply.code(ready ? 200 : 503).send(ready ? "ok" : "not ready");
  });
  return {
    async listen({ host = "0.0.0.0", port }) {
      await app.listen({ host, port });
      const address = app.server.address();
      return { host, port: typeof address === "object" && address !== null ? address.port : port };
    },
    close() {
      closing = true;
      return app.close();
    },
  };
}
