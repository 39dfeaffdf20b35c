/** The public shapes of the reports controller: its options, its handle and its statistics. */
import type { ContextLoader, Engine } from "@kyverno-ts/engine";
import type { KubeClient } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { ClusterEvents } from "../../events/cluster-events.js";
import type { ServiceFetch } from "../../external-data/service-call.js";
import type { Logger } from "../../logger.js";
import type { ReportLimits } from "../../reports/report-builder.js";
import type { ReportingSettings } from "../../reports/reporting.js";
import type { BoundedResultQueue } from "../admission/results.js";
import type { ReportsMetrics } from "./metrics.js";

/** Bounds of the context entries loaded during scans. */
export interface ScanContextLimits {
  /** Per fetch (default 10 s). */
  timeoutMs?: number;
  /** Largest response used, in bytes of JSON (default 2,000,000, upstream's `--maxAPICallResponseLength`). */
  maxResponseBytes?: number;
  /** How long an answer is reused between full scans, which always start fresh (default 60 s). */
  ttlMs?: number;
  /** For `apiCall.service` entries (default: undici's `fetch`). */
  fetch?: ServiceFetch;
}

/** How replicas elect the one that writes (upstream: Lease `kyverno-reports-controller`, 12 s / 10 s / 2 s). */
export interface ReportsLeaderElection {
  /** Namespace of the Lease (upstream: the namespace Kyverno runs in). */
  namespace: string;
  /** This replica's identity (the Pod name). */
  identity: string;
  /** Lease name (default `kyverno-reports-controller`). */
  name?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** Options of `createReportsController`. */
export interface ReportsControllerOptions {
  /** Shared client; its QPS / burst limits bound the controller's API traffic. */
  client: KubeClient;
  /**
   * Evaluates policies; its clock stamps the results. Pass a factory to have context entries
   * (`configMap`, `apiCall`, `globalReference`) loaded through the controller's client: it is called
   * once with the loader to create the engine with (`(contextLoader) => createEngine({ contextLoader })`).
   * An engine without that loader leaves such entries unset, so their rules report `error`.
   */
  engine: Engine | ((contextLoader: ContextLoader) => Engine);
  /** Bounds of context loading (see `ScanContextLimits`). */
  contextLimits?: ScanContextLimits;
  /** Time for the queue, leader election, rescans and durations (default: the system clock). */
  clock?: ServerClock;
  logger?: Logger;
  metrics?: ReportsMetrics;
  /** Concurrent reconciles (upstream `--backgroundScanWorkers`, default 2). */
  workers?: number;
  /** Full rescan period in ms (upstream `--backgroundScanInterval`, default 1 h). */
  scanIntervalMs?: number;
  /** Bounds of each report (default `DEFAULT_REPORT_LIMITS`). */
  limits?: ReportLimits;
  /** Leader election on a Lease, or `false` to write without electing (a single replica). */
  leaderElection: ReportsLeaderElection | false;
  /**
   * Namespaces PolicyExceptions are accepted from, with wildcards (`acceptedExceptionNamespaces` of
   * `--enablePolicyException` / `--exceptionNamespace`); default none: exceptions are ignored, as upstream.
   */
  exceptionNamespaces?: readonly string[];
  /** Admission results to merge into the reports (the admission controller's bounded queue). */
  admissionResults?: Pick<BoundedResultQueue, "drain" | "onAvailable">;
  /**
   * Merge the admission results other processes hand over as EphemeralReports / ClusterEphemeralReports
   * (`reports.kyverno.io/v1`, written by `createEphemeralReportPublisher`), deleting each once merged
   * into its resource's report (default false; `kyverno-ts reports` turns it on).
   */
  ephemeralReports?: boolean;
  /** Resources whose admission results are kept in memory (default 10,000). */
  maxAdmissionResources?: number;
  /**
   * The rule types reported (`--enableReporting`, default all): without `validate`, background scans
   * report nothing (admission and background-controller results still arrive, filtered at their source).
   */
  reporting?: ReportingSettings;
  /**
   * Kubernetes Events of background scans (upstream's `kyverno-scan` source: `PolicyViolation` /
   * `PolicyError` on the resource and the policy, `PolicyApplied`, `PolicySkipped`); none when omitted.
   */
  events?: Pick<ClusterEvents, "policyEvents">;
  /** Retry delays of the informers (default: exponential backoff). */
  informerDelay?: (attempt: number) => number;
  /**
   * Kyverno's ConfigMap, watched: resources its `resourceFilters` cover get no report, and a change
   * requeues every resource (no restart needed). The chart's defaults apply when omitted or absent.
   */
  kyvernoConfigMap?: { namespace: string; name: string };
  /**
   * How scans share the event loop with probes, scrapes and watch events: they yield once they have
   * held it for `sliceMs` (default 10; measured on the clock's `monotonic`), by `yieldTurn` (default a
   * `setImmediate`; tests inject one that counts).
   */
  scanSlicing?: { sliceMs?: number; yieldTurn?: () => Promise<void> };
}

/** Counters of a running controller, for tests, benchmarks and logs. */
export interface ReportsControllerStats {
  leading: boolean;
  /** Keys waiting for a worker. */
  queued: number;
  /** Keys being reconciled. */
  inFlight: number;
  /** Keys waiting for a retry (failed, or waiting for an informer to sync). */
  retrying: number;
  /** Full scans queued (at each leadership start, every period, on `rescan()`). */
  scans: number;
  reconciled: number;
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** Reports this replica knows of. */
  reports: number;
  /** Kinds watched, and kinds policies name that the server does not serve. */
  watchedKinds: string[];
  unresolvedKinds: string[];
}

/** A reports controller; create with `createReportsController`. */
export interface ReportsController {
  /** Starts the informers and campaigns for leadership; resolves once the caches have synced. */
  start(): Promise<void>;
  /**
   * Graceful shutdown: stops accepting work, lets the workers finish the queue (`drain: false`: only
   * what is in flight), hands the lease back and stops the informers.
   */
  stop(options?: { drain?: boolean }): Promise<void>;
  /**
   * Stops the way a killed process does: requests in flight are cut, queued work is lost and the
   * lease is not handed back (another replica takes over when it expires). For failure testing.
   */
  abort(): Promise<void>;
  /** Queues a full scan now that evaluates every resource, as the periodic one (leader only). */
  rescan(): void;
  isLeader(): boolean;
  stats(): ReportsControllerStats;
}
