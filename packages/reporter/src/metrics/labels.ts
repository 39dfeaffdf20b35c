/**
 * Label sets of the result gauges per `metrics.mode`, and `metrics.filter`, both compiled once
 * from the configuration.
 */
import { ReporterError } from "../errors.js";
import { compileIncludeExclude, type IncludeExclude } from "../match.js";
import type { Report, Result } from "../model/types.js";

/** Every label of `policy_report_result` in detailed mode, in upstream's order. */
export const DETAILED_LABELS = [
  "namespace",
  "rule",
  "policy",
  "report",
  "kind",
  "name",
  "status",
  "severity",
  "category",
  "source",
] as const;

/** A label the result gauges can carry. */
export type ResultLabel = (typeof DETAILED_LABELS)[number];

/** The labels of simple mode. */
export const SIMPLE_LABELS: readonly ResultLabel[] = [
  "namespace",
  "policy",
  "status",
  "severity",
  "category",
  "source",
];

/** `metrics.mode`. */
export type MetricsMode = "detailed" | "simple" | "custom";

/** `metrics.filter`: include / exclude lists per result field. */
export interface MetricsFilter {
  namespaces?: IncludeExclude;
  policies?: IncludeExclude;
  severities?: IncludeExclude;
  status?: IncludeExclude;
  sources?: IncludeExclude;
  kinds?: IncludeExclude;
}

/**
 * The labels of the namespaced gauge for a mode; the cluster gauge uses the same without
 * `namespace`. Throws `CONFIG_INVALID` naming `metrics.customLabels` for unknown labels.
 */
export function labelsFor(mode: MetricsMode, customLabels: readonly string[] = []): ResultLabel[] {
  if (mode === "detailed") return [...DETAILED_LABELS];
  if (mode === "simple") return [...SIMPLE_LABELS];
  if (customLabels.length === 0) {
    throw new ReporterError("CONFIG_INVALID", "metrics.customLabels: custom mode needs at least one label");
  }
  const known = new Set<string>(DETAILED_LABELS);
  for (const label of customLabels) {
    if (!known.has(label)) {
      throw new ReporterError(
        "CONFIG_INVALID",
        `metrics.customLabels: unknown label ${JSON.stringify(label)} (allowed: ${DETAILED_LABELS.join(", ")})`,
      );
    }
  }
  return DETAILED_LABELS.filter((l) => customLabels.includes(l));
}

/** The value of each label for one result of a report. */
export function labelValues(report: Report, result: Result): Record<ResultLabel, string> {
  return {
    namespace: report.namespace,
    rule: result.rule,
    policy: result.policy,
    report: report.name,
    kind: result.resource?.kind ?? "",
    name: result.resource?.name ?? "",
    status: result.status,
    severity: result.severity,
    category: result.category,
    source: result.source,
  };
}

/** Compiles `metrics.filter` into a predicate over results. */
export function compileMetricsFilter(
  filter: MetricsFilter = {},
): (report: Report, result: Result) => boolean {
  const namespaces = compileIncludeExclude(filter.namespaces);
  const policies = compileIncludeExclude(filter.policies);
  const severities = compileIncludeExclude(filter.severities);
  const status = compileIncludeExclude(filter.status);
  const sources = compileIncludeExclude(filter.sources);
  const kinds = compileIncludeExclude(filter.kinds);
  return (report, result) =>
    (report.namespace === "" || namespaces(report.namespace)) &&
    policies(result.policy) &&
    severities(result.severity) &&
    status(result.status) &&
    sources(result.source) &&
    kinds(result.resource?.kind ?? "");
}
