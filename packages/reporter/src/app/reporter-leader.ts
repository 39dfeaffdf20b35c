/**
 * The reporter's life after its parts exist (`reporter-parts.ts`): leader election (a new leader of a
 * shared database rebuilds it from its own view), the initial sync that turns the reporter ready, and
 * the graceful stop. What changes while it runs is kept in one `ReporterRun` per start.
 */
import { type Clock, sleep } from "@kyverno-ts/api";
import { createLeaderElector, type LeaderElector } from "@kyverno-ts/kube";
import type { ApiServer } from "../api/server.js";
import type { ReportKindSpec } from "../cluster/kinds.js";
import type { ReportWatcher } from "../cluster/watcher.js";
import type { EmailReports } from "../email/reports.js";
import type { Ingest } from "../ingest/ingest.js";
import type { Notifier } from "../notify/index.js";
import type { ReportStore } from "../store/types.js";
import type { TargetSet } from "../targets/index.js";
import { type ReporterBase, runCleanups } from "./reporter-parts.js";

/** What changes while one started reporter runs. */
export interface ReporterRun {
  elector: LeaderElector | undefined;
  /** A write was skipped as a follower: the shared database may lack what this replica saw. */
  skippedWrites: boolean;
  keepalivesStarted: boolean;
  stopping: boolean;
  /** This replica cleared the shared database as leader before its initial sync. */
  clearedAsLeader: boolean;
  synced: Promise<void>;
}

/** A run that has not started anything. */
export function newRun(): ReporterRun {
  return {
    elector: undefined,
    skippedWrites: false,
    keepalivesStarted: false,
    stopping: false,
    clearedAsLeader: false,
    synced: Promise.resolve(),
  };
}

/** The started reporter's parts. */
export interface ReporterParts extends ReporterBase {
  readonly store: ReportStore;
  readonly targets: TargetSet;
  readonly notifier: Notifier;
  readonly ingest: Ingest;
  readonly api: ApiServer;
  readonly email: EmailReports | undefined;
  readonly kinds: readonly ReportKindSpec[];
  readonly watcher: ReportWatcher;
  /** Leader election on a shared database: only the leader writes. */
  readonly gated: boolean;
  readonly run: ReporterRun;
}

/**
 * With leader election on a shared database only the leader writes; the others skip their writes
 * (`onSkip` is told, so a replica knows whether the database holds everything it saw).
 */
export function leaderOnlyWrites(
  store: ReportStore,
  isLeader: () => boolean,
  onSkip: () => void,
): ReportStore {
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
async function leaseObserved(elector: LeaderElector, ms: number, clock: Clock): Promise<void> {
  const until = clock.now() + ms;
  while (!elector.isLeader() && elector.leader() === undefined && clock.now() < until) {
    await sleep(clock, 50);
  }
}

/** Waits for `work`, at most `ms` on `clock`; `onTimeout` when it took longer. */
async function bounded(
  work: Promise<unknown>,
  ms: number,
  clock: Clock,
  onTimeout: () => void,
): Promise<void> {
  let cancel: (() => void) | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    cancel = clock.after(ms, () => resolve("timeout"));
  });
  const outcome = await Promise.race([work.then(() => "done" as const), timeout]);
  cancel?.();
  if (outcome === "timeout") onTimeout();
}

/** Starts the targets' keepalives once. */
function startKeepalives({ run, targets }: ReporterParts): void {
  if (run.keepalivesStarted) return;
  run.keepalivesStarted = true;
  targets.start();
}

/**
 * On taking over a shared database: rebuilds it from this replica's view once synced (unless this
 * replica cleared it and has written everything it saw since).
 */
function rebuildAsNewLeader(r: ReporterParts): void {
  const { run, store, watcher, ingest, logger } = r;
  void run.synced
    .then(async () => {
      if (run.stopping || !r.isLeader()) return;
      if (run.clearedAsLeader && !run.skippedWrites) return;
      await store.clear();
      await watcher.requeueAll();
      await ingest.flush();
      await store.optimize();
      logger.info({ reports: watcher.size() }, "database rebuilt by the new leader");
    })
    .catch((error: unknown) => logger.error({ err: String(error) }, "database rebuild failed"));
}

/** With `leaderElection.enabled`: elects, the leader sending keepalives and owning the shared database. */
export function startElection(r: ReporterParts): void {
  const { config, client, clock, logger, run } = r;
  const election = config.leaderElection;
  if (!election.enabled) return;
  const e = createLeaderElector({
    client,
    clock,
    namespace: config.namespace,
    name: election.lockName,
    identity: election.podName,
    leaseDurationMs: election.leaseDuration * 1000,
    renewDeadlineMs: election.renewDeadline * 1000,
    retryPeriodMs: election.retryPeriod * 1000,
    onStartedLeading: () => {
      logger.info({ identity: election.podName, lease: election.lockName }, "started leading");
      startKeepalives(r);
      if (!r.gated) return;
      // The shared database was written by the previous leader: rebuild it from this replica's view.
      rebuildAsNewLeader(r);
    },
    onStoppedLeading: () => logger.info({ identity: election.podName }, "stopped leading"),
    onNewLeader: (identity) => logger.info({ leader: identity }, "leader observed"),
    onError: (f) =>
      logger.warn({ status: f.status, reason: f.reason, err: f.message }, "leader election request failed"),
  });
  run.elector = e;
  e.start();
}

/** The initial sync: the store cleared (by the leader, when shared), every report listed, then ready. */
export async function initialSync(r: ReporterParts): Promise<void> {
  const { store, run, config, watcher, ingest, api, logger } = r;
  const election = config.leaderElection;
  if (!r.gated) await store.clear();
  else if (run.elector) {
    // Leading from the start: clear and sync once, instead of syncing and then rebuilding.
    await leaseObserved(run.elector, election.retryPeriod * 2000, r.clock);
    if (run.elector.isLeader()) {
      await store.clear();
      run.clearedAsLeader = true;
    }
  }
  await watcher.start();
  await ingest.flush();
  if (run.stopping) return;
  if (!r.gated || run.clearedAsLeader) await store.optimize();
  api.setReady(true);
  if (!election.enabled) startKeepalives(r);
  r.email?.start();
  logger.info({ reports: watcher.size(), kinds: r.kinds.map((k) => k.kind) }, "initial sync done; ready");
}

/** Resolves when every event so far is stored and every notification sent or given up. */
export async function settled({ watcher, ingest, notifier }: ReporterParts): Promise<void> {
  await watcher.drained();
  await ingest.flush();
  await notifier.idle();
}

/** Graceful shutdown: not ready, leadership released, watch stopped, writes and notifications flushed. */
export async function stopReporter(r: ReporterParts): Promise<void> {
  const { run, logger } = r;
  if (run.stopping) return;
  run.stopping = true;
  const timeoutMs = r.options.shutdownTimeoutMs ?? 10_000;
  r.api.setReady(false);
  await run.elector?.release();
  await r.watcher.stop();
  await bounded(r.email?.stop() ?? Promise.resolve(), timeoutMs, r.clock, () =>
    logger.warn({ timeoutMs }, "email reports still sending at shutdown were abandoned"),
  );
  // A failing database retries for a while: its pending writes are given up after the timeout
  // (the store is rebuilt from the cluster at the next start).
  await bounded(r.ingest.close(), timeoutMs, r.clock, () =>
    logger.warn({ timeoutMs }, "database writes still pending at shutdown were dropped"),
  );
  await bounded(r.notifier.close(), timeoutMs, r.clock, () =>
    logger.warn({ timeoutMs }, "notifications still queued at shutdown were dropped"),
  );
  await runCleanups(r.cleanups);
  logger.info({}, "reporter stopped");
}
