/**
 * Prometheus metrics: the `policy_report_result` / `cluster_policy_report_result` gauges (one
 * series per label set, valued by the number of results with it; in detailed mode that is 1 per
 * result) and the reporter's own error counters. Each report's contribution is remembered, so an
 * update or delete removes the series that no result carries any more.
 */
import { Counter, Gauge, type MetricObjectWithValues, type MetricValue, Registry } from "prom-client";
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

/** One series of a result gauge: its label values joined by NUL (in the gauge's label order) and its count. */
interface Series {
  readonly key: string;
  count: number;
}

/** A report's contribution: the series its results count in, and how many in each. */
interface Contribution {
  readonly cluster: boolean;
  readonly series: readonly Series[];
  readonly counts: readonly number[];
}

const SEP = "\u0000";

/**
 * A result gauge whose series live here, not in prom-client: prom-client keeps per series a hashed
 * key string and a label object (and allocates both on every `set`), which at 100,000 results was
 * about 100 MiB. A series is its joined label values and a count; the label objects are built only
 * while `/metrics` is scraped.
 */
class ResultGauge extends Gauge<string> {
  readonly #series = new Map<string, Series>();
  readonly #labelNames: readonly string[];

  constructor(options: { name: string; help: string; labelNames: readonly string[]; registry: Registry }) {
    super({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
    });
    this.#labelNames = options.labelNames;
  }

  /** The series of these label values (created with count 0). */
  series(values: string[]): Series {
    const key = values.join(SEP);
    let entry = this.#series.get(key);
    if (!entry) {
      entry = { key, count: 0 };
      this.#series.set(key, entry);
    }
    return entry;
  }

  /** Adds `delta` to a series; a series that reaches 0 disappears. */
  add(series: Series, delta: number): void {
    series.count += delta;
    if (series.count <= 0) this.#series.delete(series.key);
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    const names = this.#labelNames;
    const values: MetricValue<string>[] = [];
    for (const s of this.#series.values()) {
      const labels: Record<string, string> = {};
      const parts = s.key.split(SEP);
      for (let i = 0; i < names.length; i++) labels[names[i] as string] = parts[i] ?? "";
      values.push({ value: s.count, labels });
    }
    // The base gauge holds no series (nothing is ever set on it): it supplies name, help and type.
    return { ...(await super.get()), values };
  }
}

/** Creates the metrics; throws `CONFIG_INVALID` for unknown custom labels. */
export function createMetrics(options: MetricsOptions = {}): ReporterMetrics {
  const registry = options.registry ?? new Registry();
  const namespaced = labelsFor(options.mode ?? "detailed", options.customLabels);
  const cluster = namespaced.filter((l) => l !== "namespace");
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
      labelNames: cluster,
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
  /** Per report: which gauge, and how many results per series. */
  const contributions = new Map<string, Contribution>();

  const remove = (reportId: string) => {
    const previous = contributions.get(reportId);
    if (!previous) return;
    const gauge = previous.cluster ? gauges.cluster : gauges.namespaced;
    for (let i = 0; i < previous.series.length; i++) {
      const series = previous.series[i];
      if (series) gauge.add(series, -(previous.counts[i] ?? 0));
    }
    contributions.delete(reportId);
  };

  return {
    registry,
    upsertReport(report) {
      const isCluster = isClusterReport(report);
      const names: readonly ResultLabel[] = isCluster ? cluster : namespaced;
      const gauge = isCluster ? gauges.cluster : gauges.namespaced;
      const counted = new Map<Series, number>();
      for (const result of report.results) {
        if (!accept(report, result)) continue;
        const all = labelValues(report, result);
        const series = gauge.series(names.map((n) => all[n]));
        counted.set(series, (counted.get(series) ?? 0) + 1);
      }
      // Add before removing the old contribution, so a series kept by the update is never dropped.
      for (const [series, n] of counted) gauge.add(series, n);
      remove(report.id);
      contributions.set(report.id, {
        cluster: isCluster,
        series: [...counted.keys()],
        counts: [...counted.values()],
      });
    },
    deleteReport: remove,
    countIssue: (code) => issues.inc({ code }),
    countStoreError: (code) => storeErrors.inc({ code }),
    countNotificationError: (target, code) => notificationErrors.inc({ target, code }),
    countWatchError: (kind) => watchErrors.inc({ kind }),
    expose: () => registry.metrics(),
  };
}
