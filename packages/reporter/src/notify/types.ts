/**
 * The notifier's input (report events) and its seen-results cache contract.
 */
import type { NotifiableResult, ReportRef, ResultStatus } from "../targets/index.js";

/** A report as the notifier sees it: its identity, labels and scope, and all its current results. */
export interface NotifierReport extends ReportRef {
  /** Report ID (fnv-1a 64 of name and namespace, as upstream). */
  id: string;
  /** Creation time of the report object, Unix epoch milliseconds. */
  creationTimestamp?: number;
  results: readonly NotifiableResult[];
}

/** A report lifecycle event from ingest. */
export type ReportEvent =
  | { type: "added" | "updated"; report: NotifierReport }
  | { type: "deleted"; report: Pick<NotifierReport, "id"> };

/** What one event led to (for logs and metrics); sends themselves happen later, in each target's queue. */
export interface NotifyOutcome {
  /** New fail / warn / error results (before per-target filtering and start-up skipping). */
  newResults: number;
  /** Failures that turned to pass. */
  resolved: number;
}

/** An open failure found by `SeenCache.resolve`: the status it had and whether it predates start-up. */
export interface OpenFailure {
  status: ResultStatus;
  existing: boolean;
}

/**
 * Which result IDs of a report were already seen, and which failures are open, possibly shared between
 * replicas. Every method is atomic per key, so of two replicas handling the same event exactly one gets a
 * given ID from `claim` and a given key from `resolve`. Entries not refreshed for the TTL expire.
 */
export interface SeenCache {
  /** Marks the report's current result IDs as seen and refreshes their TTL; returns those seen first here. */
  claim(reportId: string, resultIds: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * Opens a failure marker per key in `opened` (for results this caller claimed) and refreshes the TTL of the
   * markers in `stillFailing`.
   */
  trackFailures(
    reportId: string,
    opened: ReadonlyMap<string, OpenFailure>,
    stillFailing: readonly string[],
  ): Promise<void>;
  /** Removes the markers of `keys`; returns those this call removed. */
  resolve(reportId: string, keys: readonly string[]): Promise<ReadonlyMap<string, OpenFailure>>;
  /** Drops everything about a deleted report. */
  forget(reportId: string): Promise<void>;
}

/** How long vanished result IDs and open failures are remembered (upstream: 6 h). */
export const DEFAULT_SEEN_TTL_MS = 6 * 60 * 60 * 1000;
