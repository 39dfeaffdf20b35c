/**
 * What the parts of the reports controller share: the components built when it is created (caches,
 * informers, the report index, the reconcile function, the elector) and what changes while it runs
 * (the leadership term, the counters, the keys waiting for a retry or for a term).
 */
import type { LeaderElector, ReconcileContext, ReconcileResult, WorkQueue } from "@kyverno-ts/kube";
import type { ServerClock } from "../../clock.js";
import type { ClusterState } from "../../cluster-state/cluster-state.js";
import type { ScanContext } from "../../external-data/scan-context.js";
import type { Logger } from "../../logger.js";
import type { CelPolicyStore } from "../../policycache/cel-policy-store.js";
import type { PolicyCache } from "../../policycache/policy-cache.js";
import type { ReportIndex } from "../../reports/report-index.js";
import type { AdmissionResultStore } from "./admission-results.js";
import type { CelReports } from "./cel-reports.js";
import type { EphemeralIntake } from "./ephemeral-intake.js";
import type { ReportsMetrics } from "./metrics.js";
import type { ResourceInformers } from "./resource-informers.js";
import type { ScanSlicer } from "./scan-slicer.js";
import type { ReportsControllerOptions } from "./types.js";

/** The Lease replicas elect the writer on, as upstream. */
export const REPORTS_LEASE_NAME = "kyverno-reports-controller";
/** The `controller_name` label of the queue metrics. */
export const REPORTS_CONTROLLER_NAME = "background-scan-controller";

/** What the controller did since it started (the stats and the "full scan done" log). */
export interface ScanCounters {
  scans: number;
  reconciled: number;
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** Counters of a controller that did nothing yet. */
export const zeroCounters = (): ScanCounters => ({
  scans: 0,
  reconciled: 0,
  created: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
});

/** One leadership term: its queue, the full scan in progress and the next periodic rescan. */
export interface Term {
  queue: WorkQueue<string>;
  /** The full scan being worked through: when it was queued and the counters then. */
  scan?: { startedAt: number; before: ScanCounters };
  cancelRescan: () => void;
}

/** The components a controller is made of, built once by `createControllerParts`. */
export interface ControllerParts {
  options: ReportsControllerOptions;
  clock: ServerClock;
  logger: Logger;
  metrics: ReportsMetrics | undefined;
  /** Concurrent reconciles of a term. */
  workers: number;
  scanIntervalMs: number;
  /** Cuts the controller's client off (`abort()`). */
  sever: () => void;
  context: ScanContext;
  cache: PolicyCache;
  celPolicies: CelPolicyStore;
  celReports: CelReports;
  admission: AdmissionResultStore;
  cluster: ClusterState;
  informers: ResourceInformers;
  index: ReportIndex;
  slicer: ScanSlicer;
  /** None without leader election: the controller leads from its start. */
  elector: LeaderElector | undefined;
  ephemeral: EphemeralIntake | undefined;
  reconcile: (key: string, context: ReconcileContext) => Promise<ReconcileResult | undefined>;
}

/** What changes while a controller runs. */
export interface ControllerRun {
  counters: ScanCounters;
  /** Keys whose last reconcile failed and are queued again with backoff. */
  retrying: Set<string>;
  /** Policies already warned about as wildcard policies (once each). */
  warnedAnyKind: Set<string>;
  /**
   * Resources the admission intake named while no term was running (before leadership, or between
   * terms): reconciled when the next term starts, so their admission rows are not lost. Bounded as
   * the admission result store is (`maxPending`).
   */
  pendingKeys: Set<string>;
  maxPending: number;
  inFlight: number;
  term: Term | undefined;
  stopped: boolean;
  drainScheduled: boolean;
  unsubscribe: (() => void) | undefined;
}

/** A controller: its parts and its run. */
export type ControllerState = ControllerParts & ControllerRun;

/** The run of a controller that has not started. */
export function initialRun(options: ReportsControllerOptions): ControllerRun {
  return {
    counters: zeroCounters(),
    retrying: new Set(),
    warnedAnyKind: new Set(),
    pendingKeys: new Set(),
    maxPending: options.maxAdmissionResources ?? 10_000,
    inFlight: 0,
    term: undefined,
    stopped: false,
    drainScheduled: false,
    unsubscribe: undefined,
  };
}

/** Whether this replica may write now: it runs a term and (with leader election) holds the Lease. */
export function canWrite(s: ControllerState): boolean {
  return s.term !== undefined && (s.elector === undefined || s.elector.isLeader());
}
