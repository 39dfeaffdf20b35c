/**
 * Prometheus metrics: the `policy_report_result` / `cluster_policy_report_result` gauges (one
 * series per label set, valued by the number of results with it; in detailed mode that is 1 per
 * result) and the reporter's own error counters. Each report's contribution is remembered, so an
 * update or delete removes the series that no result carries any more.
 */
import { Counter, Gauge, Registry } from "prom-client";
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

interface Series {
  labels: Record<string, string>;
  count: number;
}

/** One gauge with the bookkeeping of which report contributes what to which series. */
function trackedGauge(gauge: Gauge<string>) {
  const series = new Map<string, Series>();
  return {
    add(key: string, labels: Record<string, string>, delta: number) {
      const entry = series.get(key) ?? { labels, count: 0 };
      entry.count += delta;
      if (entry.count <= 0) {
        series.delete(key);
        gauge.remove(entry.labels);
      } else {
        series.set(key, entry);
        gauge.set(entry.labels, entry.count);
      }
    },
  };
}

/** Creates the metrics; throws `CONFIG_INVALID` for unknown custom labels. */
export function createMetrics(options: MetricsOptions = {}): ReporterMetrics {
  const registry = options.registry ?? new Registry();
  const namespaced = labelsFor(options.mode ?? "detailed", options.customLabels);
  const cluster = namespaced.filter((l) => l !== "namespace");
  const accept = compileMetricsFilter(options.filter);
  const gauges = {
    namespaced: trackedGauge(
      new Gauge({
        name: METRIC_NAMES.result,
        help: FAMILIES.result.help,
        labelNames: namespaced,
        registers: [registry],
      }),
    ),
    cluster: trackedGauge(
      new Gauge({
        name: METRIC_NAMES.clusterResult,
        help: FAMILIES.clusterResult.help,
        labelNames: cluster,
        registers: [registry],
      }),
    ),
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
  /** Per report: which gauge, and how many results per series key. */
  const contributions = new Map<string, { cluster: boolean; counts: Map<string, Series> }>();

  const remove = (reportId: string) => {
    const previous = contributions.get(reportId);
    if (!previous) return;
    const gauge = previous.cluster ? gauges.cluster : gauges.namespaced;
    for (const [key, s] of previous.counts) gauge.add(key, s.labels, -s.count);
    contributions.delete(reportId);
  };

  return {
    registry,
    upsertReport(report) {
      const isCluster = isClusterReport(report);
      const names: readonly ResultLabel[] = isCluster ? cluster : namespaced;
      const counts = new Map<string, Series>();
      for (const result of report.results) {
        if (!accept(report, result)) continue;
        const all = labelValues(report, result);
        const labels: Record<string, string> = {};
        for (const name of names) labels[name] = all[name];
        const key = names.map((n) => labels[n]).join("\u0000");
        const entry = counts.get(key);
        if (entry) entry.count++;
        else counts.set(key, { labels, count: 1 });
      }
      remove(report.id);
      const gauge = isCluster ? gauges.cluster : gauges.namespaced;
      for (const [key, s] of counts) gauge.add(key, s.labels, s.count);
      contributions.set(report.id, { cluster: isCluster, counts });
    },
    deleteReport: remove,
    countIssue: (code) => issues.inc({ code }),
    countStoreError: (code) => storeErrors.inc({ code }),
    countNotificationError: (target, code) => notificationErrors.inc({ target, code }),
    countWatchError: (kind) => watchErrors.inc({ kind }),
    expose: () => registry.metrics(),
  };
}
