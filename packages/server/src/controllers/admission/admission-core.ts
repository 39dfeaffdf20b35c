/**
 * The admission controller's core: engine, metrics, policy cache (classic and CEL), handlers and the
 * policy validation endpoints wired together, before any socket is opened. Standalone mode
 * (`admission-controller.ts`) and cluster mode (`cluster/`) build the same core and serve it with
 * `serveAdmission` (`serve.ts`).
 */
import {
  type CelEngine,
  createCelEngine,
  createEngine,
  type Engine,
  type EvaluationLimits,
  type UserInfo,
} from "@kyverno-ts/engine";
import type { ServerClock } from "../../clock.js";
import type { RequestedScheduling } from "../../evaluation-pool/idle-scheduling.js";
import { mirrorCelToPool, mirrorToPool } from "../../evaluation-pool/mirror.js";
import { createEvaluationPool, type EvaluationPool } from "../../evaluation-pool/pool.js";
import type { PolicyEvents } from "../../events/policy-events.js";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { MetricsConfig } from "../../metrics/config.js";
import { type AdmissionMetrics, createAdmissionMetrics } from "../../metrics/metrics.js";
import type { OffloadReason } from "../../metrics/recorder-types.js";
import { type CelPolicyStore, createCelPolicyStore } from "../../policycache/cel-policy-store.js";
import {
  acceptedExceptionNamespaces,
  EXCEPTIONS_DISABLED,
  type ExceptionSettings,
} from "../../policycache/exception-settings.js";
import { createPolicyCache, type PolicyCache } from "../../policycache/policy-cache.js";
import { serverVersion } from "../../version.js";
import type { BackgroundSink } from "./background.js";
import type { BackgroundPermissions } from "./background-permissions.js";
import { type CelAdmissionHandler, celExecutionLabels, createCelAdmissionHandler } from "./cel-handler.js";
import type { KyvernoConfig } from "./filters.js";
import { type AdmissionHandler, createAdmissionHandler } from "./handler.js";
import { createPolicyValidation, type PolicyValidation } from "./policy-validation.js";
import type { RequesterRoles, ResourceKindOf } from "./request.js";
import type { AdmissionResultSink } from "./results.js";

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
const DEFAULT_PRESTART_WORKERS = 0;

/** How the admission core evaluates (see `AdmissionCoreOptions.evaluation`). */
export interface EvaluationSettings {
  /** Evaluation worker threads; 0 evaluates on the event loop that serves requests. */
  workers: number;
  /**
   * Workers started at once, the others when requests need them (default 0: a worker is a V8 isolate
   * with its own copy of the engine and the policies, ~30 MiB before it evaluates anything and more
   * once its code is optimized, while most requests are answered inline and never need one; the first
   * review sent to the pool waits for a worker to start, ~0.4 s of CPU at the workers' lower priority).
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
  /**
   * `--evaluationWorkerScheduling`: how the workers yield the CPU to the serving thread, `idle`
   * (`SCHED_IDLE` where `chrt` can set it, else as `nice`) or `nice` (a lower nice value only, the
   * default here); see evaluation-pool/idle-scheduling.ts.
   */
  workerScheduling?: RequestedScheduling;
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
            ...(evaluation.workerScheduling ? { scheduling: evaluation.workerScheduling } : {}),
          },
          ...(evaluation.workerUrl ? { workerUrl: evaluation.workerUrl } : {}),
          ...(evaluation.execArgv ? { execArgv: evaluation.execArgv } : {}),
        })
      : undefined;
  const metrics = createAdmissionMetrics({
    version: options.version ?? serverVersion(),
    ...(options.metricsConfig ? { config: options.metricsConfig } : {}),
    ...(pool ? { poolStats: () => pool.stats() } : {}),
  });
  const onOffload = (reason: OffloadReason) => metrics.offloaded(reason);
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
    ...(pool ? { evaluator: pool, onOffload } : {}),
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
    ...(pool ? { evaluator: pool, onOffload } : {}),
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
