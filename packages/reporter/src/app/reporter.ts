/**
 * `startReporter`: the composition root. Store, metrics, notification targets and notifier, ingest,
 * the API server, the report watcher and (optionally) leader election, wired from a validated
 * configuration. The API listens first (so `/ready` answers 503 during the initial sync); the store
 * is rebuilt from the cluster in the background, then the reporter turns ready.
 */

import { type Clock, createSystemClock } from "@kyverno-ts/api";
import { createLeaderElector, type KubeClient, type LeaderElector } from "@kyverno-ts/kube";
import type { Redis } from "ioredis";
import type { Target as ApiTarget } from "../api/contract.js";
import { type ApiServer, createApiServer } from "../api/server.js";
import { reportKindsToWatch } from "../cluster/kinds.js";
import { createControllerLookup, createNamespaceLabelsLookup } from "../cluster/lookups.js";
import { createReportWatcher, type ReportWatcher } from "../cluster/watcher.js";
import { storeOptionsFromConfig } from "../config/database.js";
import { ConfigError } from "../config/read.js";
import { kubeSecretReader, resolveConfigSecrets } from "../config/secrets.js";
import type { ReporterConfig } from "../config/types.js";
import { createEmailReports, type EmailReports } from "../email/reports.js";
import { createIngest, type Ingest } from "../ingest/ingest.js";
import { type Logger, silentLogger } from "../logger.js";
import { createMetrics, type ReporterMetrics } from "../metrics/metrics.js";
import {
  createMemorySeenCache,
  createNotifier,
  createRedisSeenCache,
  type Notifier,
} from "../notify/index.js";
import { createNotifierListener } from "../notify/listener.js";
import { createPolicyCatalog } from "../policies/catalog.js";
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

/** Options of {@link startReporter}. */
export interface ReporterOptions {
  config: ReporterConfig;
  /** The cluster (create with `createKubeClient`); the caller closes it after `stop()`. */
  client: KubeClient;
  logger?: Logger;
  clock?: Clock;
  /** API port (default `api.port`, else 8080; 0: a free port). */
  port?: number;
  /** Listen address (default `0.0.0.0`). */
  host?: string;
  /** Serve `/metrics` on this port instead of the API port. */
  metricsPort?: number;
  /** SQLite file or `:memory:` (default `dbfile`). */
  sqlitePath?: string;
  /** Caps the SQLite database size: writes beyond it fail as on a full disk (`STORE_DISK_FULL`). */
  sqliteMaxSizeBytes?: number;
  /** How long `stop()` waits for queued notifications (default 10 s). */
  shutdownTimeoutMs?: number;
  /** Informer retry delay (tests). */
  retryDelay?: (attempt: number) => number;
  /** Store write retry delays (first, longest; default 1 s and 30 s); tests shorten them. */
  storeRetry?: { backoffMs: number; maxBackoffMs: number };
}

/** A running reporter. */
export interface RunningReporter {
  /** Base URL of the API (`http://127.0.0.1:<port>`). */
  readonly url: string;
  readonly port: number;
  /** Port of the separate metrics server, when `metricsPort` was given. */
  readonly metricsPort: number | undefined;
  readonly store: ReportStore;
  readonly metrics: ReporterMetrics;
  readonly ingest: Ingest;
  readonly api: ApiServer;
  /** The scheduled email reports, when `emailReports.summary` or `.violations` is enabled. */
  readonly email: EmailReports | undefined;
  /** Resolves once the initial sync is done and `/ready` answers 200 (rejects if it failed). */
  readonly synced: Promise<void>;
  /** True when this replica leads (always true without leader election). */
  isLeader(): boolean;
  /** Resolves when every event so far is stored and every notification sent or given up. */
  settled(): Promise<void>;
  /** Graceful shutdown: not ready, leadership released, watch stopped, writes and notifications flushed. */
  stop(): Promise<void>;
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

/**
 * With leader election on a shared database only the leader writes; the others skip their writes
 * (`onSkip` is told, so a replica knows whether the database holds everything it saw).
 */
function leaderOnlyWrites(store: ReportStore, isLeader: () => boolean, onSkip: () => void): ReportStore {
  return {
    ...store,
    write: (ops) => {
      if (isLeader()) return store.write(ops);
      onSkip();
      return Promise.resolve({ upserted: 0, unchanged: 0, deleted: 0, resultsWritten: 0 });
    },
  };
}

/** Resolves once the elector has observed the Lease (or leads), or after `ms`. */
async function leaseObserved(elector: LeaderElector, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!elector.isLeader() && elector.leader() === undefined && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function bounded(work: Promise<unknown>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const outcome = await Promise.race([work.then(() => "done" as const), timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") onTimeout();
}

/**
 * Starts the reporter. Throws a `ConfigError` for configuration the cluster or the targets refuse
 * (a missing Secret, an invalid target option) and a `ReporterError` when the store cannot open;
 * nothing is left running in that case.
 */
export async function startReporter(options: ReporterOptions): Promise<RunningReporter> {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? createSystemClock({ unref: true });
  const { client } = options;
  const config = await resolveConfigSecrets(options.config, {
    readSecret: kubeSecretReader(client, options.config.namespace),
  });
  const election = config.leaderElection;
  const metrics = createMetrics({
    mode: config.metrics.mode,
    customLabels: config.metrics.customLabels,
    ...(config.metrics.filter ? { filter: config.metrics.filter } : {}),
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
  };
  try {
    const storeOptions = storeOptionsFromConfig(config.database, options.sqlitePath ?? config.dbfile, logger);
    if (storeOptions.type === "sqlite" && options.sqliteMaxSizeBytes !== undefined) {
      storeOptions.maxSizeBytes = options.sqliteMaxSizeBytes;
    }
    const store = await createStore(storeOptions);
    cleanups.push(() => store.close());

    let elector: LeaderElector | undefined;
    /** A write was skipped as a follower: the shared database may lack what this replica saw. */
    let skippedWrites = false;
    const isLeader = () => elector === undefined || elector.isLeader();
    const gated = election.enabled && config.database.type !== "sqlite";

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

    let redis: Redis | undefined;
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

    const ingest = createIngest({
      store: gated
        ? leaderOnlyWrites(store, isLeader, () => {
            skippedWrites = true;
          })
        : store,
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
        registerUi(app, { ui: config.ui, logger, ...(basicAuth ? { apiBasicAuth: basicAuth } : {}) }),
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

    // Email reports: scheduled once the store is synced; under leader election only the leader sends.
    const emailConfig = config.emailReports;
    const email: EmailReports | undefined =
      emailConfig.summary.enabled || emailConfig.violations.enabled
        ? createEmailReports({
            config: emailConfig,
            store,
            clock,
            logger,
            ...(election.enabled ? { isActive: isLeader } : {}),
            onError: (f) => metrics.countNotificationError(`email:${f.report}`, f.code),
          })
        : undefined;

    const kinds = await reportKindsToWatch(client, logger);
    const watcher: ReportWatcher = createReportWatcher({
      client,
      ingest,
      kinds,
      logger,
      metrics,
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
    policyWatcher
      .start()
      .catch((error: unknown) => logger.warn({ err: String(error) }, "policy watch failed"));

    let keepalivesStarted = false;
    const startKeepalives = () => {
      if (keepalivesStarted) return;
      keepalivesStarted = true;
      targets.start();
    };
    let stopping = false;
    /** This replica cleared the shared database as leader before its initial sync. */
    let clearedAsLeader = false;
    let synced: Promise<void> = Promise.resolve();
    if (election.enabled) {
      const e = createLeaderElector({
        client,
        namespace: config.namespace,
        name: election.lockName,
        identity: election.podName,
        leaseDurationMs: election.leaseDuration * 1000,
        renewDeadlineMs: election.renewDeadline * 1000,
        retryPeriodMs: election.retryPeriod * 1000,
        onStartedLeading: () => {
          logger.info({ identity: election.podName, lease: election.lockName }, "started leading");
          startKeepalives();
          if (!gated) return;
          // The shared database was written by the previous leader: rebuild it from this replica's view
          // (unless this replica cleared it and has written everything it saw since).
          void synced
            .then(async () => {
              if (stopping || !isLeader()) return;
              if (clearedAsLeader && !skippedWrites) return;
              await store.clear();
              await watcher.requeueAll();
              await ingest.flush();
              await store.optimize();
              logger.info({ reports: watcher.size() }, "database rebuilt by the new leader");
            })
            .catch((error: unknown) => logger.error({ err: String(error) }, "database rebuild failed"));
        },
        onStoppedLeading: () => logger.info({ identity: election.podName }, "stopped leading"),
        onNewLeader: (identity) => logger.info({ leader: identity }, "leader observed"),
        onError: (f) =>
          logger.warn(
            { status: f.status, reason: f.reason, err: f.message },
            "leader election request failed",
          ),
      });
      elector = e;
      e.start();
    }
    synced = (async () => {
      if (!gated) await store.clear();
      else if (elector) {
        // Leading from the start: clear and sync once, instead of syncing and then rebuilding.
        await leaseObserved(elector, election.retryPeriod * 2000);
        if (elector.isLeader()) {
          await store.clear();
          clearedAsLeader = true;
        }
      }
      await watcher.start();
      await ingest.flush();
      if (stopping) return;
      if (!gated || clearedAsLeader) await store.optimize();
      api.setReady(true);
      if (!election.enabled) startKeepalives();
      email?.start();
      logger.info({ reports: watcher.size(), kinds: kinds.map((k) => k.kind) }, "initial sync done; ready");
    })();
    synced.catch((error: unknown) => logger.error({ err: String(error) }, "initial sync failed"));

    logger.info(
      {
        port,
        metricsPort,
        database: config.database.type,
        targets: apiTargets.length,
        leaderElection: election.enabled,
        emailReports: email !== undefined,
      },
      "reporter started",
    );

    const timeoutMs = options.shutdownTimeoutMs ?? 10_000;
    return {
      // The address it listens on; a wildcard address is reached through the loopback one.
      url: `http://${urlHost(options.host ?? "0.0.0.0")}:${port}`,
      port,
      metricsPort,
      store,
      metrics,
      ingest,
      api,
      email,
      synced,
      isLeader,
      async settled() {
        await watcher.drained();
        await ingest.flush();
        await notifier.idle();
      },
      async stop() {
        if (stopping) return;
        stopping = true;
        api.setReady(false);
        await elector?.release();
        await watcher.stop();
        await bounded(email?.stop() ?? Promise.resolve(), timeoutMs, () =>
          logger.warn({ timeoutMs }, "email reports still sending at shutdown were abandoned"),
        );
        // A failing database retries for a while: its pending writes are given up after the timeout
        // (the store is rebuilt from the cluster at the next start).
        await bounded(ingest.close(), timeoutMs, () =>
          logger.warn({ timeoutMs }, "database writes still pending at shutdown were dropped"),
        );
        await bounded(notifier.close(), timeoutMs, () =>
          logger.warn({ timeoutMs }, "notifications still queued at shutdown were dropped"),
        );
        await cleanup();
        logger.info({}, "reporter stopped");
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** How a listen address is written in a URL: wildcards as loopback, IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
