/**
 * The reporter's parts, one function per concern, in the order `startReporter` creates them: the
 * store, the notification targets, the seen-cache (Redis or memory) with the notifier, ingest, the
 * API server (and the separate metrics server), the email reports and the report and policy watchers.
 * Each registers how it is closed in the start's cleanups; leadership and the initial sync are in
 * `reporter-leader.ts`.
 */
import type { Clock } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { Target as ApiTarget } from "../api/contract.js";
import { type ApiServer, createApiServer } from "../api/server.js";
import { type ReportKindSpec, reportKindsToWatch } from "../cluster/kinds.js";
import { createControllerLookup, createNamespaceLabelsLookup } from "../cluster/lookups.js";
import { createReportWatcher, type ReportWatcher } from "../cluster/watcher.js";
import { storeOptionsFromConfig } from "../config/database.js";
import { ConfigError } from "../config/read.js";
import type { ReporterConfig } from "../config/types.js";
import { createEmailReports, type EmailReports } from "../email/reports.js";
import { createIngest, type Ingest, type IngestListener } from "../ingest/ingest.js";
import type { Logger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import {
  createMemorySeenCache,
  createNotifier,
  createRedisSeenCache,
  type Notifier,
} from "../notify/index.js";
import { createNotifierListener } from "../notify/listener.js";
import { createPolicyCatalog, type PolicyCatalog } from "../policies/catalog.js";
import { createPolicyWatcher } from "../policies/watcher.js";
import { createStore } from "../store/connect.js";
import type { ReportStore } from "../store/types.js";
import {
  createTargetsFromConfig,
  TargetConfigError,
  type TargetDescription,
  type TargetSet,
} from "../targets/index.js";
import { registerUi } from "../ui/index.js";
import { startMetricsServer } from "./metrics-server.js";
import { createRedisClient } from "./redis.js";
import type { ReporterOptions } from "./reporter-types.js";

/** How the parts created so far are closed, in reverse order (see `runCleanups`). */
export type Cleanups = (() => Promise<unknown>)[];

/** Closes what was created, last first, ignoring failures. */
export async function runCleanups(cleanups: Cleanups): Promise<void> {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
}

/** What every part is created from. */
export interface ReporterBase {
  readonly options: ReporterOptions;
  readonly config: ReporterConfig;
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: ReporterMetrics;
  readonly cleanups: Cleanups;
  /** True when this replica leads (always true without leader election). */
  readonly isLeader: () => boolean;
}

function apiTarget(d: TargetDescription): ApiTarget {
  return {
    name: d.name,
    type: d.kind,
    minimumSeverity: d.minimumSeverity ?? "",
    sources: d.sources,
    skipExistingOnStartup: d.skipExistingOnStartup,
  };
}

/** Opens the store (SQLite, PostgreSQL or MariaDB) the configuration names. */
export async function openStore({ options, config, logger, cleanups }: ReporterBase): Promise<ReportStore> {
  const storeOptions = storeOptionsFromConfig(config.database, options.sqlitePath ?? config.dbfile, logger);
  if (storeOptions.type === "sqlite" && options.sqliteMaxSizeBytes !== undefined) {
    storeOptions.maxSizeBytes = options.sqliteMaxSizeBytes;
  }
  const store = await createStore(storeOptions);
  cleanups.push(() => store.close());
  return store;
}

/** The notification targets; an invalid target option is a `ConfigError`. */
export function createTargets({ config, client, clock, logger, metrics, cleanups }: ReporterBase): TargetSet {
  let targets: TargetSet;
  try {
    targets = createTargetsFromConfig(config.target, {
      clock,
      logger,
      onError: (f) => metrics.countNotificationError(f.target, f.code),
      namespaceLabels: createNamespaceLabelsLookup({ client, clock, logger }),
    });
  } catch (error) {
    if (error instanceof TargetConfigError) throw new ConfigError(error.path, error.reason);
    throw error;
  }
  cleanups.push(() => targets.close());
  return targets;
}

/** The notifier and the ingest listener feeding it. */
export interface Notification {
  notifier: Notifier;
  listener: IngestListener;
}

/** The seen-cache (shared in Redis when enabled, else in memory), the notifier and its listener. */
export function createNotification(base: ReporterBase, targets: TargetSet): Notification {
  const { config, clock, logger, metrics, cleanups, isLeader } = base;
  const election = config.leaderElection;
  let redis: ReturnType<typeof createRedisClient> | undefined;
  if (config.redis.enabled) {
    const r = createRedisClient(config.redis, logger);
    redis = r;
    cleanups.push(async () => {
      if (r.status === "ready") await r.quit().catch(() => r.disconnect());
      else r.disconnect();
    });
  }
  const cache = redis
    ? createRedisSeenCache(redis, { prefix: config.redis.prefix })
    : createMemorySeenCache({}, { clock });
  // Report and result timestamps have second precision: compare with the start second.
  const startedAt = Math.floor(clock.now() / 1000) * 1000;
  // Under leader election only the leader sends. A replica with its own memory cache keeps detecting
  // while it follows (so a takeover resends nothing); with the shared Redis cache followers stay out of it.
  const notifier: Notifier = createNotifier(
    {
      targets: targets.bindings,
      cache,
      startedAt,
      ...(election.enabled && !redis ? { active: isLeader } : {}),
    },
    { clock, logger, onError: (f) => metrics.countNotificationError(f.target, f.code) },
  );
  const listener = createNotifierListener({
    notifier,
    clock,
    logger,
    ...(election.enabled && redis ? { isActive: isLeader } : {}),
    onGiveUp: () => metrics.countNotificationError("*", "CACHE"),
  });
  return { notifier, listener };
}

/** Ingest: reports filtered, written to `store` (the store as seen by this replica) and notified. */
export function createReporterIngest(
  { options, config, client, clock, logger, metrics }: ReporterBase,
  store: ReportStore,
  targets: TargetSet,
  listener: IngestListener,
): Ingest {
  return createIngest({
    store,
    metrics,
    clock,
    logger,
    filters: {
      reportFilter: config.reportFilter,
      sourceFilters: config.sourceFilters,
      isControlled: createControllerLookup({ client, clock, logger }),
    },
    listeners: targets.bindings.length > 0 ? [listener] : [],
    ...(options.storeRetry
      ? { writeBackoffMs: options.storeRetry.backoffMs, writeMaxBackoffMs: options.storeRetry.maxBackoffMs }
      : {}),
  });
}

/** The API as it listens. */
export interface ServedApi {
  api: ApiServer;
  port: number;
  /** The separate metrics server's port, when one was started. */
  metricsPort: number | undefined;
  /** The targets the API lists. */
  apiTargets: ApiTarget[];
  /** The policy details the API serves (filled by the policy watcher). */
  policies: PolicyCatalog;
}

/** Creates the API server (with the dashboard) and listens, then the separate metrics server if any. */
export async function serveApi(
  base: ReporterBase,
  store: ReportStore,
  ingest: Ingest,
  targets: TargetSet,
): Promise<ServedApi> {
  const { options, config, clock, logger, metrics, cleanups } = base;
  const separateMetrics = options.metricsPort !== undefined;
  const auth = config.api.basicAuth;
  const basicAuth = auth.username ? { username: auth.username, password: auth.password } : undefined;
  const apiTargets = targets.descriptions.map(apiTarget);
  // With the dashboard's login on, the login guards the API (and still accepts `basicAuth`).
  const login = config.ui.openIDConnect.enabled || config.ui.basicAuth.username !== "";
  const policies = createPolicyCatalog();
  const api = await createApiServer({
    store,
    logger,
    policies,
    targets: () => apiTargets,
    setup: (app) =>
      registerUi(app, {
        ui: config.ui,
        logger,
        // Session and login-transaction tokens expire on the reporter's clock.
        now: () => clock.now(),
        ...(basicAuth ? { apiBasicAuth: basicAuth } : {}),
      }),
    ...(basicAuth && !login ? { basicAuth } : {}),
    notReady: () => {
      const behind = ingest.storeBehind();
      if (!behind) return undefined;
      const since = new Date(behind.since).toISOString();
      return `store behind the cluster: ${behind.pending} report writes waiting since ${since} for the ${config.database.type} database (${behind.code})`;
    },
    ...(config.metrics.enabled && !separateMetrics ? { metrics } : {}),
  });
  cleanups.push(() => api.close());
  const host = options.host ?? "0.0.0.0";
  await api.listen({ port: options.port ?? config.api.port ?? 8080, host });
  const address = api.app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  let metricsPort: number | undefined;
  if (separateMetrics && config.metrics.enabled) {
    const server = await startMetricsServer({
      metrics,
      port: options.metricsPort ?? 0,
      host,
      logger,
      ...(basicAuth ? { basicAuth } : {}),
    });
    metricsPort = server.port;
    cleanups.push(() => server.close());
  }
  return { api, port, metricsPort, apiTargets, policies };
}

/** Email reports (scheduled once the store is synced; under leader election only the leader sends). */
export function createEmail(
  { config, clock, logger, metrics, isLeader }: ReporterBase,
  store: ReportStore,
): EmailReports | undefined {
  const emailConfig = config.emailReports;
  return emailConfig.summary.enabled || emailConfig.violations.enabled
    ? createEmailReports({
        config: emailConfig,
        store,
        clock,
        logger,
        ...(config.leaderElection.enabled ? { isActive: isLeader } : {}),
        onError: (f) => metrics.countNotificationError(`email:${f.report}`, f.code),
      })
    : undefined;
}

/** The report watcher (not started) over the report kinds the cluster serves. */
export interface ReportWatching {
  kinds: ReportKindSpec[];
  watcher: ReportWatcher;
}

/** Creates the report watcher, and creates and starts the policy watcher. */
export async function watchReports(
  { options, client, clock, logger, metrics, cleanups }: ReporterBase,
  ingest: Ingest,
  policies: ServedApi["policies"],
): Promise<ReportWatching> {
  const kinds = await reportKindsToWatch(client, logger);
  const watcher: ReportWatcher = createReportWatcher({
    client,
    ingest,
    kinds,
    logger,
    metrics,
    clock,
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
  });

  // Policy details (read-only, never part of readiness): served as soon as they are listed.
  const policyWatcher = createPolicyWatcher({
    client,
    catalog: policies,
    logger,
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
  });
  cleanups.push(() => policyWatcher.stop());
  policyWatcher.start().catch((error: unknown) => logger.warn({ err: String(error) }, "policy watch failed"));
  return { kinds, watcher };
}
