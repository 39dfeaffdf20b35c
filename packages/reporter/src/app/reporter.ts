/**
 * `startReporter`: the composition root. Store, metrics, notification targets and notifier, ingest,
 * the API server, the report watcher and (optionally) leader election, wired from a validated
 * configuration. The API listens first (so `/ready` answers 503 during the initial sync); the store
 * is rebuilt from the cluster in the background, then the reporter turns ready.
 */

import { createSystemClock } from "@kyverno-ts/api";
import { kubeSecretReader, resolveConfigSecrets } from "../config/secrets.js";
import { silentLogger } from "../logger.js";
import { createMetrics } from "../metrics/metrics.js";
import {
  initialSync,
  leaderOnlyWrites,
  newRun,
  type ReporterParts,
  settled,
  startElection,
  stopReporter,
} from "./reporter-leader.js";
import {
  type Cleanups,
  createEmail,
  createNotification,
  createReporterIngest,
  createTargets,
  openStore,
  type ReporterBase,
  runCleanups,
  serveApi,
  watchReports,
} from "./reporter-parts.js";
import type { ReporterOptions, RunningReporter } from "./reporter-types.js";

export type { ReporterOptions, RunningReporter } from "./reporter-types.js";

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
  const cleanups: Cleanups = [];
  try {
    const run = newRun();
    const isLeader = () => run.elector === undefined || run.elector.isLeader();
    const gated = election.enabled && config.database.type !== "sqlite";
    const base: ReporterBase = { options, config, client, logger, clock, metrics, cleanups, isLeader };
    const store = await openStore(base);
    const targets = createTargets(base);
    const { notifier, listener } = createNotification(base, targets);
    const ingestStore = gated
      ? leaderOnlyWrites(store, isLeader, () => {
          run.skippedWrites = true;
        })
      : store;
    const ingest = createReporterIngest(base, ingestStore, targets, listener);
    const served = await serveApi(base, store, ingest, targets);
    const email = createEmail(base, store);
    const { kinds, watcher } = await watchReports(base, ingest, served.policies);
    const parts: ReporterParts = {
      ...base,
      store,
      targets,
      notifier,
      ingest,
      api: served.api,
      email,
      kinds,
      watcher,
      gated,
      run,
    };
    startElection(parts);
    run.synced = initialSync(parts);
    run.synced.catch((error: unknown) => logger.error({ err: String(error) }, "initial sync failed"));

    const { port, metricsPort } = served;
    logger.info(
      {
        port,
        metricsPort,
        database: config.database.type,
        targets: served.apiTargets.length,
        leaderElection: election.enabled,
        emailReports: email !== undefined,
      },
      "reporter started",
    );

    return {
      // The address it listens on; a wildcard address is reached through the loopback one.
      url: `http://${urlHost(options.host ?? "0.0.0.0")}:${port}`,
      port,
      metricsPort,
      store,
      metrics,
      ingest,
      api: served.api,
      email,
      synced: run.synced,
      isLeader,
      settled: () => settled(parts),
      stop: () => stopReporter(parts),
    };
  } catch (error) {
    await runCleanups(cleanups);
    throw error;
  }
}

/** How a listen address is written in a URL: wildcards as loopback, IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
