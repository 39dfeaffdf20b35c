/**
 * `createReportWatcher`: one {@link createReportStream} per report kind, feeding ingest directly.
 * Nothing of a report is cached here (ingest keeps each report's events in order and batches the
 * writes); the list is read page by page and the watch waits while too many reports are waiting
 * for the store, so memory stays about a page however many reports the cluster holds. Watch
 * failures are retried with backoff, logged and counted.
 */
import type { Clock } from "@kyverno-ts/api";
import { exponentialBackoff, type KubeClient } from "@kyverno-ts/kube";
import type { Ingest, IngestOutcome } from "../ingest/ingest.js";
import type { Logger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import type { ReportKindSpec } from "./kinds.js";
import { createReportStream, type ReportStream, type StreamFailure } from "./report-stream.js";

/** Options of {@link createReportWatcher}. */
export interface ReportWatcherOptions {
  client: KubeClient;
  ingest: Pick<Ingest, "upsert" | "delete">;
  kinds: readonly ReportKindSpec[];
  logger: Logger;
  metrics?: Pick<ReporterMetrics, "countWatchError">;
  /** Reports per kind handed to ingest and not yet stored before the list or watch waits (default 1000). */
  maxInFlight?: number;
  /** Retry delay per attempt (default exponential backoff from 0.8 s to 30 s). */
  retryDelay?: (attempt: number) => number;
  /** Times the streams' retry pauses and watch lifetimes (default the system clock). */
  clock?: Clock;
}

/** Watches the report kinds; create with {@link createReportWatcher}. */
export interface ReportWatcher {
  /** Starts listing and watching; resolves once every kind is listed and every listed report was handed to ingest. */
  start(): Promise<void>;
  /** Lists every kind again and hands over every report (a store rebuild); resolves when handed over. */
  requeueAll(): Promise<void>;
  /** Resolves when every report handed over so far is stored (or its write failed). */
  drained(): Promise<void>;
  /** Number of reports known (listed or watched, not deleted). */
  size(): number;
  /** Stops listing and watching. */
  stop(): Promise<void>;
}

/** Creates the watcher; nothing happens before `start()`. */
export function createReportWatcher(options: ReportWatcherOptions): ReportWatcher {
  const { client, logger } = options;
  const delay = options.retryDelay ?? exponentialBackoff();
  const logged = (kind: string, name: string | undefined, handed: Promise<IngestOutcome>) =>
    handed.then(
      (outcome) => {
        if (outcome.status === "failed")
          logger.debug({ kind, name, code: outcome.error.code }, "report not stored");
        return outcome;
      },
      (error: unknown) => {
        logger.error({ kind, name, err: String(error) }, "report ingest failed");
        throw error;
      },
    );
  const nameOf = (object: unknown) => (object as { metadata?: { name?: string } }).metadata?.name;
  const onFailure = (kind: string) => (f: StreamFailure) => {
    options.metrics?.countWatchError(kind);
    const hint = f.failure.status === 404 ? " (is the CRD installed?)" : "";
    logger.warn(
      {
        kind,
        status: f.failure.status,
        reason: f.failure.reason,
        attempt: f.attempt,
        retryInMs: f.retryInMs,
        err: f.failure.message,
      },
      `${f.source} of ${kind} failed${hint}; retrying`,
    );
  };
  const streams: ReportStream[] = options.kinds.map((spec) =>
    createReportStream({
      client,
      apiVersion: spec.apiVersion,
      kind: spec.kind,
      ingest: {
        upsert: (object, o) => logged(spec.kind, nameOf(object), options.ingest.upsert(object, o)),
        delete: (object, o) => logged(spec.kind, nameOf(object), options.ingest.delete(object, o)),
      },
      delay,
      onFailure: onFailure(spec.kind),
      ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}),
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    }),
  );

  return {
    async start() {
      await Promise.all(streams.map((s) => s.start()));
    },
    async requeueAll() {
      await Promise.all(streams.map((s) => s.resync()));
    },
    async drained() {
      await Promise.all(streams.map((s) => s.drained()));
    },
    size: () => streams.reduce((n, s) => n + s.size(), 0),
    async stop() {
      await Promise.all(streams.map((s) => s.stop()));
    },
  };
}
