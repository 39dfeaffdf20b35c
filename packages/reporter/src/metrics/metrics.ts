/**
 * Prometheus metrics: the `policy_report_result` / `cluster_policy_report_result` gauges (one
 * series per label set, valued by the number of results with it; in detailed mode that is 1 per
 * result; see result-gauge.ts for how they are kept) and the reporter's own error counters.
 */
import { Counter, Registry } from "prom-client";
import type { ReporterErrorCode } from "../errors.js";
import { isClusterReport, type Report } from "../model/types.js";
import { REPORTER_METRIC_FAMILIES } from "./catalog.js";
import {
  compileMetricsFilter,
  labelsFor,
  labelValues,
  type MetricsFilter,
  type MetricsMode,
  type ResultLabel,
} from "./labels.js";
import { ResultGauge } from "./result-gauge.js";

/** Options of {@link createMetrics}, as `metrics.*` in the configuration. */
export interface MetricsOptions {
  /** `metrics.mode`; default `detailed`. */
  mode?: MetricsMode;
  /** `metrics.customLabels`, for custom mode. */
  customLabels?: readonly string[];
  /** `metrics.filter`. */
  filter?: MetricsFilter;
  /** Registry to register in; default a new one (never the global registry). */
  registry?: Registry;
}

/** The reporter's metrics. */
export interface ReporterMetrics {
  readonly registry: Registry;
  /** Replaces the series of a report with those of its current results. */
  upsertReport(report: Report): void;
  /** Removes the series of a report. */
  deleteReport(reportId: string): void;
  /** Counts a problem found in a report (`policy_reporter_report_issues_total{code}`). */
  countIssue(code: ReporterErrorCode): void;
  /** Counts a failed store operation (`policy_reporter_store_errors_total{code}`). */
  countStoreError(code: ReporterErrorCode): void;
  /**
   * Counts a failed notification attempt or a dropped notification
   * (`policy_reporter_notification_errors_total{target,code}`; `code` as `DeliveryErrorCode`, or `CACHE`
   * when the seen-results cache failed).
   */
  countNotificationError(target: string, code: string): void;
  /** Counts a failed list or watch of a report kind (`policy_reporter_watch_errors_total{kind}`). */
  countWatchError(kind: string): void;
  /** The text exposition format, for `/metrics`. */
  expose(): Promise<string>;
}

const FAMILIES = REPORTER_METRIC_FAMILIES;

/** Names of the metrics this module registers (from `catalog.ts`). */
export const METRIC_NAMES = {
  result: FAMILIES.result.name,
  clusterResult: FAMILIES.clusterResult.name,
  issues: FAMILIES.issues.name,
  storeErrors: FAMILIES.storeErrors.name,
  notificationErrors: FAMILIES.notificationErrors.name,
  watchErrors: FAMILIES.watchErrors.name,
} as const;

/** Creates the metrics; throws `CONFIG_INVALID` for unknown custom labels. */
export function createMetrics(options: MetricsOptions = {}): ReporterMetrics {
  const registry = options.registry ?? new Registry();
  const namespaced = labelsFor(options.mode ?? "detailed", options.customLabels);
  const clusterLabels = namespaced.filter((l) => l !== "namespace");
  const accept = compileMetricsFilter(options.filter);
  const gauges = {
    namespaced: new ResultGauge({
      name: METRIC_NAMES.result,
      help: FAMILIES.result.help,
      labelNames: namespaced,
      registry,
    }),
    cluster: new ResultGauge({
      name: METRIC_NAMES.clusterResult,
      help: FAMILIES.clusterResult.help,
      labelNames: clusterLabels,
      registry,
    }),
  };
  const issues = new Counter({
    name: METRIC_NAMES.issues,
    help: FAMILIES.issues.help,
    labelNames: FAMILIES.issues.labels,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: METRIC_NAMES.storeErrors,
    help: FAMILIES.storeErrors.help,
    labelNames: FAMILIES.storeErrors.labels,
    registers: [registry],
  });
  const notificationErrors = new Counter({
    name: METRIC_NAMES.notificationErrors,
    help: FAMILIES.notificationErrors.help,
    labelNames: FAMILIES.notificationErrors.labels,
    registers: [registry],
  });
  const watchErrors = new Counter({
    name: METRIC_NAMES.watchErrors,
    help: FAMILIES.watchErrors.help,
    labelNames: FAMILIES.watchErrors.labels,
    registers: [registry],
  });
  const remove = (reportId: string) => {
    gauges.namespaced.removeReport(reportId);
    gauges.cluster.removeReport(reportId);
  };

  return {
    registry,
    upsertReport(report) {
      const isCluster = isClusterReport(report);
      const names: readonly ResultLabel[] = isCluster ? clusterLabels : namespaced;
      const values: string[] = [];
      for (const result of report.results) {
        if (!accept(report, result)) continue;
        const all = labelValues(report, result);
        for (const n of names) values.push(all[n]);
      }
      (isCluster ? gauges.cluster : gauges.namespaced).setReport(report.id, values);
    },
    deleteReport: remove,
    countIssue: (code) => issues.inc({ code }),
    countStoreError: (code) => storeErrors.inc({ code }),
    countNotificationError: (target, code) => notificationErrors.inc({ target, code }),
    countWatchError: (kind) => watchErrors.inc({ kind }),
    expose: () => registry.metrics(),
  };
}
