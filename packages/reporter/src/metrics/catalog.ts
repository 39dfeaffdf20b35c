/**
 * Policy Reporter's metric families in one table (name, type, labels in detailed mode, description,
 * status against upstream Policy Reporter): `metrics.ts` registers them, the docs table
 * (`docs/monitoring.md`) and the monitoring tests read it.
 */

/** One family of the reporter's `/metrics`. */
export interface ReporterMetricFamily {
  readonly name: string;
  readonly type: "counter" | "gauge";
  /** Labels in `metrics.mode: detailed` (simple and custom modes keep a subset of the result labels). */
  readonly labels: readonly string[];
  readonly help: string;
  /** `upstream`: Policy Reporter's own name and labels; `kyverno-ts`: this project's addition. */
  readonly origin: "upstream" | "kyverno-ts";
}

const RESULT_LABELS = [
  "rule",
  "policy",
  "report",
  "kind",
  "name",
  "status",
  "severity",
  "category",
  "source",
];

/** The families, by the key `METRIC_NAMES` uses. */
export const REPORTER_METRIC_FAMILIES = {
  result: {
    name: "policy_report_result",
    type: "gauge",
    labels: ["namespace", ...RESULT_LABELS],
    help: "Results of namespaced policy reports, by label set",
    origin: "upstream",
  },
  clusterResult: {
    name: "cluster_policy_report_result",
    type: "gauge",
    labels: RESULT_LABELS,
    help: "Results of cluster policy reports, by label set",
    origin: "upstream",
  },
  issues: {
    name: "policy_reporter_report_issues_total",
    type: "counter",
    labels: ["code"],
    help: "Problems found in ingested reports (malformed results, truncated fields), by code",
    origin: "kyverno-ts",
  },
  storeErrors: {
    name: "policy_reporter_store_errors_total",
    type: "counter",
    labels: ["code"],
    help: "Failed database operations, by code",
    origin: "kyverno-ts",
  },
  notificationErrors: {
    name: "policy_reporter_notification_errors_total",
    type: "counter",
    labels: ["target", "code"],
    help: "Failed notification attempts and dropped notifications, by target and code",
    origin: "kyverno-ts",
  },
  watchErrors: {
    name: "policy_reporter_watch_errors_total",
    type: "counter",
    labels: ["kind"],
    help: "Failed lists and watches of report kinds, by kind",
    origin: "kyverno-ts",
  },
} as const satisfies Record<string, ReporterMetricFamily>;
