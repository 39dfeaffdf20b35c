/** The reporter's contract: its options and what a running one offers (`startReporter`). */
import type { Clock } from "@kyverno-ts/api";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ApiServer } from "../api/server.js";
import type { ReporterConfig } from "../config/types.js";
import type { EmailReports } from "../email/reports.js";
import type { Ingest } from "../ingest/ingest.js";
import type { Logger } from "../logger.js";
import type { ReporterMetrics } from "../metrics/metrics.js";
import type { ReportStore } from "../store/types.js";

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
