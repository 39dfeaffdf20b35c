/** Serving an admission core: the HTTPS webhook server and the metrics server. */
import type { ServerClock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { createMetricsServer } from "../../webhooks/metrics-server.js";
import { createWebhookServer, type TlsMaterial } from "../../webhooks/server.js";
import { certificateValidity } from "../certificates/certificates.js";
import type { AdmissionCore } from "./admission-core.js";

/** Options of `serveAdmission`. */
export interface ServeOptions {
  tls: TlsMaterial;
  clock: ServerClock;
  logger: Logger;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics HTTP port (0 picks a free one); no metrics server when undefined. */
  metricsPort?: number;
  /** Readiness probe answer; ready when omitted. */
  ready?: () => boolean;
}

/** The listening servers of a core. */
export interface AdmissionServers {
  readonly port: number;
  /** The metrics port, or 0 when no metrics server was started. */
  readonly metricsPort: number;
  /** Replaces the serving certificate for new connections; throws (keeping the old one) on a bad pair. */
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

/** Starts the webhook server (and the metrics server when `metricsPort` is set) of a core. */
export async function serveAdmission(core: AdmissionCore, options: ServeOptions): Promise<AdmissionServers> {
  const { clock, logger } = options;
  const webhooks = createWebhookServer({
    handler: core.handler,
    validation: core.validation,
    celHandler: core.celHandler,
    clock,
    logger,
    metrics: core.metrics,
    tls: options.tls,
    ...(options.ready ? { ready: options.ready } : {}),
  });
  const certificateServed = (certPem: string): void => {
    try {
      core.metrics.certificateExpiry("serving", certificateValidity(certPem).notAfter);
    } catch {
      // Not a certificate the metrics can read: the server's own checks report it.
    }
  };
  certificateServed(options.tls.certPem);
  const host = options.host ?? "0.0.0.0";
  const listening = await webhooks.listen({ host, port: options.port });
  let metricsPort = 0;
  let metricsServer: ReturnType<typeof createMetricsServer> | undefined;
  if (options.metricsPort !== undefined) {
    metricsServer = createMetricsServer({ metrics: core.metrics });
    try {
      metricsPort = (await metricsServer.listen({ host, port: options.metricsPort })).port;
    } catch (error) {
      await webhooks.close();
      throw error;
    }
  }
  return {
    port: listening.port,
    metricsPort,
    setCertificate(cert, key) {
      webhooks.setCertificate(cert, key);
      certificateServed(cert);
    },
    async close() {
      await Promise.allSettled([webhooks.close(), metricsServer?.close()]);
      await core.pool?.close();
    },
  };
}
