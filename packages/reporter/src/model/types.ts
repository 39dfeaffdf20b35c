/**
 * The normalised report model: what ingest produces from PolicyReport / ClusterPolicyReport
 * (wgpolicyk8s.io/v1alpha2) and Report / ClusterReport (openreports.io/v1alpha1), and what the
 * store, metrics and notifications consume. One shape for all four kinds.
 */

/** Result outcomes, as the PolicyReport CRD defines them. */
export const STATUSES = ["pass", "fail", "warn", "error", "skip"] as const;

/** The outcome of one result. */
export type Status = (typeof STATUSES)[number];

/** Severities in increasing order (`minimumSeverity` compares by this order). */
export const SEVERITIES = ["info", "low", "medium", "high", "critical"] as const;

/** A known severity; results without one carry `""` (shown as `unknown`). */
export type Severity = (typeof SEVERITIES)[number];

/** The category given to results that name none, as upstream. */
export const DEFAULT_CATEGORY = "Other";

/** The report kinds ingest accepts. */
export type ReportKind = "PolicyReport" | "ClusterPolicyReport" | "Report" | "ClusterReport";

/** The Kubernetes object a report or result is about. */
export interface ResourceRef {
  /** Stable ID (fnv-1a 64 of the uid, or of apiVersion/kind/namespace/name without one). */
  readonly id: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** `""` for cluster-scoped objects. */
  readonly namespace: string;
  readonly uid: string;
}

/** One normalised result. A source result naming several resources becomes one result per resource. */
export interface Result {
  /** Result ID: the `resultID` property, or fnv-1a 64 of the documented fields (see `ids.ts`). */
  readonly id: string;
  readonly source: string;
  readonly policy: string;
  readonly rule: string;
  readonly status: Status;
  readonly severity: Severity | "";
  readonly category: string;
  readonly message: string;
  readonly scored: boolean;
  /** Unix seconds; 0 when the source gave none. */
  readonly timestamp: number;
  readonly properties: Readonly<Record<string, string>>;
  /** The resource the result is about: its own reference, else the report's scope. */
  readonly resource: ResourceRef | undefined;
}

/** One normalised report. */
export interface Report {
  /** Report ID: fnv-1a 64 of namespace and name (see `ids.ts`). */
  readonly id: string;
  readonly kind: ReportKind;
  readonly name: string;
  /** `""` for cluster reports. */
  readonly namespace: string;
  /** The source of the first result that names one, else `""`. */
  readonly source: string;
  readonly labels: Readonly<Record<string, string>>;
  /** The object the report is about (Kyverno writes one report per resource). */
  readonly scope: ResourceRef | undefined;
  /** Creation time in epoch milliseconds (0 if unknown). */
  readonly created: number;
  readonly results: readonly Result[];
}

/** Counts of results by status. */
export type StatusCounts = Record<Status, number>;

/** True when the report is cluster-scoped (ClusterPolicyReport or ClusterReport). */
export function isClusterReport(report: Pick<Report, "kind">): boolean {
  return report.kind === "ClusterPolicyReport" || report.kind === "ClusterReport";
}

/** Counts the results of a report by status. */
export function countStatuses(results: readonly Pick<Result, "status">[]): StatusCounts {
  const counts: StatusCounts = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const r of results) counts[r.status]++;
  return counts;
}

/** True if `value` is a {@link Status}. */
export function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

/** True if `value` is a {@link Severity}. */
export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}
