/** The plain-HTTP metrics endpoint (`:8000/metrics` by default), separate from the webhook's TLS port. */
import { fastify } from "fastify";
import type { AdmissionMetrics } from "../metrics/metrics.js";

/** A running metrics server. */
export interface MetricsServer {
  listen(options: { host?: string; port: number }): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
}

/** Serves `GET /metrics` with the metrics' text exposition. */
export function createMetricsServer(options: {
  metrics: Pick<AdmissionMetrics, "render" | "contentType">;
}): MetricsServer {
  const app = fastify({ logger: false });
  app.get("/metrics", async (_request, reply) => {
    const text = await options.metrics.render();
    return reply.header("content-type", options.metrics.contentType).send(text);
  });
  return {
    async listen({ host = "0.0.0.0", port }) {
      await app.listen({ host, port });
      const address = app.server.address();
      return { host, port: typeof address === "object" && address !== null ? address.port : port };
    },
    close: () => app.close(),
  };
}
