/**
 * The admission controller's composition root: engine, policy cache, handler, validation endpoints,
 * HTTPS webhook server and metrics server wired together. Standalone mode feeds the cache from files
 * (`startAdmissionController`); the cluster mode builds the same core (`createAdmissionCore`), feeds
 * its cache from informers and starts serving (`serveAdmission`) once the certificate is known.
 */
import { readFileSync } from "node:fs";
import type { CelPolicy, Policy, PolicyException } from "@kyverno-ts/api";
import {
  type CelEngine,
  createCelEngine,
  createEngine,
  type Engine,
  type EvaluationLimits,
  type UserInfo,
} from "@kyverno-ts/engine";
import type { BackgroundSink } from "./admission/background.js";
import type { BackgroundPermissions } from "./admission/background-permissions.js";
import {
  type CelAdmissionHandler,
  celExecutionLabels,
  createCelAdmissionHandler,
} from "./admission/cel-handler.js";
import type { KyvernoConfig } from "./admission/filters.js";
import { type AdmissionHandler, createAdmissionHandler } from "./admission/handler.js";
import { createPolicyValidation, type PolicyValidation } from "./admission/policy-validation.js";
import type { RequesterRoles, ResourceKindOf } from "./admission/request.js";
import type { AdmissionResultSink } from "./admission/results.js";
import type { ServerClock } from "./clock.js";
import { certificateValidity } from "./controllers/certificates/certificates.js";
import { mirrorCelToPool, mirrorToPool } from "./evaluation-pool/mirror.js";
import { createEvaluationPool, type EvaluationPool } from "./evaluation-pool/pool.js";
import type { PolicyEvents } from "./events/policy-events.js";
import type { ScanContext } from "./external-data/scan-context.js";
import type { Logger } from "./logger.js";
import type { MetricsConfig } from "./metrics/config.js";
import { type AdmissionMetrics, createAdmissionMetrics } from "./metrics/metrics.js";
import { type CelPolicyStore, celPolicyKey, createCelPolicyStore } from "./policycache/cel-policy-store.js";
import {
  acceptedExceptionNamespaces,
  EXCEPTIONS_DISABLED,
  type ExceptionSettings,
} from "./policycache/exception-settings.js";
import {
  createPolicyCache,
  type PolicyCache,
  type PolicyStatus,
  policyKey,
} from "./policycache/policy-cache.js";
import { createMetricsServer } from "./webhooks/metrics-server.js";
import { createWebhookServer, type TlsMaterial } from "./webhooks/server.js";

/** Options of `createAdmissionCore`. */
export interface AdmissionCoreOptions {
  /** Kyverno's ConfigMap settings, or a getter returning the latest ones. */
  config: KyvernoConfig | (() => KyvernoConfig);
  clock: ServerClock;
  logger: Logger;
  webhookTimeoutSeconds?: number;
  /**
   * `--enablePolicyException` / `--exceptionNamespace`; PolicyExceptions are ignored when omitted,
   * as upstream's default.
   */
  policyExceptions?: ExceptionSettings;
  sink?: AdmissionResultSink;
  /** Kubernetes Events of validate results (cluster mode: `--omitEvents`, `--maxQueuedEvents`). */
  events?: PolicyEvents;
  /** Labels of a namespace for `namespaceSelector` (an informer cache in a cluster). */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  /** `request.roles` / `request.clusterRoles` of a requester (RBAC binding informers in a cluster). */
  resolveRoles?: (user: UserInfo) => RequesterRoles;
  /** Reported by `kyverno_info`; defaults to this package's version. */
  version?: string;
  /** The `kyverno-metrics` ConfigMap (default: every namespace, metric and label). */
  metricsConfig?: MetricsConfig;
  /** Loads a request's ConfigMap, API call and global context data (see `AdmissionHandlerOptions`). */
  externalData?: (timeoutMs: number) => ScanContext;
  /** The kind of an addressed resource, for subresource requests; built-in kinds only when omitted. */
  resourceKind?: ResourceKindOf;
  /** Upstream's auth check of generate / mutate-existing rules at policy validation (none when omitted). */
  backgroundPermissions?: BackgroundPermissions;
  /** Receives generate / mutate-existing work of admitted requests (the UpdateRequest intake). */
  background?: BackgroundSink;
  /**
   * Where policies are evaluated: `workers` threads of an evaluation pool (0, the default here:
   * inline on the event loop), and the engine's per-rule limits.
   */
  evaluation?: EvaluationSettings;
}

/** Evaluation workers started with the admission core (see `EvaluationSettings.prestartWorkers`). */
const DEFAULT_PRESTART_WORKERS = 1;

/** How the admission core evaluates (see `AdmissionCoreOptions.evaluation`). */
export interface EvaluationSettings {
  /** Evaluation worker threads; 0 evaluates on the event loop that serves requests. */
  workers: number;
  /**
   * Workers started at once, the others when requests need them (default 1: the first slow request
   * finds a worker ready; starting one takes a second or more, while the serving thread answers).
   */
  prestartWorkers?: number;
  limits?: Partial<EvaluationLimits>;
  /**
   * With workers: how long (ms) a request is first evaluated on the serving thread before it goes to
   * a worker (`--evaluationInlineMs`, default 5; 0 sends every request to the workers).
   */
  inlineMs?: number;
  /**
   * `--forceFailurePolicyIgnore`: every policy (classic and CEL) is served and evaluated with
   * `failurePolicy: Ignore`, in the workers too, and its webhooks registered as `Ignore`.
   */
  forceFailurePolicyIgnore?: boolean;
  /** The worker module and its `execArgv` (tests run the TypeScript sources). */
  workerUrl?: URL;
  execArgv?: string[];
}

/** Everything that answers admission requests, before any socket is opened. */
export interface AdmissionCore {
  readonly engine: Engine;
  readonly metrics: AdmissionMetrics;
  readonly cache: PolicyCache;
  readonly handler: AdmissionHandler;
  readonly validation: PolicyValidation;
  /** The CEL policies (`policies.kyverno.io`): their engine, store and webhooks. */
  readonly celEngine: CelEngine;
  readonly celPolicies: CelPolicyStore;
  readonly celHandler: CelAdmissionHandler;
  /** The evaluation workers, when `evaluation.workers` > 0. */
  readonly pool: EvaluationPool | undefined;
}

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

/** Options of `startAdmissionController`. */
export interface AdmissionControllerOptions extends AdmissionCoreOptions {
  policies: readonly Policy[];
  exceptions: readonly PolicyException[];
  /** `policies.kyverno.io` policies, compiled into the CEL store (standalone mode). */
  celPolicies?: readonly CelPolicy[];
  tls: TlsMaterial;
  host?: string;
  /** Webhook HTTPS port (0 picks a free one). */
  port: number;
  /** Metrics HTTP port (0 picks a free one). */
  metricsPort: number;
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

/** Builds the engine, metrics, an empty policy cache, the handler and the validation endpoints. */
export function createAdmissionCore(options: AdmissionCoreOptions): AdmissionCore {
  const { clock, logger } = options;
  const policyExceptions = options.policyExceptions ?? EXCEPTIONS_DISABLED;
  const exceptionNamespaces = acceptedExceptionNamespaces(policyExceptions);
  const evaluation = options.evaluation;
  const forceFailurePolicyIgnore = evaluation?.forceFailurePolicyIgnore === true;
  const engine = createEngine({
    clock: clock,
    exceptionNamespaces,
    ...(evaluation?.limits ? { limits: evaluation.limits } : {}),
    ...(options.namespaceLabels ? { namespaceLabels: options.namespaceLabels } : {}),
  });
  const metrics = createAdmissionMetrics({
    version: options.version ?? serverVersion(),
    ...(options.metricsConfig ? { config: options.metricsConfig } : {}),
  });
  const pool =
    evaluation !== undefined && evaluation.workers > 0
      ? createEvaluationPool({
          size: evaluation.workers,
          prestart: evaluation.prestartWorkers ?? DEFAULT_PRESTART_WORKERS,
          clock,
          logger,
          settings: {
            exceptionNamespaces,
            forceFailurePolicyIgnore,
            ...(evaluation.limits ? { limits: evaluation.limits } : {}),
          },
          ...(evaluation.workerUrl ? { workerUrl: evaluation.workerUrl } : {}),
          ...(evaluation.execArgv ? { execArgv: evaluation.execArgv } : {}),
        })
      : undefined;
  const compiledCache = createPolicyCache({ engine, metrics, forceFailurePolicyIgnore });
  const cache = pool ? mirrorToPool(compiledCache, pool) : compiledCache;
  const handler = createAdmissionHandler({
    engine,
    policyCache: cache,
    clock,
    logger,
    metrics,
    config: options.config,
    ...(options.sink ? { sink: options.sink } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.namespaceLabels ? { namespaceLabels: options.namespaceLabels } : {}),
    ...(options.resolveRoles ? { resolveRoles: options.resolveRoles } : {}),
    webhookTimeoutSeconds: options.webhookTimeoutSeconds ?? 10,
    ...(options.externalData ? { externalData: options.externalData } : {}),
    ...(options.resourceKind ? { resourceKind: options.resourceKind } : {}),
    ...(options.background ? { background: options.background } : {}),
    ...(pool ? { evaluator: pool } : {}),
    ...(evaluation?.inlineMs !== undefined ? { inlineMs: evaluation.inlineMs } : {}),
  });
  const celEngine = createCelEngine({
    clock: clock,
    ...(evaluation?.limits?.celCost !== undefined ? { costBudget: evaluation.limits.celCost } : {}),
    ...(options.namespaceLabels ? { namespaceLabels: options.namespaceLabels } : {}),
  });
  const celStore = createCelPolicyStore({ engine: celEngine, forceFailurePolicyIgnore });
  const celPolicies = pool ? mirrorCelToPool(celStore, pool) : celStore;
  const celHandler = createCelAdmissionHandler({
    engine: celEngine,
    store: celPolicies,
    clock,
    logger,
    config: typeof options.config === "function" ? options.config : () => options.config as KyvernoConfig,
    ...(options.sink ? { sink: options.sink } : {}),
    ...(options.namespaceLabels ? { namespaceLabels: options.namespaceLabels } : {}),
    ...(options.resourceKind ? { resourceKind: options.resourceKind } : {}),
    ...(options.background ? { background: options.background } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(pool ? { evaluator: pool } : {}),
    ...(evaluation?.inlineMs !== undefined ? { inlineMs: evaluation.inlineMs } : {}),
    deadlineMs: (options.webhookTimeoutSeconds ?? 10) * 1000,
    onEvaluated: (policy, response, seconds, review) => {
      const labels = celExecutionLabels(policy, response, review);
      if (labels !== undefined) metrics.celPolicyExecution(labels, seconds);
    },
  });
  const validation = createPolicyValidation({
    engine,
    celEngine,
    exceptions: policyExceptions,
    ...(options.backgroundPermissions ? { backgroundPermissions: options.backgroundPermissions } : {}),
  });
  return { engine, metrics, cache, handler, validation, celEngine, celPolicies, celHandler, pool };
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

/** Builds and starts the controller; resolves once both servers listen. */
export async function startAdmissionController(
  options: AdmissionControllerOptions,
): Promise<AdmissionController> {
  const core = createAdmissionCore(options);
  const statuses = new Map<string, PolicyStatus>();
  for (const policy of options.policies) statuses.set(policyKey(policy), core.cache.set(policy));
  core.cache.setExceptions(options.exceptions);
  for (const policy of options.celPolicies ?? []) {
    const status = core.celPolicies.set(policy);
    const key = celPolicyKey({
      kind: policy.kind,
      name: policy.metadata.name,
      namespace: policy.metadata.namespace,
    });
    statuses.set(key, {
      ready: status.ready,
      message: status.message,
      autogenRules: [],
      issues: status.issues,
    });
  }
  const servers = await serveAdmission(core, {
    tls: options.tls,
    clock: options.clock,
    logger: options.logger,
    ...(options.host !== undefined ? { host: options.host } : {}),
    port: options.port,
    metricsPort: options.metricsPort,
  });
  return {
    port: servers.port,
    metricsPort: servers.metricsPort,
    cache: core.cache,
    statuses,
    setCertificate: (cert, key) => servers.setCertificate(cert, key),
    close: () => servers.close(),
  };
}
