/**
 * The admission controller's composition root: engine, policy cache, handler, validation endpoints,
 * HTTPS webhook server and metrics server wired together. Standalone mode feeds it from files; the
 * cluster mode will feed the same cache from informers.
 */
import { readFileSync } from "node:fs";
import type { Policy, PolicyException } from "@kyverno-ts/api";
import { createEngine } from "@kyverno-ts/engine";
import type { KyvernoConfig } from "./admission/filters.js";
import { createAdmissionHandler } from "./admission/handler.js";
import type { AdmissionResultSink } from "./admission/results.js";
import type { ServerClock } from "./clock.js";
import type { Logger } from "./logger.js";
import { createAdmissionMetrics } from "./metrics/metrics.js";
import {
  createPolicyCache,
  type PolicyCache,
  type PolicyStatus,
  policyKey,
} from "./policycache/policy-cache.js";
import { createPolicyValidation } from "./policycache/policy-validation.js";
import { createMetricsServer } from "./webhooks/metrics-server.js";
import { createWebhookServer, type TlsMaterial } from "./webhooks/server.js";

/** Options of `startAdmissionController`. */
export interface AdmissionControllerOptions {
  policies: readonly Policy[];
  exceptions: readonly PolicyException[];
  config: KyvernoConfig | (() => KyvernoConfig);
  tls: TlsMaterial;
  clock: ServerClock;
  logger: Logger;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics HTTP port (0 picks a free one). */
  metricsPort: number;
  webhookTimeoutSeconds?: number;
  /** `--exceptionNamespace`; all namespaces when unset. */
  exceptionNamespace?: string;
  sink?: AdmissionResultSink;
  /** Reported by `kyverno_info`; defaults to this package's version. */
  version?: string;
}

/** A running admission controller. */
export interface AdmissionController {
  readonly port: number;
  readonly metricsPort: number;
  readonly cache: PolicyCache;
  /** Status of every policy given at start, by key (not-ready ones carry compile messages). */
  readonly statuses: ReadonlyMap<string, PolicyStatus>;
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

/** This package's version, for `kyverno_info`. */
export function serverVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** Builds and starts the controller; resolves once both servers listen. */
export async function startAdmissionController(
  options: AdmissionControllerOptions,
): Promise<AdmissionController> {
  const { clock, logger } = options;
  const exceptionNamespaces = options.exceptionNamespace ? [options.exceptionNamespace] : ["*"];
  const engine = createEngine({ clock, exceptionNamespaces });
  const metrics = createAdmissionMetrics({ version: options.version ?? serverVersion() });
  const cache = createPolicyCache({ engine, metrics });
  const statuses = new Map<string, PolicyStatus>();
  for (const policy of options.policies) statuses.set(policyKey(policy), cache.set(policy));
  cache.setExceptions(options.exceptions);
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger,
    metrics,
    config: options.config,
    ...(options.sink ? { sink: options.sink } : {}),
    webhookTimeoutSeconds: options.webhookTimeoutSeconds ?? 10,
  });
  const validation = createPolicyValidation({
    engine,
    ...(options.exceptionNamespace ? { exceptionNamespace: options.exceptionNamespace } : {}),
  });
  const webhooks = createWebhookServer({ handler, validation, clock, logger, metrics, tls: options.tls });
  const metricsServer = createMetricsServer({ metrics });
  const host = options.host ?? "0.0.0.0";
  const listening = await webhooks.listen({ host, port: options.port });
  let metricsPort: number;
  try {
    metricsPort = (await metricsServer.listen({ host, port: options.metricsPort })).port;
  } catch (error) {
    await webhooks.close();
    throw error;
  }
  return {
    port: listening.port,
    metricsPort,
    cache,
    statuses,
    setCertificate: (cert, key) => webhooks.setCertificate(cert, key),
    async close() {
      await Promise.allSettled([webhooks.close(), metricsServer.close()]);
    },
  };
}
